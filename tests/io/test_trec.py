"""TREC readers: plain and gzip, irregular whitespace, and one exact error line per mistake."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from scorekit.errors import InputError
from scorekit.io.trec import read_qrels, read_run


def write(path, text: str, gz: bool = False):
    if gz:
        with gzip.open(path, "wt", encoding="utf-8") as fh:
            fh.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def as_dict(table, values):
    qids, docids = table.qids.to_pylist(), table.docids.to_pylist()
    return {(qids[q], docids[d]): v for q, d, v in zip(table.q, table.d, values)}


@pytest.mark.parametrize("gz", [False, True])
def test_reads_qrels_and_run(tmp_path, gz):
    q = read_qrels(write(tmp_path / ("q.txt.gz" if gz else "q.txt"), "q1 0 d1 1\nq1 0 d2 0\n질의 0 문서 2\n", gz))
    assert as_dict(q, q.rel) == {("q1", "d1"): 1, ("q1", "d2"): 0, ("질의", "문서"): 2}
    r = read_run(write(tmp_path / ("r.txt.gz" if gz else "r.txt"),
                       "q1 Q0 d1 1 0.5 sys\nq1 Q0 d2 2 -1e3 sys\n질의 Q0 문서 1 3 sys\n", gz))
    assert as_dict(r, r.score) == {("q1", "d1"): 0.5, ("q1", "d2"): -1000.0, ("질의", "문서"): 3.0}
    assert r.name == "sys"


def test_irregular_whitespace_is_normalised(tmp_path):
    text = "q1\tQ0  d1 1 0.5 s  \r\n\n  q1 Q0 d2 2 0.25 s\r\n"
    r = read_run(write(tmp_path / "r.txt", text))
    assert as_dict(r, r.score) == {("q1", "d1"): 0.5, ("q1", "d2"): 0.25}


def test_double_space_that_keeps_the_column_count_is_not_misread(tmp_path):
    # 6 fields when split on single spaces (one empty), but only 5 real columns: an error,
    # not a run whose docid is "" and whose score is the rank
    with pytest.raises(InputError, match="expected 6 columns .*found 5") as err:
        read_run(write(tmp_path / "r.txt", "q1 Q0 d0 1 0.9 s\nq1 Q0  d1 1 0.5\n"))
    assert err.value.line == 2


ERRORS = [
    ("run", "q1 Q0 d1 1 0.5 s\nq1 Q0 d2 2 0.4\n", 2, "expected 6 columns"),
    ("run", "q1 Q0 d1 1 0.5 s\n\nq1 Q0 d2 2 abc s\n", 3, "score must be a number, found 'abc'"),
    ("run", "q1 Q0 d1 1 0.5 s\nq1 Q0 d2 2 nan s\n", 2, "finite"),
    ("run", "q1 Q0 d1 1 0.5 s\nq1 Q0 d2 2 inf s\n", 2, "finite"),
    ("run", "q1 Q0 d1 1 0.5 s\nq2 Q0 d1 1 0.5 s\nq1 Q0 d1 3 0.2 s\n", 3, "duplicate document 'd1' for query 'q1'"),
    ("run", "q1 0 d1 1\n", 1, "is this a qrels file?"),
    ("qrels", "q1 0 d1 1\nq1 0 d2 x\n", 2, "relevance must be an integer, found 'x'"),
    ("qrels", "q1 0 d1 1\nq1 0 d2 1.5\n", 2, "relevance must be an integer"),
    ("qrels", "q1 0 d1 1\nq1 0 d1 2\n", 2, "duplicate document 'd1' for query 'q1'"),
    ("qrels", "q1 Q0 d1 1 0.5 s\n", 1, "is this a run file?"),
]


@pytest.mark.parametrize("kind,text,line,message", ERRORS)
def test_errors_name_file_and_line(tmp_path, kind, text, line, message):
    path = write(tmp_path / "in.txt", text)
    with pytest.raises(InputError) as err:
        (read_run if kind == "run" else read_qrels)(path)
    assert err.value.line == line
    assert message in str(err.value)
    assert str(err.value).startswith(f"{path}:{line}: ")


def test_invalid_utf8_names_the_line(tmp_path):
    path = tmp_path / "r.txt"
    path.write_bytes(b"q1 Q0 d1 1 0.5 s\nq1 Q0 d\xff 2 0.4 s\n")
    with pytest.raises(InputError, match="invalid UTF-8") as err:
        read_run(path)
    assert err.value.line == 2


@pytest.mark.parametrize("text", ["", "\n\n  \n"])
def test_empty_files(tmp_path, text):
    path = write(tmp_path / "r.txt", text)
    with pytest.raises(InputError, match="empty run file"):
        read_run(path)
    with pytest.raises(InputError, match="empty qrels file"):
        read_qrels(path)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="not found"):
        read_run(tmp_path / "nope.txt")


def test_large_file_keeps_order_and_values(tmp_path):
    # several pyarrow blocks' worth of rows, query by query
    n_q, n_d = 300, 400
    rng = np.random.default_rng(0)
    scores = np.round(rng.normal(size=(n_q, n_d)), 2)
    lines = [f"q{i} Q0 d{j} {j + 1} {float(scores[i, j])!r} t\n" for i in range(n_q) for j in range(n_d)]
    r = read_run(write(tmp_path / "big.txt", "".join(lines)))
    assert len(r) == n_q * n_d and r.n_queries == n_q
    got = as_dict(r, r.score)
    assert got[("q7", "d11")] == scores[7, 11] and got[("q299", "d399")] == scores[299, 399]


@pytest.mark.parametrize("layout", ["grouped", "ties", "shuffled", "equal-depth"])
def test_duplicate_in_long_rankings_names_the_later_line(tmp_path, layout):
    # long rankings take the per-query duplicate check; the error names the second occurrence
    # (equal-depth: every query 100 lines, checked as one sorted row per query)
    rows = [(q, f"d{j}", 1.0 if layout == "ties" else 1000.0 - j) for q in ("q1", "q2") for j in range(100)]
    if layout == "equal-depth":
        rows[150] = ("q2", "d7", 950.0)
    else:
        rows.insert(150, ("q2", "d7", 0.5))
    if layout == "shuffled":
        rng = np.random.default_rng(1)
        rows = [rows[i] for i in rng.permutation(len(rows))]
    lines = [f"{q} Q0 {d} 1 {s} t\n" for q, d, s in rows]
    path = write(tmp_path / "r.txt", "".join(lines))
    second = max(i for i, (q, d, _) in enumerate(rows, 1) if (q, d) == ("q2", "d7"))
    with pytest.raises(InputError, match="duplicate document 'd7' for query 'q2'") as err:
        read_run(path)
    assert err.value.line == second


@pytest.mark.parametrize("seed", range(6))
def test_duplicates_in_shuffled_runs_found_as_before(tmp_path, seed):
    # shuffled runs take the fingerprint check; any repeated (query, docid) must still be found,
    # and a run without one must pass (long rankings and many short ones)
    rng = np.random.default_rng(seed)
    n_q, per_q = (3, 150) if seed % 2 else (40, 5)
    rows = [(f"q{i}", f"msmarco_doc_{rng.integers(0, 99):02d}_{j}", float(rng.normal()))
            for i in range(n_q) for j in range(per_q)]
    dup = seed % 3 != 0
    if dup:
        k = int(rng.integers(0, len(rows)))
        rows.append((rows[k][0], rows[k][1], 0.25))
    rows = [rows[i] for i in rng.permutation(len(rows))]
    path = write(tmp_path / "r.txt", "".join(f"{q} Q0 {d} 1 {s!r} t\n" for q, d, s in rows))
    if not dup:
        assert len(read_run(path)) == len(rows)
        return
    seen, later = set(), set()
    for no, (q, d, _) in enumerate(rows, 1):
        if (q, d) in seen:
            later.add(no)
        seen.add((q, d))
    with pytest.raises(InputError, match="duplicate document") as err:
        read_run(path)
    assert err.value.line in later  # a line that repeats a pair seen before it


# trec_eval 10's input rules: "#" comment lines (qrels and runs), fields after the run name ignored
def test_comment_lines_are_skipped_and_line_numbers_hold(tmp_path):
    q = read_qrels(write(tmp_path / "q.txt", "# judged by 2 people\nq1 0 d1 1\n# a b c\nq1 0 d2 0\n"))
    assert as_dict(q, q.rel) == {("q1", "d1"): 1, ("q1", "d2"): 0}
    # a comment with exactly four words is not read as query "#"
    q = read_qrels(write(tmp_path / "q4.txt", "# a b 1\nq1 0 d1 1\n"))
    assert as_dict(q, q.rel) == {("q1", "d1"): 1}
    r = read_run(write(tmp_path / "r.txt", "# run made by bm25\n  # indented\nq1 Q0 d#1 1 0.5 bm25\n"))
    assert as_dict(r, r.score) == {("q1", "d#1"): 0.5} and r.name == "bm25"
    with pytest.raises(InputError) as err:
        read_qrels(write(tmp_path / "bad.txt", "# c\nq1 0 d1 1\n# c\nq1 0 d2 x\n"))
    assert err.value.line == 4 and "relevance must be an integer" in str(err.value)


def test_run_fields_after_the_tag_are_ignored(tmp_path):
    r = read_run(write(tmp_path / "r.txt", "q1 Q0 d1 1 0.5 sys extra 7\nq1 Q0 d2 2 0.25 sys\n"
                                           "질의 Q0 문서 1 3 sys 메모\n"))
    assert as_dict(r, r.score) == {("q1", "d1"): 0.5, ("q1", "d2"): 0.25, ("질의", "문서"): 3.0}
    assert r.name == "sys"
    with pytest.raises(InputError) as err:  # ... but a bad score before them is still one error line
        read_run(write(tmp_path / "bad.txt", "q1 Q0 d1 1 0.5 sys x\nq1 Q0 d2 2 abc sys x\n"))
    assert err.value.line == 2 and "score must be a number" in str(err.value)
    with pytest.raises(InputError, match="expected 4 columns"):  # qrels: trec_eval refuses extras
        read_qrels(write(tmp_path / "q.txt", "q1 0 d1 1 note\n"))


def _rerank_lines(rng, n_q=40, per_q=120, pool=150, dup=False):
    """A re-ranking run: every query ranks most of one small pool (scores with ties, queries
    not in lexicographic order, Korean ids among them)."""
    pool_ids = [f"d{i}" if i % 7 else f"문서{i}" for i in range(pool)]
    rows = []
    for i in range(n_q):
        for j, k in enumerate(rng.choice(pool, per_q, replace=False)):
            rows.append((f"q{i}", pool_ids[k], float(np.round(rng.normal(), 1))))
    if dup:
        rows.insert(len(rows) // 2, (rows[len(rows) // 2 - 5][0], rows[len(rows) // 2 - 5][1], 9.5))
    return rows


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("shuffled", [False, True])
def test_rerank_runs_read_as_codes_rank_and_score_as_strings(tmp_path, gz, shuffled, monkeypatch):
    # a run whose documents repeat across queries is read as dictionary codes; the ranking,
    # the judged rows and every measure equal the string path's
    import scorekit.io.trec as trec
    from scorekit.retrieval import evaluate

    rng = np.random.default_rng(3)
    rows = _rerank_lines(rng)
    if shuffled:
        rows = [rows[i] for i in rng.permutation(len(rows))]
    else:  # each query best first, ties in file order (not trec_eval's)
        rows.sort(key=lambda r: (int(r[0][1:]), -r[2]))
    path = write(tmp_path / ("r.txt.gz" if gz else "r.txt"), "".join(f"{q} Q0 {d} 1 {s!r} t\n" for q, d, s in rows), gz)
    qrels = write(tmp_path / "q.txt", "".join(f"q{i} 0 {d} {g}\n" for i in range(0, 45, 2)
                                              for d, g in (("d3", 1), ("문서7", 2), ("d140", 0), ("d999", 1))))
    coded = read_run(path)
    assert coded.coded and coded._docs is None
    monkeypatch.setattr(trec, "_few_documents", lambda p: False)
    plain = read_run(path)
    assert not plain.coded
    (o1, s1), (o2, s2) = coded.ranked(), plain.ranked()
    assert np.array_equal(s1, s2)
    assert np.array_equal(np.arange(len(rows)) if o1 is None else o1, np.arange(len(rows)) if o2 is None else o2)
    assert coded.docs.to_pylist() == plain.docs.to_pylist() == [d for _, d, _ in rows]
    measures = "ndcg@10,map@100,mrr,P@5,recall@100,bpref"
    with pytest.warns(UserWarning, match="queries not in the qrels"):   # odd queries: run only
        a, b = evaluate(str(qrels), coded, measures), evaluate(str(qrels), plain, measures)
    assert a.metrics == b.metrics and a.per_item == b.per_item


def test_duplicate_in_a_rerank_run_names_the_later_line(tmp_path):
    rng = np.random.default_rng(4)
    rows = _rerank_lines(rng, dup=True)
    path = write(tmp_path / "r.txt", "".join(f"{q} Q0 {d} 1 {s!r} t\n" for q, d, s in rows))
    seen, later = set(), None
    for no, (q, d, _) in enumerate(rows, 1):
        if (q, d) in seen and later is None:
            later = (no, q, d)
        seen.add((q, d))
    with pytest.raises(InputError, match=f"duplicate document '{later[2]}' for query '{later[1]}'") as err:
        read_run(path)
    assert err.value.line == later[0]
