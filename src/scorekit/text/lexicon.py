"""Synonym lexicons for the Korean METEOR synonym stage (spec caption-metrics §2.5).

A lexicon is a set of synonym *pairs*. Following the spec's ``EnhancedKoreanMETEOR.synonym_match``
(``w2 in synonyms[w1]`` or ``w1 in synonyms[w2]``) a pair is symmetric but not transitive: in
``바다 -> 해양, 바닷가, 해변`` each listed word is a synonym of ``바다``, not of each other.

Every word carries a part of speech (Sejong tag, :data:`POS_TAGS`). Words are written in their
dictionary form: a noun as is (``파도``), a verb/adjective with ``다`` (``푸르다``, ``주무시다``).
The metric registers each word with Kiwi as that POS so it stays one unit in context, and matches
it only against units of the same class (noun / verbal / adverb / determiner).

File formats (UTF-8, every string NFC-normalised on load):

* TSV (``*.tsv``, ``*.txt``): one entry per line, ``POS<TAB>head<TAB>synonym<TAB>synonym...``
  (``NNG	파도	물결``). The POS column may be left out (``파도	물결``, the pre-#15 format):
  then a word may carry its own tag (``파도/NNG``), else a word ending in ``다`` is a verb (VV) and
  any other a common noun (NNG). Blank lines and lines starting with ``#`` are ignored; a line
  with no synonym, an empty field or an unknown tag is an error naming ``file:line``.
* JSON (``*.json``): an object ``{"head": ["synonym", ...], ...}`` (a single string is accepted
  for one synonym) — exactly the shape of the spec's ``_load_korean_synonyms`` dictionary; words
  may carry ``/POS`` as above.

:meth:`Lexicon.load` merges the shipped starter lexicon (``scorekit/data/lexicon/``) with any
user files; :meth:`Lexicon.merge` unions two lexicons. The lexicon only holds strings; turning its
words into the lemma keys the metric matches on is the metric's job (``meteor_ko``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from scorekit.errors import InputError
from scorekit.io.atomic import read_text
from scorekit.text.normalize import nfc

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "lexicon"

# Parts of speech a lexicon word may carry (Sejong tags as Kiwi emits them).
POS_TAGS = ("NNG", "NNP", "NP", "NR", "VV", "VA", "MAG", "MM", "XR")


def pos_class(tag: str) -> str:
    """Matching class of a Sejong tag: N (nominal), V (verbal: verbs, adjectives, auxiliaries,
    copula — Kiwi tags 있다 VV, VA or VX by context), M (adverb), D (determiner), O (other)."""
    tag = tag.split("-")[0]
    if tag.startswith("N") or tag in ("XR", "SN", "SL", "SH"):
        return "N"
    if tag in ("VV", "VA", "VX", "VCP", "VCN"):
        return "V"
    return "M" if tag.startswith("MA") else "D" if tag == "MM" else "O"


def guess_pos(word: str) -> str:
    """POS of an untagged word: dictionary-form verbs end in 다, anything else is a noun."""
    return "VV" if len(word) > 1 and word.endswith("다") else "NNG"


def split_tag(word: str) -> tuple[str, str | None]:
    """``"파도/NNG"`` -> ``("파도", "NNG")``; an untagged word -> ``(word, None)``."""
    if "/" in word:
        w, _, t = word.rpartition("/")
        if t in POS_TAGS and w.strip():
            return w, t
    return word, None


class Lexicon:
    """An immutable set of symmetric synonym pairs between NFC-normalised words, each word with
    its part of speech (``pos``: word -> Sejong tag; a word missing there gets :func:`guess_pos`)."""

    def __init__(self, pairs: Iterable[tuple[str, str]] = (), sources: Iterable[str] = (),
                 pos: Mapping[str, str] | None = None):
        table: dict[str, set[str]] = {}
        tags: dict[str, str] = {}
        for a, b in pairs:
            (a, ta), (b, tb) = split_tag(nfc(a).strip()), split_tag(nfc(b).strip())
            a, b = a.strip(), b.strip()
            if not a or not b or a == b:
                continue
            tags.update({w: t for w, t in ((a, ta), (b, tb)) if t})
            table.setdefault(a, set()).add(b)
            table.setdefault(b, set()).add(a)
        for w, t in (pos or {}).items():
            w = nfc(w).strip()
            if w in table and w not in tags:
                tags[w] = t
        self._table = {k: frozenset(v) for k, v in table.items()}
        self._pos = {w: tags.get(w) or guess_pos(w) for w in self._table}
        self.sources = tuple(sources)

    # -- construction ----------------------------------------------------------------------
    @classmethod
    def from_dict(cls, mapping: Mapping[str, Iterable[str] | str], source: str = "<dict>") -> Lexicon:
        return cls([(head, syn) for head, syns in mapping.items()
                    for syn in ([syns] if isinstance(syns, str) else syns)], [source])

    @classmethod
    def _from_parsed(cls, parsed: list[tuple[str, str, str | None]], sources) -> Lexicon:
        pos: dict[str, str] = {}
        for a, b, tag in parsed:
            for w in (a, b) if tag else ():
                pos.setdefault(nfc(split_tag(w)[0]).strip(), tag)
        return cls([(a, b) for a, b, _ in parsed], sources, pos)

    @classmethod
    def read(cls, path: str | os.PathLike) -> Lexicon:
        """One lexicon file, TSV or JSON (by extension: ``.json`` is JSON, anything else TSV)."""
        p = Path(path)
        text = read_text(p, "lexicon file")
        parsed = _parse_json(text, p) if p.suffix.lower() == ".json" else _parse_tsv(text, p)
        return cls._from_parsed(parsed, [str(p)])

    @classmethod
    def default(cls) -> Lexicon:
        """The starter Korean lexicon shipped with scorekit (covers every example in the spec)."""
        return _default()

    @classmethod
    def load(cls, *paths: str | os.PathLike, include_default: bool = True) -> Lexicon:
        """The starter lexicon (unless ``include_default=False``) merged with each user file."""
        lex = cls.default() if include_default else cls()
        for path in paths:
            lex = lex.merge(cls.read(path))
        return lex

    def merge(self, other: Lexicon) -> Lexicon:
        """Union of the pairs; a word tagged in both keeps ``other``'s (the later file's) tag."""
        return Lexicon([*self.pairs(), *other.pairs()], [*self.sources, *other.sources],
                       {**self._pos, **other._pos})

    # -- queries ---------------------------------------------------------------------------
    def synonyms(self, word: str) -> frozenset[str]:
        """The words paired with ``word`` (not including ``word`` itself)."""
        return self._table.get(nfc(word), frozenset())

    def are_synonyms(self, a: str, b: str) -> bool:
        a, b = nfc(a), nfc(b)
        return a == b or b in self._table.get(a, ())

    def words(self) -> list[str]:
        return sorted(self._table)

    def pos(self, word: str) -> str | None:
        """The word's part of speech (Sejong tag), None for a word not in the lexicon."""
        return self._pos.get(nfc(word))

    def entries(self) -> list[tuple[str, str]]:
        """``(word, POS)`` for every word, sorted."""
        return [(w, self._pos[w]) for w in sorted(self._table)]

    def pairs(self) -> list[tuple[str, str]]:
        return sorted((a, b) for a, syns in self._table.items() for b in syns if a < b)

    def __len__(self) -> int:
        return len(self.pairs())

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and nfc(word) in self._table

    @functools.cached_property
    def fingerprint(self) -> str:
        """Short content hash, for signatures: two lexicons with the same pairs share it."""
        text = "\n".join(f"{a}/{self._pos[a]}\t{b}/{self._pos[b]}" for a, b in self.pairs())
        return hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]

    def __repr__(self) -> str:
        return f"Lexicon({len(self)} pairs, {len(self._table)} words, fingerprint={self.fingerprint})"


def _parse_tsv(text: str, path: Path) -> list[tuple[str, str, str | None]]:
    pairs: list[tuple[str, str, str | None]] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [f.strip() for f in line.split("\t")]
        tag = None
        if fields[0].isascii() and fields[0].isupper():
            tag = fields.pop(0)
            if tag not in POS_TAGS:
                raise InputError(f"unknown part of speech {tag!r} (expected one of {', '.join(POS_TAGS)})",
                                 path, lineno)
        if len(fields) < 2:
            raise InputError(
                "expected 'word<TAB>synonym[<TAB>synonym...]' (tab-separated, at least one synonym)",
                path, lineno)
        if any(not f for f in fields):
            raise InputError(f"empty field {fields.index('') + 1} (two tabs in a row or a trailing tab?)",
                             path, lineno)
        head = fields[0]
        pairs.extend((head, syn, tag) for syn in fields[1:])
    return pairs


def _parse_json(text: str, path: Path) -> list[tuple[str, str, str | None]]:
    from scorekit.io.jsonfile import parse_json

    data = parse_json(text, path)
    if not isinstance(data, dict):
        raise InputError('expected a JSON object {"word": ["synonym", ...]}', path)
    pairs: list[tuple[str, str, str | None]] = []
    for head, syns in data.items():
        if isinstance(syns, str):
            syns = [syns]
        if not isinstance(syns, list) or not syns or not all(isinstance(s, str) and s.strip() for s in syns):
            raise InputError(f"entry {head!r}: expected a non-empty list of non-empty strings", path,
                             _line_of_key(text, head))
        if not head.strip():
            raise InputError("empty word as a key", path, _line_of_key(text, head))
        pairs.extend((head, s, None) for s in syns)
    return pairs


def _line_of_key(text: str, key: str) -> int | None:
    pos = text.find(json.dumps(key, ensure_ascii=False))
    if pos < 0:
        pos = text.find(json.dumps(key))
    return None if pos < 0 else text.count("\n", 0, pos) + 1


@functools.lru_cache(maxsize=1)
def _default() -> Lexicon:
    pairs: list[tuple[str, str, str | None]] = []
    names = []
    for entry in sorted(DATA_DIR.iterdir()) if DATA_DIR.is_dir() else []:
        if entry.name.endswith((".tsv", ".json")):
            text = entry.read_text(encoding="utf-8")
            path = Path(f"scorekit/data/lexicon/{entry.name}")
            pairs.extend(_parse_json(text, path) if entry.name.endswith(".json") else _parse_tsv(text, path))
            names.append(f"scorekit:{entry.name}")
    return Lexicon._from_parsed(pairs, names)
