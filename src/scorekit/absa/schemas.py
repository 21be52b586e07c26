"""Pydantic models of the rows scorekit reads and writes (spec §1–§3): ``FinalOutputRow`` (one line
of outputs.jsonl) and ``Scorecard`` (one line of scorecards.jsonl). Unknown fields are kept; a row
whose read fields have the wrong shape is skipped by the reader with its line and field named."""

from __future__ import annotations

import re
from typing import Any, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator  # noqa: F401


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class Span(_Open):
    start: Optional[int] = None
    end: Optional[int] = None


class AspectTermSpan(_Open):
    """``{"term": ..., "span": ...}``; the span as ``{"start", "end"}``, ``[start, end]`` or null."""

    term: Optional[str] = None
    span: Union[Span, tuple[Optional[int], Optional[int]], None] = None

    @field_validator("span")
    @classmethod
    def _ordered(cls, span):
        """Character offsets ``[start, end)``: neither negative, and the end not before the start."""
        start, end = (span.start, span.end) if isinstance(span, Span) else span or (None, None)
        for name, value in (("start", start), ("end", end)):
            if value is not None and value < 0:
                raise ValueError(f"span {name} must be >= 0, got {value}")
        if start is not None and end is not None and end < start:
            raise ValueError(f"span end {end} is before its start {start}")
        return span


class TupleItem(_Open):
    """One (aspect_ref, aspect_term, polarity) tuple as the pipeline writes it."""

    aspect_ref: Optional[str] = None
    aspect_term: Union[str, AspectTermSpan, None] = None
    polarity: Optional[str] = None
    label: Optional[str] = None
    is_implicit: Optional[bool] = None
    grounding: Optional[str] = None
    confidence: Optional[float] = None
    drop_reason: Optional[str] = None


TupleList = Optional[list[TupleItem]]


class FinalResult(_Open):
    label: Optional[str] = None
    stage1_tuples: TupleList = None
    final_tuples: TupleList = None
    final_tuples_pre_review: TupleList = None
    final_tuples_post_review: TupleList = None
    final_aspects: TupleList = None


class AnalysisFlags(_Open):
    review_actions: Optional[list[Any]] = None
    arb_actions: Optional[list[Any]] = None


class TraceStep(_Open):
    stage: Optional[str] = None
    agent: Optional[str] = None
    output: Optional[dict[str, Any]] = None
    notes: Optional[Any] = None
    error: Optional[Any] = None


class Inputs(_Open):
    aspect_sentiments: TupleList = None
    gold_tuples: TupleList = None
    gold_triplets: TupleList = None
    gold: TupleList = None


class Meta(_Open):
    text_id: Union[str, int, None] = None
    input_text: Optional[str] = None
    run_id: Optional[str] = None


class LabelBlock(_Open):
    label: Optional[str] = None


class FinalOutputRow(_Open):
    """One row of outputs.jsonl (FinalOutputSchema)."""

    meta: Optional[Meta] = None
    stage1_ate: Optional[LabelBlock] = None
    stage2_ate: Optional[LabelBlock] = None
    final_result: Optional[FinalResult] = None
    analysis_flags: Optional[AnalysisFlags] = None
    process_trace: Optional[list[TraceStep]] = None
    inputs: Optional[Inputs] = None
    gold_tuples: TupleList = None
    gold_triplets: TupleList = None
    gold: TupleList = None


class StageDelta(_Open):
    changed: bool
    change_type: str = Field(pattern="^(guided_by_review|unguided|none)$")
    pairs_changed: Optional[bool] = None
    label_changed: Optional[bool] = None


class Runtime(_Open):
    uid: Union[str, int, None] = None
    parsed_output: Optional[FinalOutputRow] = None
    flags: Optional[dict[str, Any]] = None


class ValidatorBlock(_Open):
    stage: Optional[str] = None
    structural_risks: Optional[list[Any]] = None


class Scorecard(_Open):
    """One row of scorecards.jsonl."""

    run_id: Optional[str] = None
    text_id: Union[str, int, None] = None
    runtime: Runtime
    stage_delta: Optional[StageDelta] = None
    inputs: Optional[Inputs] = None
    validator: Optional[list[ValidatorBlock]] = None


# Location parts pydantic adds for the branches of a Union (``str``, ``AspectTermSpan``,
# ``tuple[...]``): not field names, so they are left out of the path shown to the user.
_BRANCH = re.compile(r"^(str|int|float|bool|none|list\[.*\]|dict\[.*\]|tuple\[.*\]|[A-Z]\w*"
                     r"|function-(after|before|wrap|plain)\[.*\])$")


def first_error(exc: ValidationError) -> tuple[str, str]:
    """(dotted field path, message) of the most specific validation error: for a value that
    matches no branch of a Union, the branch that got deepest into it (a span given as
    ``"3-5"`` is reported at ``aspect_term.span``, not as "aspect_term should be a string")."""
    errors = exc.errors(include_url=False)
    err = max(errors, key=lambda e: len([p for p in e["loc"] if not _BRANCH.match(str(p))]))
    loc = ".".join(str(p) for p in err["loc"] if not _BRANCH.match(str(p))) or "<row>"
    msg = err["msg"]
    return loc, msg[len("Value error, "):] if msg.startswith("Value error, ") else msg
