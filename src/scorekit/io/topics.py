"""Readers for ``scorekit topics``: topic sets (JSON), ratings (CSV), a reference corpus (text).

The formats are docs/topics.md's "Input formats". Topic names and the ratings' topic and rater
cells are ids, normalised like text (:mod:`scorekit.io.ids`): two names of one file that become
equal are duplicates. Errors are :class:`~scorekit.errors.InputError` naming ``file:line``.
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass

import numpy as np

from scorekit.errors import InputError, ScorekitError
from scorekit.io.atomic import read_text
from scorekit.io.ids import clean_id
from scorekit.io.jsonfile import member_lines, parse_json


@dataclass
class TopicSet:
    names: list[str]
    topics: list[list[str]]
    keyed: bool = False           # given as {name: [...]} (else a list)


def parse_topics(text: str, path: str | os.PathLike | None = None) -> TopicSet:
    from scorekit.topics.validate import validate_topics

    data = parse_json(text, path)
    line = dict(enumerate(member_lines(text))).get   # element i -> its line (None: not found)
    if isinstance(data, dict):
        names = [clean_id(k, path, line(i), "topic name") for i, k in enumerate(data)]
        raw, keyed = list(data.values()), True
        empty = next((i for i, n in enumerate(names) if not n.strip()), None)
        if empty is not None:   # "" (or a zero-width space) named a topic nobody can rate or read
            raise InputError(f"empty topic name {list(data)[empty]!r}", path, line(empty))
        if len(set(names)) != len(names):
            at = next(i for i, n in enumerate(names) if n in names[:i])
            raise InputError(f"duplicate topic name {names[at]!r} (two spellings, equal once "
                             "normalised: NFC, invisible characters removed)", path, line(at))
    elif isinstance(data, list):
        names, raw, keyed = [f"t{i + 1}" for i in range(len(data))], data, False
    else:
        raise InputError("expected a JSON list of keyword lists or an object {name: [keywords]}", path, 1)
    if not raw:
        raise InputError("the topic list is empty: expected at least one topic of keywords", path, 1)
    for i, words in enumerate(raw):
        if not isinstance(words, list):
            raise InputError(f"topic {names[i]!r}: expected a list of keywords, got {type(words).__name__}",
                             path, line(i))
        try:
            validate_topics([words], [names[i]])
        except ScorekitError as exc:
            raise InputError(str(exc), path, line(i)) from None
    return TopicSet(names, validate_topics(raw, names), keyed)


def read_topics(path: str | os.PathLike) -> TopicSet:
    return parse_topics(read_text(path, "topics file"), path)


@dataclass
class Ratings:
    """Scores of rated topics: ``matrix[i, r]`` is rater r's score of topic ``topic_index[i]``."""

    topic_index: np.ndarray          # positions in the TopicSet
    raters: list[str]
    matrix: np.ndarray               # (n_rated, n_raters); NaN where a rater skipped a topic

    @property
    def mean(self) -> np.ndarray:
        return np.nanmean(self.matrix, axis=1)


def _number(value: str, path, line: int, what: str) -> float:
    try:
        x = float(value)
    except ValueError:
        raise InputError(f"{what}: {value!r} is not a number", path, line) from None
    if not math.isfinite(x):
        raise InputError(f"{what}: {value!r} is not a finite number", path, line)
    return x


def parse_ratings(text: str, topics: TopicSet, path: str | os.PathLike | None = None) -> Ratings:
    from scorekit.io.records import allow_long_fields

    allow_long_fields()
    numbered = [(i, r) for i, r in enumerate(csv.reader(io.StringIO(text)), 1)
                if any(c.strip() for c in r)]
    if not numbered:
        raise InputError("empty ratings file: expected a header row and one row per topic", path, 1)
    (hline, header), body = numbered[0], numbered[1:]
    header = [h.strip() for h in header]
    if len(header) < 2 or header[0].lower() not in ("topic", "id", "name"):
        raise InputError("ratings header must start with a 'topic' column followed by rater columns "
                         "(wide) or be 'topic,rater,score' (long)", path, hline)
    look = {n: i for i, n in enumerate(topics.names)}
    if not topics.keyed:   # list-form topics may be named by position too
        look.update({str(i + 1): i for i in range(len(topics.names))})
    long_form = [h.lower() for h in header] == ["topic", "rater", "score"]
    raters = [] if long_form else [clean_id(r, path, hline, "rater") for r in header[1:]]
    if len(set(raters)) != len(raters):
        raise InputError("duplicate rater column names", path, hline)
    scores: dict[int, dict[str, float]] = {}
    for line, row in body:
        cells = [c.strip() for c in row]
        if len(cells) != len(header):
            raise InputError(f"expected {len(header)} fields, got {len(cells)}", path, line)
        topic = clean_id(cells[0], path, line, "topic")
        if topic not in look:
            hint = "" if topics.keyed else " (list-form topics are t1, t2, … or 1, 2, …)"
            raise InputError(f"unknown topic {topic!r}{hint}", path, line)
        slot = scores.setdefault(look[topic], {})
        if long_form:
            rater = clean_id(cells[1], path, line, "rater")
            if rater not in raters:
                raters.append(rater)
            if rater in slot:
                raise InputError(f"topic {topic!r} rated twice by {rater!r}", path, line)
            slot[rater] = _number(cells[2], path, line, f"topic {topic!r}")
        else:
            if slot:
                raise InputError(f"topic {topic!r} appears twice", path, line)
            for rater, cell in zip(raters, cells[1:]):
                slot[rater] = float("nan") if cell == "" else _number(cell, path, line, f"topic {topic!r}, {rater}")
    if not scores:
        raise InputError("no ratings: expected one row per rated topic after the header", path, hline)
    order = sorted(scores)
    matrix = np.array([[scores[t].get(r, float("nan")) for r in raters] for t in order], dtype=np.float64)
    if np.isnan(matrix).all(axis=1).any():
        bad = topics.names[order[int(np.flatnonzero(np.isnan(matrix).all(axis=1))[0])]]
        raise InputError(f"topic {bad!r} has no score", path)
    return Ratings(topic_index=np.array(order, dtype=np.int64), raters=raters, matrix=matrix)


def read_ratings(path: str | os.PathLike, topics: TopicSet) -> Ratings:
    return parse_ratings(read_text(path, "ratings file"), topics, path)


def read_corpus(path: str | os.PathLike) -> list[str]:
    """Documents of a reference corpus: one per non-blank line."""
    docs = [line for line in read_text(path, "corpus file").splitlines() if line.strip()]
    if not docs:
        raise InputError("the corpus is empty: expected one document per line", path)
    return docs


__all__ = ["Ratings", "TopicSet", "parse_ratings", "parse_topics", "read_corpus", "read_ratings", "read_topics"]
