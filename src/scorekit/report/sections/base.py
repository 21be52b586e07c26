"""The task-section registry: a task name -> a renderer ``doc -> (html, consumed extra keys)``.

A new family adds one module with a function decorated ``@task_section("mytask")``; the extra
keys it returns are not rendered again by the generic "more details" section."""

from __future__ import annotations

from collections.abc import Callable

from scorekit.report.model import Doc

TaskSection = Callable[[Doc], "tuple[str, set[str]]"]
TASK_SECTIONS: dict[str, TaskSection] = {}


def task_section(*tasks: str) -> Callable[[TaskSection], TaskSection]:
    def register(func: TaskSection) -> TaskSection:
        for t in tasks:
            TASK_SECTIONS[t] = func
        return func
    return register
