"""Whole-file JSON with errors that name the file, line and column: every reader that takes JSON
goes through :func:`parse_json`, so a syntax error reads ``path:line: invalid JSON: ...``.

Duplicate keys in one object are an error too (Python's ``json`` keeps the last value silently,
which would drop a whole topic or prediction): one hook per object on the fast C parser, and only
when a duplicate is found is the text scanned again (pure Python) for the line where it repeats.
So is a lone surrogate escape (``"\\ud800"`` with no partner): not a character, it would fail
much later, when a result is encoded as UTF-8.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
import os
import re
from typing import Any

from scorekit.errors import InputError
from scorekit.io.atomic import read_text


class DuplicateKeyError(ValueError):
    def __init__(self, key: str, pos: int | None = None):
        super().__init__(key)
        self.key, self.pos = key, pos


def object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return obj


def _object_locating_duplicates(s_and_end, strict, scan_once, _object_hook, _pairs_hook, memo):
    """The stdlib's object parser, raising :class:`DuplicateKeyError` at a repeated key (the
    position of its closing quote: the line where it repeats)."""
    s, starts, seen = s_and_end[0], [], set()

    def scan_value(s: str, idx: int):
        starts.append(idx)
        return scan_once(s, idx)

    pairs, end = json.decoder.JSONObject(s_and_end, strict, scan_value, None, list, memo)
    for (key, _), at in zip(pairs, starts):
        if key in seen:
            raise DuplicateKeyError(key, s.rindex('"', 0, s.rindex(":", 0, at)))
        seen.add(key)
    return {}, end


def _duplicate_error(dup: DuplicateKeyError, text: str, path, line: int) -> InputError:
    """The error for ``dup``, at the line where the key repeats (found by the slow parser)."""
    locator = json.JSONDecoder()
    locator.parse_object = _object_locating_duplicates
    locator.scan_once = json.scanner.py_make_scanner(locator)
    try:
        locator.decode(text)
    except DuplicateKeyError as located:
        line += text.count("\n", 0, located.pos)
    except ValueError:
        pass
    return InputError(f"duplicate key {dup.key!r} in one JSON object (each key may appear once)", path, line)


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
# a high surrogate escape not followed by a low one, or a low one not preceded by a high one
_LONE_ESCAPE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
                          r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def find_lone_surrogate(value: Any, where: str = "") -> str | None:
    """Where in ``value`` a string (or key) holds a lone surrogate, as ``["key"][0]``, else None."""
    if isinstance(value, str):
        return where or "the top level" if _SURROGATE.search(value) else None
    if not isinstance(value, (dict, list)):
        return None
    for k, v in value.items() if isinstance(value, dict) else enumerate(value):
        if isinstance(k, str) and _SURROGATE.search(k):
            return f"{where} key {k!r}".strip()
        found = find_lone_surrogate(v, f"{where}[{k!r}]")
        if found:
            return found
    return None


_DECODER = json.JSONDecoder(object_pairs_hook=object_without_duplicates)   # one, not one a call


def parse_json(text: str, path: str | os.PathLike | None = None, line: int = 1) -> Any:
    """``json.loads`` raising InputError at the failing line (``line`` = where ``text`` starts);
    duplicate keys within one object are an InputError too."""
    try:
        if text.startswith("\ufeff"):    # as json.loads: a BOM left in the text is an error
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        data = _DECODER.decode(text)
    except DuplicateKeyError as dup:
        raise _duplicate_error(dup, text, path, line) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg} (column {exc.colno})", path, line + exc.lineno - 1) from None
    except RecursionError:
        raise InputError("invalid JSON: nested too deeply", path, line) from None
    where = find_lone_surrogate(data) if "\\u" in text and _SURROGATE_ESCAPE.search(text) else None
    if where is not None:
        m = _LONE_ESCAPE.search(text)
        raise InputError(f"lone surrogate{f' {m.group(0)}' if m else ''} in the string at {where} (half of a "
                         "UTF-16 pair, not a character; write the character itself or its full pair)",
                         path, line + text.count("\n", 0, m.start()) if m else line)
    return data


def member_lines(text: str) -> list[int]:
    """The line where each member of the top-level array or object of ``text`` (valid JSON)
    starts — an object's member at its key — in one pass: each member is skipped by the json
    module's scanner."""
    decode, skip = json.JSONDecoder().raw_decode, json.decoder.WHITESPACE.match
    pos = skip(text).end()
    if text[pos:pos + 1] not in ("[", "{"):
        return []
    keyed, lines, line, seen = text[pos] == "{", [], 1, 0
    pos = skip(text, pos + 1).end()
    while text[pos] not in "]}":
        line, seen = line + text.count("\n", seen, pos), pos
        lines.append(line)
        if keyed:   # the key, then the colon
            pos = skip(text, skip(text, decode(text, pos)[1]).end() + 1).end()
        pos = skip(text, decode(text, pos)[1]).end()
        pos = skip(text, pos + 1).end() if text[pos] == "," else pos
    return lines


def read_json_object(path: str | os.PathLike, what: str = "JSON file",
                     expected: str = "a JSON object") -> dict[str, Any]:
    """A file holding one JSON object; empty files, syntax errors and other shapes are InputErrors."""
    text = read_text(path, what)
    if not text.strip():
        raise InputError(f"empty {what} (expected {expected})", path)
    data = parse_json(text, path)
    if not isinstance(data, dict):
        raise InputError(f"expected {expected}, found {type(data).__name__}", path)
    return data
