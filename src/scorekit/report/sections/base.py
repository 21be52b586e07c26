"""The task-section registry: a task name -> a renderer ``doc -> (html, consumed extra keys)``;
the consumed keys are not rendered again under "more details"."""

from __future__ import annotations

from collections.abc import Callable

from scorekit.report.model import Doc

TaskSection = Callable[[Doc], "tuple[str, set[str]]"]
TASK_SECTIONS: dict[str, TaskSection] = {}


def registrar(table: dict[str, Callable]) -> Callable[..., Callable[[Callable], Callable]]:
    """A decorator ``@name("task", ...)`` that files the decorated function in ``table`` under each task."""
    def for_tasks(*tasks: str) -> Callable[[Callable], Callable]:
        def register(func: Callable) -> Callable:
            table.update(dict.fromkeys(tasks, func))
            return func
        return register
    return for_tasks


task_section = registrar(TASK_SECTIONS)
