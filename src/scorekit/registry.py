"""A plain name -> object registry with "did you mean" on unknown names."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from scorekit.errors import UnknownNameError

T = TypeVar("T")


class Registry(Generic[T]):
    def __init__(self, kind: str):
        self.kind = kind
        self._items: dict[str, T] = {}

    def register(self, name: str, obj: T | None = None) -> Callable[[T], T] | T:
        """Register ``obj`` under ``name``; usable as a decorator when ``obj`` is omitted."""
        if obj is None:
            return lambda o: self.register(name, o)
        self._items[name] = obj
        return obj

    def get(self, name: str) -> T:
        try:
            return self._items[name]
        except KeyError:
            raise UnknownNameError(self.kind, name, self._items) from None

    def names(self) -> list[str]:
        return list(self._items)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)
