"""Measure names in the three syntaxes IR people write, mapped to one canonical :class:`Measure`:
ranx (``ndcg@10``, ``r-precision``, ``rbp.95``, the level suffix ``precision@10-l2``), ir_measures
(``nDCG@10``, ``P(rel=2)@5``, ``RBP(p=0.8,rel=1)``, ``nDCG(dcg='exp-log2')@10``) and trec_eval
(``ndcg_cut_10``, ``iprec_at_recall_0.50``; its ``-m`` syntax ``P.5,10,20``, ``set_F.0.5``, a bare
cut-off family ``P`` for its default cut-offs, the sets ``official`` and ``all_trec``, and
``relstring.N``: not a number, see :class:`Relstring`). Every spelling is listed in
docs/retrieval.md ("Measure names").

Every spelling, cut-off name, default, parameter bound and relevance-level rule comes from the
declarations in :data:`~scorekit.retrieval.measures.FAMILIES` (``Family.rel``/``rel_switch``:
ir_measures' ``RBP`` without ``rel`` is ``rbp_graded``, ``NumRet(rel=2)`` is ``num_rel_ret``);
the only tables here are trec_eval's two sets. :attr:`Measure.name` reads back as that Measure.

Names are case-insensitive. :func:`parse_measures` returns ``(name as written, Measure)`` pairs:
results are keyed by the user's spelling (a ``-m`` parameter list or a set by the names
trec_eval prints, ``P_5``), signatures carry :attr:`Measure.name`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import groupby
from dataclasses import dataclass, replace

from scorekit.errors import ScorekitError, UnknownNameError
from scorekit.metrics.base import Param
from scorekit.metrics.registry import split_specs
from scorekit.retrieval.measures import DEFAULT_MEASURES, FAMILIES, Measure, outside_text

# trec_eval 10's measure sets, in its output order (its measure table's). A member is a trec_eval
# name, or (the name trec_eval prints, the spelling scorekit parses) where trec_eval's name means
# another measure in scorekit (ranx's ``rbp``); "runid" is the run's name, an output line, not a
# measure.
RUNID = "runid"
RELSTRING = "relstring"
_OFFICIAL = [RUNID, "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
             "recip_rank", "iprec_at_recall", "P"]
_ALL_TREC = _OFFICIAL + [
    RELSTRING,
    *[f"recall.{c}" for c in FAMILIES["precision"].trec_defaults],   # bare ``recall`` is ranx's recall
    "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg",
    "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map",
    "set_F", "num_nonrel_judged_ret", ("rbp", "rbp_trec"), "rbp_resid", "unj"]
_RELSTRING = re.compile(r"^relstring(?:[._](?P<n>\d+))?$", re.IGNORECASE)


@dataclass(frozen=True)
class Relstring:
    """trec_eval's ``relstring.N``: per query, the grades of the first ``n`` retrieved documents
    as text, one character each (see :func:`scorekit.retrieval.evaluate.relstrings`). Not a
    number: no mean, no JSON; only trec_eval's layout (``--per-query -``) prints it.
    ``explicit``: named by the user, not only brought in by ``all_trec``."""

    n: int = 10
    explicit: bool = True
_SETS = {"official": _OFFICIAL, "alltrec": _ALL_TREC}


def _key(name: str) -> str:
    return re.sub(r"[_\- ]", "", name.lower())


def _tables() -> tuple[dict[str, str], dict[str, str]]:
    """From the declarations in FAMILIES: spelling key -> family, and trec_eval cut-off name key
    -> family (read each time, so a family added to FAMILIES is parsed with no other edit)."""
    spell: dict[str, str] = {}
    cut: dict[str, str] = {}
    for fam, spec in FAMILIES.items():
        for s in (fam, *spec.aliases, *((spec.trec_cut,) if spec.trec_cut else ())):
            spell.setdefault(_key(s), fam)
        if spec.trec_cut:
            cut[_key(spec.trec_cut)] = fam
    return spell, cut


_FORM = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9_ \-]*?)\s*(?:\((?P<args>[^()]*)\))?\s*"
                   r"(?:@\s*(?P<k>[^\s@]+))?$")
_TREC = re.compile(r"^(?P<name>[A-Za-z][A-Za-z_]*?)[_.](?P<k>\d+(?:\.\d+)?)$")
_RANX_LEVEL = re.compile(r"^(?P<rest>.*?)-l(?P<rel>\d+)$")
_RANX_RBP = re.compile(r"^rbp\.(?P<p>\d+)$", re.IGNORECASE)
# trec_eval's "-m name.params": parameters after the first dot, a comma list continues it
_TREC_PARAMS = re.compile(r"^(?P<name>[A-Za-z][A-Za-z_]*?)\.(?P<params>\.?\d[\d.]*|\.\d+)$")
_CONTINUE = re.compile(r"^(?:\d+(?:\.\d*)?|\.\d+)$")


def known_names() -> list[str]:
    out = []
    for fam, spec in FAMILIES.items():
        out.append(f"{fam}@{spec.param.name if spec.param_at else 'k'}"
                   if spec.param_at or spec.cutoff != "none" else fam)
        out += [fam] if spec.cutoff == "optional" else []
        if spec.trec_cut:
            out.append(f"{spec.trec_cut}.{spec.param.name if spec.param_at or spec.cutoff == 'none' else 'k,k'}")
    return out + ["AP", "RR", "nDCG@k", "P@k", "R@k", "Rprec", "Bpref", "Judged@k", "Success@k",
                  "NumRet", "NumRelRet", "P_k", "ndcg_cut_k", "map_cut_k", "recip_rank", "official", "all_trec",
                  "relstring.N"]


def _bad(text: str, why: str) -> ScorekitError:
    return ScorekitError(f"measure {text!r}: {why}")


def _args(text: str, raw: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    if not raw or not raw.strip():
        return out
    for part in raw.split(","):
        if "=" not in part:
            raise _bad(text, f"parameters are written name=value, got {part.strip()!r}")
        k, v = part.split("=", 1)
        out[k.strip().lower()] = v.strip().strip("'\"")
    return out


def _int(text: str, raw: str, what: str, bound: str = ">= 1") -> int:
    try:
        v = int(raw)
    except ValueError:
        raise _bad(text, f"{what} must be a positive integer, got {raw!r}") from None
    if v < 1:
        raise _bad(text, f"{what} must be a positive integer ({bound}), got {v}")
    return v


def _value(text: str, raw: str, param: Param) -> float:
    """A family's real parameter, read and checked against its declared bounds."""
    what = param.doc or param.name
    try:
        v = float(raw)
    except ValueError:
        raise _bad(text, f"the {what} {param.name} must be a number, got {raw!r}") from None
    why = outside_text(param, v)
    if why:
        raise _bad(text, why)
    return v


def parse_measure(text: str) -> Measure:
    """One name in any of the three syntaxes -> its canonical :class:`Measure`."""
    if isinstance(text, Measure):
        return text
    raw = str(text).strip()
    if not raw:
        raise ScorekitError("empty measure name")
    spell, cuts = _tables()
    body, rel = raw, None
    if (m := _RANX_LEVEL.match(body)) and "(" not in body:
        body, rel = m.group("rest"), _int(raw, m.group("rel"), "relevance level")
    params: dict[str, str] = {}
    if m := _RANX_RBP.match(body):
        name, k_raw, params = "rbp", None, {"p": f"0.{m.group('p')}"}
    elif (m := _TREC.match(body)) and _key(m.group("name")) in cuts:
        name, k_raw = m.group("name"), m.group("k")
        spec = FAMILIES[cuts[_key(name)]]
        if spec.cutoff == "none" and spec.param is not None and not spec.param_at:   # set_F_0.5
            params, k_raw = {spec.param.name: k_raw}, None
    elif m := _FORM.match(body):
        name, k_raw = m.group("name"), m.group("k")
        params = _args(raw, m.group("args"))
    else:
        raise UnknownNameError("retrieval measure", raw, known_names())
    fam = spell.get(_key(name))
    if fam is None:
        raise UnknownNameError("retrieval measure", raw, known_names())
    # a spelling that names another family through ir_measures' rel= (declared: Family.rel_switch)
    spec = FAMILIES[fam]
    if spec.rel_switch and ("rel" in params) != (spec.rel == "required"):
        fam = spec.rel_switch
    if fam == "ndcg" and "dcg" in params:
        dcg = params.pop("dcg")
        if dcg not in ("log2", "exp-log2"):
            raise _bad(raw, f"dcg must be 'log2' or 'exp-log2', got {dcg!r}")
        fam = "ndcg_burges" if dcg == "exp-log2" else "ndcg"
    spec = FAMILIES[fam]
    if "rel" in params:
        if rel is not None:
            raise _bad(raw, "the relevance level is given twice")
        rel = _int(raw, params.pop("rel"), "rel")
    if spec.rel == "none":
        rel = None   # no level changes it: num_ret-l2 is trec_eval's -l 2 num_ret, num_ret itself
    given = params.pop(spec.param.name, None) if spec.param is not None and not spec.param_at else None
    param = None if given is None else _value(raw, given, spec.param)    # None: Measure's default
    # what goes after @ may be written by its name too, as the declaration names it: ndcg(k=10),
    # iprec_at_recall(recall=0.5)
    at_name = spec.param.name if spec.param_at else ("k" if spec.cutoff != "none" else None)
    if at_name in params:
        if k_raw is not None:
            raise _bad(raw, f"the {'cutoff' if at_name == 'k' else at_name} is given twice")
        k_raw = params.pop(at_name)
    if params:
        raise _bad(raw, f"unsupported parameter {', '.join(sorted(params))!r} for {fam}")
    k = None
    if k_raw is not None and spec.param_at:
        param = _value(raw, k_raw, spec.param)
    elif k_raw is not None:
        if spec.cutoff == "none":
            raise _bad(raw, f"{fam} takes no cutoff")
        k = _int(raw, k_raw, "the cutoff", "k >= 1")
    why = spec.problem(fam, k, rel, param)
    if why:
        raise _bad(raw, why)
    return Measure(fam, k, rel, param)


def _trec_name(name: str, value: str) -> str:
    """What trec_eval prints for ``-m name.value``: ``P_5``, ``iprec_at_recall_0.10``, ``set_F_0.5``."""
    spec = FAMILIES[_tables()[1][_key(name)]]
    if spec.param_at:
        return f"{name}_{float(value):.2f}"
    if spec.cutoff != "none":
        try:
            return f"{name}_{int(value)}"
        except ValueError:
            raise _bad(f"{name}.{value}", f"the cut-off must be a positive integer, got {value!r}") from None
    return f"{name}_{value}"


def _trec_measure(name: str, value: str) -> tuple[str, Measure]:
    printed = _trec_name(name, value)
    return printed, parse_measure(printed)


def _expand(parts: list, in_set: bool = False) -> list[tuple[str, Measure | Relstring | None]]:
    """trec_eval's ``-m`` syntax -> one entry per measure: ``P.5,10`` (the comma list continues
    the name before it), bare cut-off families (``P``: trec_eval's default cut-offs) and the sets
    ``official``/``all_trec``; ``relstring.N`` -> a :class:`Relstring`. Any other name passes
    through (Measure None: parsed later)."""
    cuts = _tables()[1]
    out: list[tuple[str, Measure | Relstring | None]] = []
    last: str | None = None          # the trec_eval name a bare number continues
    for part in parts:
        if isinstance(part, tuple):  # a set member trec_eval prints as part[0]
            out.append((part[0], parse_measure(part[1])))
            continue
        part = part.strip()
        if _CONTINUE.match(part):
            if last is None:
                raise _bad(part, "a bare number continues a trec_eval parameter list (P.5,10); "
                                 "it needs a name before it")
            out.append(_trec_measure(last, part))
            continue
        last = None
        key = _key(part)
        if key == RUNID:
            out.append((RUNID, None))
        elif key in _SETS:
            out += _expand(_SETS[key], in_set=True)
        elif m := _RELSTRING.match(part):   # trec_eval prints relstring_N when N is given
            n = _int(part, m.group("n"), "relstring's number of documents") if m.group("n") else 10
            out.append((f"{RELSTRING}_{n}" if m.group("n") else RELSTRING, Relstring(n, not in_set)))
        elif key in cuts and FAMILIES[cuts[key]].trec_defaults and not _TREC.match(part):
            out += [_trec_measure(part, v) for v in FAMILIES[cuts[key]].trec_defaults]
        elif (m := _TREC_PARAMS.match(part)) and _key(m.group("name")) in cuts:
            last = m.group("name")
            out.append(_trec_measure(last, m.group("params")))
        else:
            out.append((part, None))
    return out


def trec_items(names: str | Iterable) -> list[tuple[str, Measure | Relstring | None]]:
    """Every name in order as trec_eval's layout prints it: ``(key, Measure)``, ``(runid, None)``
    and at most one ``(relstring[_N], Relstring)`` (named again, the last N wins, at the first
    one's place, as trec_eval's parameters do); a name written twice counts once."""
    if isinstance(names, (str, Measure)):
        names = split_specs(names) if isinstance(names, str) else [names]
    items: list[tuple[str, Measure | Relstring | None] | Measure] = []
    for strings, group in groupby(names, key=lambda n: isinstance(n, str)):
        items += _expand(list(group)) if strings else list(group)
    out: list[tuple[str, Measure | Relstring | None]] = []
    seen: set[str] = set()
    text_at = None
    for n in items:
        if isinstance(n, Measure):
            key, meas = n.name, n
        else:
            key, meas = n
            if isinstance(meas, Relstring):
                if text_at is None:
                    text_at = len(out)
                    out.append((key, meas))
                else:
                    old = out[text_at][1]
                    out[text_at] = (key, replace(meas, explicit=meas.explicit or old.explicit))
                continue
            meas = meas if meas is not None or key == RUNID else parse_measure(key)
        if key not in seen:
            seen.add(key)
            out.append((key, meas))
    return out


def parse_measures(names: str | Iterable, *, texts: bool = False) -> list[tuple[str, Measure]]:
    """``"nDCG@10,P_10,recall(rel=2)@100"`` or a list -> ``[(name as written, Measure), ...]``
    (a name written twice counts once). trec_eval's ``-m`` forms (``P.5,10``, ``all_trec``) are
    keyed by the names trec_eval prints (``P_5``, ``P_10``). ``runid`` and ``relstring`` are not
    measures and are left out; ``relstring`` named by the user is refused unless ``texts`` (the
    caller prints trec_eval's layout, see :func:`trec_items`), then it alone is enough."""
    items = trec_items(names)
    text = next((m for _, m in items if isinstance(m, Relstring)), None)
    if text is not None and text.explicit and not texts:
        raise ScorekitError("measure 'relstring' (the first grades as text) is printed only in "
                            "trec_eval's layout: add --per-query - (without --engine ray)")
    out = [(k, m) for k, m in items if isinstance(m, Measure)]
    if not out and not (texts and text is not None):
        raise ScorekitError("no measures given (e.g. ndcg@10,map@100,mrr)")
    return out


def asks_runid(names: str | Iterable) -> bool:
    """Do these names ask for trec_eval's ``runid`` line (``-m runid``, ``official``, ``all_trec``)?"""
    if isinstance(names, Measure):
        return False
    parts = split_specs(names) if isinstance(names, str) else [n for n in names if isinstance(n, str)]
    return any(key == RUNID and meas is None for key, meas in _expand(parts))


__all__ = ["parse_measure", "parse_measures", "trec_items", "asks_runid", "known_names", "DEFAULT_MEASURES",
           "RUNID", "RELSTRING", "Relstring"]
