"""Measure names in the three syntaxes IR people write, all mapped to one canonical :class:`Measure`.

* ranx: ``ndcg@10``, ``map@100``, ``mrr``, ``hit_rate@5``, ``r-precision``, ``rbp.95``, and the
  relevance-level suffix ``precision@10-l2``;
* ir_measures: ``AP``, ``AP@100``, ``RR@10``, ``nDCG@10``, ``P@5``, ``R@100``, ``P(rel=2)@5``,
  ``R(rel=2)@100``, ``Rprec``, ``Bpref``, ``infAP``, ``ERR@10``, ``RBP(p=0.8,rel=1)``,
  ``Judged@10``, ``Success@5``, ``NumRet``, ``NumRel``, ``NumRelRet``, ``SetP``, ``SetR``,
  ``SetF(beta=1)``, ``IPrec@0.5``, ``nDCG(dcg='exp-log2')@10``;
* trec_eval: ``P_10``, ``recall_100``, ``map``, ``map_cut_100``, ``ndcg``, ``ndcg_cut_10``,
  ``recip_rank``, ``Rprec``, ``bpref``, ``infAP``, ``gm_map``, ``success_5``, ``set_P``,
  ``set_recall``, ``set_F``, ``num_ret``, ``num_rel``, ``num_rel_ret``, ``iprec_at_recall_0.50``;
  and trec_eval's ``-m`` syntax: ``P.5,10,20``, ``ndcg_cut.5,10``, ``iprec_at_recall..10,.50``,
  ``set_F.0.5``, a bare cut-off family (``P``, ``ndcg_cut``, ``map_cut``, ``success``,
  ``iprec_at_recall``: trec_eval's default cut-offs) and the sets ``official`` and ``all_trec``
  (the measures of trec_eval's sets that scorekit computes; :data:`TREC_UNSUPPORTED` lists the
  rest).

Names are case-insensitive. :func:`parse_measures` returns ``(name as written, Measure)`` pairs:
results are keyed by the user's spelling (a ``-m`` parameter list or a set by the names
trec_eval prints, ``P_5``), signatures carry :attr:`Measure.name`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from scorekit.errors import ScorekitError, UnknownNameError
from scorekit.metrics.registry import split_specs
from scorekit.retrieval.measures import DEFAULT_MEASURES, FAMILIES, Measure

# spelling (lower case, without "_", "-", " ") -> family
_ALIASES = {
    "hits": "hits", "hitrate": "hit_rate", "hit": "hit_rate", "success": "hit_rate",
    "precision": "precision", "p": "precision",
    "recall": "recall", "r": "recall",
    "f1": "f1",
    "rprecision": "r_precision", "rprec": "r_precision",
    "mrr": "mrr", "rr": "mrr", "reciprank": "mrr", "reciprocalrank": "mrr",
    "map": "map", "ap": "map", "mapcut": "map", "averageprecision": "map",
    "gmmap": "gm_map", "gmap": "gm_map",
    "bpref": "bpref",
    "infap": "infap",
    "ndcg": "ndcg", "ndcgcut": "ndcg", "ndcgburges": "ndcg_burges",
    "dcg": "dcg", "dcgburges": "dcg_burges",
    "err": "err",
    "rbp": "rbp", "rbpgraded": "rbp_graded",
    "judged": "judged",
    "setp": "set_p", "setrecall": "set_recall", "setr": "set_recall", "setf": "set_f",
    "numret": "num_ret", "numrel": "num_rel", "numrelret": "num_rel_ret",
    "iprecatrecall": "iprec_at_recall", "iprec": "iprec_at_recall",
}
# trec_eval's "<measure>_<cutoff>" (and "-m measure.cutoff") spellings
_TREC_CUT = {"p", "recall", "success", "mapcut", "ndcgcut", "iprecatrecall"}

# trec_eval's default parameters of its cut-off families (``-m P`` = P_5 ... P_1000)
_TREC_CUTS = ("5", "10", "15", "20", "30", "100", "200", "500", "1000")
_TREC_DEFAULTS = {
    "p": _TREC_CUTS, "mapcut": _TREC_CUTS, "ndcgcut": _TREC_CUTS, "success": ("1", "5", "10"),
    "iprecatrecall": tuple(f"{i / 10:.2f}" for i in range(11)),
}
# trec_eval 10's measure sets, in its output order; None = a measure scorekit does not compute
def _cuts(name: str, values: tuple[str, ...] = _TREC_CUTS) -> list[str]:
    return [f"{name}.{values[0]}", *values[1:]]


_OFFICIAL = ["num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
             "iprec_at_recall", "P"]
_ALL_TREC = _OFFICIAL + [*_cuts("recall"), "infAP", "ndcg", "ndcg_cut", "map_cut", "success",
                         "set_P", "set_recall", "set_F"]
TREC_UNSUPPORTED = ("runid", "num_q", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G",
                    "ndcg_rel", "Rndcg", "relative_P", "set_relative_P", "set_map",
                    "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj")
_SETS = {"official": _OFFICIAL, "alltrec": _ALL_TREC}
# trec_eval's "-m name.params": parameters after the first dot, a comma list continues it
_TREC_PARAMS = re.compile(r"^(?P<name>[A-Za-z][A-Za-z_]*?)\.(?P<params>\.?\d[\d.]*|\.\d+)$")
_CONTINUE = re.compile(r"^(?:\d+(?:\.\d*)?|\.\d+)$")

_FORM = re.compile(r"^(?P<name>[A-Za-z][A-Za-z0-9_ \-]*?)\s*(?:\((?P<args>[^()]*)\))?\s*"
                   r"(?:@\s*(?P<k>[^\s@]+))?$")
_TREC = re.compile(r"^(?P<name>[A-Za-z][A-Za-z_]*?)[_.](?P<k>\d+(?:\.\d+)?)$")
_RANX_LEVEL = re.compile(r"^(?P<rest>.*?)-l(?P<rel>\d+)$")
_RANX_RBP = re.compile(r"^rbp\.(?P<p>\d+)$", re.IGNORECASE)


def _key(name: str) -> str:
    return re.sub(r"[_\- ]", "", name.lower())


def known_names() -> list[str]:
    out = []
    for fam, spec in FAMILIES.items():
        if spec.param == "recall":
            out.append(f"{fam}@L")
            continue
        out.append(fam if spec.cutoff == "none" else f"{fam}@k")
        if spec.cutoff == "optional":
            out.append(fam)
    return out + ["AP", "RR", "nDCG@k", "P@k", "R@k", "Rprec", "Bpref", "Judged@k", "Success@k",
                  "NumRet", "NumRelRet", "P_k", "P.k,k", "ndcg_cut_k", "ndcg_cut.k,k", "map_cut_k",
                  "recip_rank", "set_F.beta", "official", "all_trec"]


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


def _int(text: str, raw: str, what: str, low: int = 1) -> int:
    try:
        v = int(raw)
    except ValueError:
        raise _bad(text, f"{what} must be a positive integer, got {raw!r}") from None
    if v < low:
        raise _bad(text, f"{what} must be a positive integer (>= {low}), got {v}")
    return v


def _float(text: str, raw: str, what: str) -> float:
    try:
        return float(raw)
    except ValueError:
        raise _bad(text, f"{what} must be a number, got {raw!r}") from None


def parse_measure(text: str) -> Measure:
    """One name in any of the three syntaxes -> its canonical :class:`Measure`."""
    if isinstance(text, Measure):
        return text
    raw = str(text).strip()
    if not raw:
        raise ScorekitError("empty measure name")
    body, rel = raw, None
    m = _RANX_LEVEL.match(body)
    if m and "(" not in body:
        body, rel = m.group("rest"), _int(raw, m.group("rel"), "relevance level")
    params: dict[str, str] = {}
    m = _RANX_RBP.match(body)
    if m:
        name, k_raw, params = "rbp", None, {"p": f"0.{m.group('p')}"}
    else:
        m = _TREC.match(body)
        if m and _key(m.group("name")) in _TREC_CUT:
            name, k_raw = m.group("name"), m.group("k")
        else:
            m = _FORM.match(body)
            if not m:
                raise UnknownNameError("retrieval measure", raw, known_names())
            name, k_raw = m.group("name"), m.group("k")
            params = _args(raw, m.group("args"))
    key = _key(name)
    fam = _ALIASES.get(key)
    if fam is None:
        raise UnknownNameError("retrieval measure", raw, known_names())
    # ir_measures spellings that pick another family through a parameter
    if fam == "num_ret" and "rel" in params:
        fam = "num_rel_ret"
    if fam == "rbp" and "rel" not in params:
        fam = "rbp_graded"   # ranx's rbp.P and ir_measures' RBP without rel use the grades
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
    if rel is not None and spec.graded:
        raise _bad(raw, f"{fam} uses the grades themselves as gains and takes no relevance level")
    param = None
    if spec.param in ("p", "beta"):
        param = _float(raw, params.pop(spec.param), spec.param) if spec.param in params else spec.default
        if spec.param == "p" and not 0 < param < 1:
            raise _bad(raw, f"the persistence p must be between 0 and 1, got {param}")
        if spec.param == "beta" and param <= 0:
            raise _bad(raw, f"beta must be positive, got {param}")
    if params:
        raise _bad(raw, f"unsupported parameter {', '.join(sorted(params))!r} for {fam}")
    k = None
    if spec.param == "recall":
        if k_raw is None:
            raise _bad(raw, f"needs a recall level, e.g. {fam}@0.5")
        param = _float(raw, k_raw, "the recall level")
        if not 0 <= param <= 1:
            raise _bad(raw, f"the recall level must be between 0 and 1, got {param}")
    elif k_raw is None:
        if spec.cutoff == "required":
            raise ScorekitError(f"measure {raw!r} needs a cutoff, e.g. {fam}@10")
    elif spec.cutoff == "none":
        raise ScorekitError(f"measure {fam!r} takes no cutoff (got {raw!r})")
    else:
        try:
            k = int(k_raw)
        except ValueError:
            raise ScorekitError(f"cutoff in {raw!r} must be a positive integer, got {k_raw!r}") from None
        if k <= 0:
            raise ScorekitError(f"cutoff in {raw!r} must be a positive integer (k >= 1), got {k}")
    return Measure(fam, k, rel, param)


def _trec_name(name: str, value: str) -> str:
    """What trec_eval prints for ``-m name.value``: ``P_5``, ``iprec_at_recall_0.10``, ``set_F_0.5``."""
    key = _key(name)
    if key == "iprecatrecall":
        return f"{name}_{float(value):.2f}"
    if key in _TREC_CUT:
        try:
            return f"{name}_{int(value)}"
        except ValueError:
            raise _bad(f"{name}.{value}", f"the cut-off must be a positive integer, got {value!r}") from None
    return f"{name}_{value}"


def _trec_measure(name: str, value: str) -> tuple[str, Measure]:
    printed = _trec_name(name, value)
    key = _key(name)
    if key == "setf":
        return printed, parse_measure(f"SetF(beta={value})")
    if key in _TREC_CUT:
        return printed, parse_measure(printed)
    raise _bad(f"{name}.{value}", "trec_eval parameters (name.value) are read for the cut-off measures "
                                  "(P, recall, success, map_cut, ndcg_cut, iprec_at_recall) and set_F")


def _expand(parts: list[str]) -> list[tuple[str, Measure | None]]:
    """trec_eval's ``-m`` syntax -> one entry per measure: ``P.5,10`` (the comma list continues
    the name before it), bare cut-off families (``P``: trec_eval's default cut-offs) and the sets
    ``official``/``all_trec``. Any other name passes through (Measure None: parsed later)."""
    out: list[tuple[str, Measure | None]] = []
    last: str | None = None          # the trec_eval name a bare number continues
    for part in (p.strip() for p in parts):
        if _CONTINUE.match(part):
            if last is None:
                raise _bad(part, "a bare number continues a trec_eval parameter list (P.5,10); "
                                 "it needs a name before it")
            out.append(_trec_measure(last, part))
            continue
        last = None
        key = _key(part)
        if key in _SETS:
            out += _expand(_SETS[key])
            continue
        if key in _TREC_DEFAULTS and not _TREC.match(part):
            out += [_trec_measure(part, v) for v in _TREC_DEFAULTS[key]]
            continue
        m = _TREC_PARAMS.match(part)
        if m and (_key(m.group("name")) in _TREC_CUT or _key(m.group("name")) == "setf"):
            last = m.group("name")
            out.append(_trec_measure(last, m.group("params")))
            continue
        out.append((part, None))
    return out


def parse_measures(names: str | Iterable) -> list[tuple[str, Measure]]:
    """``"nDCG@10,P_10,recall(rel=2)@100"`` or a list -> ``[(name as written, Measure), ...]``
    (a name written twice counts once). trec_eval's ``-m`` forms (``P.5,10``, ``all_trec``) are
    keyed by the names trec_eval prints (``P_5``, ``P_10``)."""
    if isinstance(names, (str, Measure)):
        names = split_specs(names) if isinstance(names, str) else [names]
    items: list[tuple[str, Measure | None] | Measure] = []
    strings: list[str] = []
    for n in list(names) + [None]:
        if isinstance(n, str):
            strings.append(n)
            continue
        items += _expand(strings)
        strings = []
        if n is not None:
            items.append(n)
    out: list[tuple[str, Measure]] = []
    seen = set()
    for n in items:
        if isinstance(n, Measure):
            key, meas = n.name, n
        else:
            key, meas = n
            meas = meas if meas is not None else parse_measure(key)
        if key not in seen:
            seen.add(key)
            out.append((key, meas))
    if not out:
        raise ScorekitError("no measures given (e.g. ndcg@10,map@100,mrr)")
    return out


__all__ = ["parse_measure", "parse_measures", "known_names", "DEFAULT_MEASURES", "TREC_UNSUPPORTED"]
