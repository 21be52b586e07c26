"""The report's sections: :mod:`.common` (every result), :mod:`.sweep` (n-sweep curves) and one
module per task registered in :data:`TASK_SECTIONS` (``@task_section("mytask")``)."""

from scorekit.report.sections import absa, caption, retrieval, rl, topics  # noqa: F401  (register)
from scorekit.report.sections.base import TASK_SECTIONS, task_section

__all__ = ["TASK_SECTIONS", "task_section"]
