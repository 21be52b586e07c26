"""Helpers for the report tests: the hand-made result fixtures and an HTML element parser
(a uniquely named module, so `tests/cli` can import it too)."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

DATA = Path(__file__).parent / "data"
FIXTURES = ("retrieval_single", "retrieval_compare", "caption_ko", "sweep", "topics", "absa")


def load(name: str) -> dict:
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


class Elements(HTMLParser):
    """Collect every start tag as (tag, attrs dict) plus the text of the document."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, {k: v or "" for k, v in attrs}))

    handle_startendtag = handle_starttag

    def handle_data(self, data):
        self.text.append(data)

    def find(self, tag: str | None = None, **attrs: str) -> list[dict[str, str]]:
        out = []
        for t, a in self.elements:
            if tag and t != tag:
                continue
            if all((a.get(k.replace("_", "-")) == v) if v is not True else (k.replace("_", "-") in a)
                   for k, v in attrs.items()):
                out.append(a)
        return out

    def with_class(self, cls: str, tag: str | None = None) -> list[dict[str, str]]:
        return [a for t, a in self.elements if (tag is None or t == tag) and cls in a.get("class", "").split()]

