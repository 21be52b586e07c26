"""The report's sections: :mod:`.common` (every result), :mod:`.sweep` (n-sweep curves) and the
task sections of :mod:`.tasks`, in :data:`TASK_SECTIONS` (``@task_section("mytask")``)."""

from scorekit.report.sections import tasks  # noqa: F401  (registers the task sections)
from scorekit.report.sections.base import TASK_SECTIONS, task_section

__all__ = ["TASK_SECTIONS", "task_section"]
