"""trec_eval 10's own test suite (``make quicktest`` in github.com/usnistgov/trec_eval, commit
f4253652): the same qrels and runs, the same ``-m`` flags, and every line of its expected output
``out.*`` for a measure scorekit computes must come out of ``scorekit retrieval ... --per-query -``
character for character (trec_eval's three-column layout, 4 decimals).

The data in ``data/trec_eval/`` are trec_eval's test files (NIST licence, LICENSE.md there);
``qrels.comment.test`` and ``results.comment.test`` are gzipped to keep the checkout small.
They exercise trec_eval 10's input rules: ``#`` comment lines in qrels
(``qrels.test.with-comments``), document ids containing ``#`` (``*.comment.test``) and fields
after the run name (``results.trunc``).

One measure differs by version: trec_eval 10 changed ``iprec_at_recall``'s cut-off from
``int(L·R + 0.9)`` to ``lround(L·R)``; scorekit computes trec_eval 9's (pytrec_eval's, its oracle in
test_measures_oracle.py). Its lines are compared where the two roundings give the same cut-off,
and must differ nowhere else than where they do not.
"""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import pytest

from scorekit.cli import main
from scorekit.retrieval.names import TREC_UNSUPPORTED

DATA = Path(__file__).resolve().parent / "data" / "trec_eval"
# trec_eval's lines that scorekit does not produce: its -m set members it lacks, and the
# meas_params measures it has no spelling for (Rprec_mult, utility, 11pt_avg, ndcg with a gain map,
# the fractional cut-off 23.4, relstring)
_SKIP = set(TREC_UNSUPPORTED) | {"relstring"}


def _parse(text: str) -> dict[tuple[str, str], str]:
    out = {}
    for line in text.splitlines():
        name, qid, value = line.split("\t")
        out[(name.strip(), qid)] = value
    return out


def _ours(args: list[str], capsys) -> tuple[str, dict[tuple[str, str], str]]:
    code = main(["retrieval", *args, "--per-query", "-"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, _parse(out)


def _family(name: str) -> str:
    return name.rsplit("_", 1)[0] if name[-1].isdigit() and "_" in name else name


def _v9_v10_agree(qrels: Path, level: float, qid: str, rel_level: int) -> bool:
    """Do trec_eval 9 (int(L·R + 0.9)) and 10 (lround(L·R)) pick the same relevant document?"""
    n_rels: dict[str, int] = {}
    raw = gzip.decompress(qrels.read_bytes()) if qrels.suffix == ".gz" else qrels.read_bytes()
    for line in raw.decode().splitlines():
        if line.strip() and not line.startswith("#"):
            q, _, _, g = line.split()
            n_rels[q] = n_rels.get(q, 0) + (int(g) >= rel_level)
    if qid == "all":
        return all(_v9_v10_agree(qrels, level, k, rel_level) for k in n_rels)
    n_rel = n_rels[qid]
    x = level * n_rel
    return int(x + 0.9) == int(math.floor(x + 0.5))


CASES = [  # (trec_eval's flags as scorekit takes them, qrels, run, expected output)
    (["-m", "official"], "qrels.test", "results.test", "out.test"),
    (["-m", "official"], "qrels.test.with-comments", "results.test", "out.test"),
    (["-m", "official"], "qrels.comment.test.gz", "results.comment.test.gz", "out.comment.test"),
    (["-m", "all_trec"], "qrels.test", "results.test", "out.test.a"),
    (["-m", "all_trec"], "qrels.test", "results.test", "out.test.aq"),
    (["-m", "all_trec"], "qrels.test", "results.trunc", "out.test.aqc"),
    (["-m", "all_trec", "--rel-threshold", "2"], "qrels.rel_level", "results.test", "out.test.aql"),
    # trec_eval -q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 ... -msuccess.2,5,20
    (["-m", "iprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000", "-m", "ndcg_cut.10,20",
      "-m", "success.2,5,20"], "qrels.test", "results.test", "out.test.meas_params"),
]


@pytest.mark.parametrize("flags,qrels,run,expected", CASES, ids=[c[3] + ":" + c[1] for c in CASES])
def test_trec_eval_expected_output(flags, qrels, run, expected, capsys):
    text, ours = _ours(["--qrels", str(DATA / qrels), "--run", str(DATA / run), *flags], capsys)
    want = _parse((DATA / expected).read_text())
    per_query = any(qid != "all" for _, qid in want)
    if not per_query:  # trec_eval without -q prints the "all" lines alone
        ours = {k: v for k, v in ours.items() if k[1] == "all"}
    rel_level = int(flags[flags.index("--rel-threshold") + 1]) if "--rel-threshold" in flags else 1
    compared = differ = 0
    for (name, qid), value in want.items():
        if _family(name) in _SKIP or "=" in name or name == "ndcg_cut_23":
            continue  # not computed, ndcg with a gain map, the cut-off written 23.4
        assert (name, qid) in ours, f"{expected}: scorekit printed no {name} for {qid}"
        if name.startswith("iprec_at_recall_"):
            if not _v9_v10_agree(DATA / qrels, float(name.rsplit("_", 1)[1]), qid, rel_level):
                differ += ours[(name, qid)] != value
                continue
        assert ours[(name, qid)] == value, f"{expected}: {name} {qid}: scorekit {ours[(name, qid)]}, trec_eval {value}"
        compared += 1
    # every line scorekit printed is one trec_eval printed too (same names, same queries)
    assert set(ours) <= set(want), sorted(set(ours) - set(want))[:5]
    assert compared >= len(want) // 2
    # the layout itself: name padded to 22 columns, tab, query, tab, value
    wanted_lines = {ln for ln in (DATA / expected).read_text().splitlines()}
    assert any(ln in wanted_lines for ln in text.splitlines())


def test_suite_covers_every_trec_eval_name_scorekit_gives():
    """Every measure of all_trec that scorekit computes appears in trec_eval's out.test.a."""
    from scorekit.retrieval.names import parse_measures

    want = {name for name, _ in _parse((DATA / "out.test.a").read_text())}
    ours = [k for k, _ in parse_measures("all_trec")]
    assert set(ours) <= want
    missing = {_family(n) for n in want - set(ours)}
    assert missing <= _SKIP, missing - _SKIP
