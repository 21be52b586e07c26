"""trec_eval 10's own test suite (``make quicktest`` in github.com/usnistgov/trec_eval, commit
f4253652): the same qrels and runs, the same ``-m`` flags, and every line of its expected output
``out.*`` for a measure scorekit computes must come out of ``scorekit retrieval ... --per-query -``
character for character (trec_eval's three-column layout, 4 decimals).

The data in ``data/trec_eval/`` are trec_eval's test files (NIST licence, LICENSE.md there);
``qrels.comment.test`` and ``results.comment.test`` are gzipped to keep the checkout small.
They exercise trec_eval 10's input rules: ``#`` comment lines in qrels
(``qrels.test.with-comments``), document ids containing ``#`` (``*.comment.test``) and fields
after the run name (``results.trunc``).

Every measure is compared on every line, ``iprec_at_recall`` and ``11pt_avg`` included (scorekit
takes trec_eval 10's cut-off ``lround(L·R)`` for trec_eval's names; ``iprec_v9`` / ``IPrec`` keep
trec_eval 9's, which pytrec_eval computes), and ``relstring`` (the first grades as text; ``-m
relstring.20`` in ``out.test.aql``). The lines scorekit does not print: in ``out.test.meas_params``, the measures given lists of
coefficients or gains (``utility.2,-1,0,0``, ``11pt_avg..25,.5,.75``, ``ndcg.1=3,...``) and the
fractional cut-off ``ndcg_cut.23.4``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scorekit.cli import main

DATA = Path(__file__).resolve().parent / "data" / "trec_eval"


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


def wanted_lines_of(expected: str) -> list[str]:
    return (DATA / expected).read_text().splitlines()


CASES = [  # (trec_eval's flags as scorekit takes them, qrels, run, expected output)
    (["-m", "official"], "qrels.test", "results.test", "out.test"),
    (["-m", "official"], "qrels.test.with-comments", "results.test", "out.test"),
    (["-m", "official"], "qrels.comment.test.gz", "results.comment.test.gz", "out.comment.test"),
    (["-m", "all_trec"], "qrels.test", "results.test", "out.test.a"),
    (["-m", "all_trec"], "qrels.test", "results.test", "out.test.aq"),
    (["-m", "all_trec"], "qrels.test", "results.trunc", "out.test.aqc"),
    # trec_eval -m all_trec -mrelstring.20 -q -l2
    (["-m", "all_trec", "-m", "relstring.20", "--rel-threshold", "2"], "qrels.rel_level", "results.test",
     "out.test.aql"),
    # trec_eval -q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 -m Rprec_mult.5.0,0.2,0.35
    #   ... -mndcg_cut.10,20,23.4 -msuccess.2,5,20
    (["-m", "iprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
      "-m", "Rprec_mult.5.0,0.2,0.35", "-m", "ndcg_cut.10,20", "-m", "success.2,5,20"],
     "qrels.test", "results.test", "out.test.meas_params"),
]


@pytest.mark.parametrize("flags,qrels,run,expected", CASES, ids=[c[3] + ":" + c[1] for c in CASES])
def test_trec_eval_expected_output(flags, qrels, run, expected, capsys):
    text, ours = _ours(["--qrels", str(DATA / qrels), "--run", str(DATA / run), *flags], capsys)
    want = _parse((DATA / expected).read_text())
    per_query = any(qid != "all" for _, qid in want)
    if not per_query:  # trec_eval without -q prints the "all" lines alone
        ours = {k: v for k, v in ours.items() if k[1] == "all"}
    skipped = 0
    for (name, qid), value in want.items():
        if "=" in name or "," in name or name == "ndcg_cut_23":
            skipped += 1
            continue  # measures given coefficient or gain lists; the cut-off written 23.4
        assert (name, qid) in ours, f"{expected}: scorekit printed no {name} for {qid}"
        assert ours[(name, qid)] == value, f"{expected}: {name} {qid}: scorekit {ours[(name, qid)]}, trec_eval {value}"
    # every line scorekit printed is one trec_eval printed too (same names, same queries)
    assert set(ours) <= set(want), sorted(set(ours) - set(want))[:5]
    assert skipped <= 4 * len({q for _, q in want})   # at most four names per query left out
    if "all_trec" in flags and per_query:   # every relstring line compared, and in trec_eval's place
        rel = [ln for ln in text.splitlines() if ln.startswith("relstring")]
        assert rel and rel == [ln for ln in wanted_lines_of(expected) if ln.startswith("relstring")]
        assert text.splitlines() == wanted_lines_of(expected)
    # the layout itself: name padded to 22 columns, tab, query, tab, value
    wanted_lines = set(wanted_lines_of(expected))
    assert any(ln in wanted_lines for ln in text.splitlines())


def test_all_trec_is_trec_eval_10s_set_in_its_order():
    """all_trec parses into exactly the measures of trec_eval 10's out.test.a, in its order
    (runid is an output line; relstring, printed per query only, sits where out.test.aq's
    per-query lines put it; trec_items keeps both, parse_measures leaves them out)."""
    from scorekit.retrieval.names import RELSTRING, asks_runid, parse_measures, trec_items

    want = [name for name, _ in _parse((DATA / "out.test.a").read_text())]
    assert want[0] == "runid" and asks_runid("all_trec") and asks_runid(["official"])
    assert not asks_runid("map,P.5")
    assert RELSTRING not in want   # without -q trec_eval prints no relstring line
    per_q = [name for name, qid in _parse((DATA / "out.test.aq").read_text()) if qid == "301"]
    want.insert(want.index(per_q[per_q.index(RELSTRING) - 1]) + 1, RELSTRING)
    assert [k for k, _ in trec_items("all_trec")] == want
    assert [k for k, _ in parse_measures("all_trec")] == [n for n in want[1:] if n != RELSTRING]


def test_runid_line_names_the_run(capsys):
    text, ours = _ours(["--qrels", str(DATA / "qrels.test"), "--run", str(DATA / "results.test"),
                        "-m", "runid,map", "--name", "mine"], capsys)
    assert text.splitlines()[-2] == "runid                 \tall\tmine"
    assert ("runid", "301") not in ours
