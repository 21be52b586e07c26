"""Fuzzing every reader (issues #14, #25): random bytes, truncations, byte flips, wrong JSON types,
huge lines, and hostile pieces spliced into a valid file (NUL bytes, lone surrogate escapes, zero-
width spaces, NFD Korean, a quoted field over the csv module's 128 KiB), through the CLI
in-process (or the reader API where the command would load a model).

Whatever the input: exit 0 with a complete output, or exit 2 with ONE line on stderr and no
output file — never a traceback (any other exception escapes ``main`` and fails the test).
"""

from __future__ import annotations

import gzip
import json
import tempfile
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekit.cli import main
from scorekit.errors import ScorekitError

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
QRELS = EX / "retrieval" / "qrels.txt"
RUN1 = EX / "retrieval" / "run_v1.txt"
FUZZ = settings(max_examples=15, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large])

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12)


def damaged(valid: bytes) -> st.SearchStrategy[bytes]:
    """Inputs derived from a valid file, and unrelated ones."""
    n = len(valid)
    truncations = st.integers(0, n).map(lambda k: valid[:k])
    flips = st.lists(st.tuples(st.integers(0, max(n - 1, 0)), st.integers(0, 255)), min_size=1, max_size=6).map(
        lambda fl: bytes(_flip(valid, fl)))
    huge = st.integers(1, 3).map(lambda k: valid + b"x" * (k * 400_000) + b"\n")
    json_types = JSON_VALUES.map(lambda v: json.dumps(v).encode())
    json_lines = st.lists(JSON_VALUES, min_size=1, max_size=4).map(
        lambda vs: b"\n".join(json.dumps(v).encode() for v in vs) + b"\n")
    inserts = st.tuples(st.integers(0, n), st.sampled_from(HOSTILE)).map(lambda a: valid[:a[0]] + a[1] + valid[a[0]:])
    return st.one_of(st.binary(max_size=300), truncations, flips, huge, json_types, json_lines, inserts)


# spliced into valid files: each must end as exit 0 or one line, exit 2 (issue #25)
HOSTILE = [b"\x00", b"\\ud800", b"\\udc00", b"\\ud83d\\ude00", "\u200b".encode(), "\ufeff".encode(),
           unicodedata.normalize("NFD", "영상").encode(), b'"' + b"x" * 200_000 + b'"', b"\\u0000"]


def _flip(data: bytes, flips) -> bytearray:
    out = bytearray(data)
    for i, b in flips:
        if out:
            out[i % len(out)] = b
    return out


def maybe_gzip(data: st.SearchStrategy[bytes]) -> st.SearchStrategy[tuple[bytes, bool]]:
    """(content, as .gz): plain, gzip of it, or a truncated gzip of it."""
    def pack(args):
        raw, mode, cut = args
        if mode == 0:
            return raw, False
        blob = gzip.compress(raw)
        return (blob if mode == 1 else blob[: max(1, int(len(blob) * cut))]), True
    return st.tuples(data, st.integers(0, 2), st.floats(0.0, 0.99)).map(pack)


def check_cli(args: list[str], out: Path, capsys) -> None:
    out.unlink(missing_ok=True)   # the folder is shared by a test's examples
    code = main([str(a) for a in args])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if code == 0:
        json.loads(out.read_text(encoding="utf-8"))   # complete and valid
        out.unlink()
    else:
        assert code == 2, err
        lines = [ln for ln in err.splitlines() if ln.strip() and "warning:" not in ln and "note:" not in ln]
        assert len(lines) == 1, err
        assert not out.exists(), "a failed run left an output file"
        leftovers = [p.name for p in out.parent.iterdir() if p.name.startswith(".")]
        assert not leftovers, leftovers


def _file(tmp: Path, name: str, content: bytes, gz: bool) -> Path:
    p = tmp / (name + (".gz" if gz else ""))
    p.write_bytes(content)
    return p


@pytest.fixture
def workdir():
    with tempfile.TemporaryDirectory() as d:
        yield Path(d)


@FUZZ
@given(data=maybe_gzip(damaged(QRELS.read_bytes())), which=st.sampled_from(["qrels", "run"]))
def test_fuzz_trec(workdir, capsys, data, which):
    content, gz = data
    f = _file(workdir, f"{which}.txt", content, gz)
    out = workdir / "o.json"
    qrels, run = (f, RUN1) if which == "qrels" else (QRELS, f)
    check_cli(["retrieval", "--qrels", qrels, "--run", run, "-o", out, "-q"], out, capsys)


@FUZZ
@given(data=maybe_gzip(damaged(json.dumps({"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}).encode())),
       which=st.sampled_from(["qrels", "run"]))
def test_fuzz_retrieval_json(workdir, capsys, data, which):
    content, gz = data
    f = _file(workdir, f"{which}.json", content, gz)
    out = workdir / "o.json"
    other = workdir / "other.json"
    other.write_text(json.dumps({"q1": {"d1": 1.0, "d3": 0.5}, "q2": {"d3": 2.0}}))
    qrels, run = (f, other) if which == "qrels" else (other, f)
    check_cli(["retrieval", "--qrels", qrels, "--run", run, "-o", out, "-q"], out, capsys)


CAPTION_PREDS = EX / "caption" / "predictions_en.jsonl"
CAPTION_REFS = EX / "caption" / "references_en.csv"


@FUZZ
@given(data=maybe_gzip(damaged(CAPTION_PREDS.read_bytes())),
       kind=st.sampled_from([("predictions", ".jsonl"), ("predictions", ".json"), ("references", ".csv"),
                             ("references", ".json")]))
def test_fuzz_captions(workdir, capsys, data, kind):
    content, gz = data
    role, ext = kind
    f = _file(workdir, role + ext, content, gz)
    out = workdir / "o.json"
    preds, refs = (f, CAPTION_REFS) if role == "predictions" else (CAPTION_PREDS, f)
    check_cli(["caption", "-p", preds, "-r", refs, "--lang", "en", "-m", "bleu_4", "--tokenizer", "whitespace",
               "-o", out, "-q"], out, capsys)


SUMMARIES = EX / "summarization" / "summaries.jsonl"


@FUZZ
@given(data=maybe_gzip(damaged(SUMMARIES.read_bytes())), ext=st.sampled_from([".jsonl", ".json", ".csv", ".txt"]))
def test_fuzz_summary_records(workdir, capsys, data, ext):
    content, gz = data
    f = _file(workdir, "preds" + ext, content, gz)
    out = workdir / "o.json"
    check_cli(["summary", "-p", f, "-r", f, "-m", "rouge,words", "-o", out, "-q"], out, capsys)


ABSA = EX / "absa" / "results" / "cr_demo__seed42_proposed" / "outputs.jsonl"


@FUZZ
@given(data=maybe_gzip(damaged(ABSA.read_bytes()[:4000])))
def test_fuzz_absa_outputs(workdir, capsys, data):
    content, gz = data
    f = _file(workdir, "outputs.jsonl", content, gz)
    out = workdir / "sc.jsonl"
    out.unlink(missing_ok=True)
    code = main(["absa", "scorecards", str(f), "--out", str(out), "-q"])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if code == 0:
        for line in out.read_text(encoding="utf-8").split("\n")[:-1]:   # not splitlines(): U+0085 is text
            json.loads(line)
        out.unlink()
    else:
        assert code == 2 and not out.exists()
        assert len([ln for ln in err.splitlines() if "error:" in ln]) == 1, err


TOPICS = EX / "topics" / "topics_en.json"


@FUZZ
@given(data=maybe_gzip(damaged(TOPICS.read_bytes())),
       which=st.sampled_from(["topics", "ratings", "corpus"]))
def test_fuzz_topics_readers(workdir, data, which):
    """The topics command loads an embedding model; its readers are fuzzed through the API the
    command calls (a ScorekitError is what the CLI turns into one line and exit 2)."""
    from scorekit.io.topics import read_corpus, read_ratings, read_topics

    content, gz = data
    ext = {"topics": ".json", "ratings": ".csv", "corpus": ".txt"}[which]
    f = _file(workdir, which + ext, content, gz)
    try:
        if which == "topics":
            read_topics(f)
        elif which == "ratings":
            read_ratings(f, read_topics(TOPICS))
        else:
            read_corpus(f)
    except ScorekitError as exc:
        assert "\n" not in str(exc).strip()


@FUZZ
@given(data=maybe_gzip(damaged(json.dumps({"task": "retrieval", "metrics": {"m": 0.5},
                                           "signature": "task:retrieval"}).encode())))
def test_fuzz_result_json_for_report(workdir, capsys, data):
    content, gz = data
    f = _file(workdir, "res.json", content, gz)
    out = workdir / "r.html"
    out.unlink(missing_ok=True)
    code = main(["report", str(f), "--out", str(out), "-q"])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if code == 0:
        assert out.read_text(encoding="utf-8").rstrip().endswith("</html>")
        out.unlink()
    else:
        assert code == 2 and not out.exists()
        assert len([ln for ln in err.splitlines() if ln.strip()]) == 1, err


# Every hostile piece, at the start of the first id, mid-file and before the last newline of each
# reader's valid input: exit 0 with a complete output, or exit 2 with one line (issue #25).
def _reader_cases(tmp: Path):
    caption_refs = EX / "caption" / "references_en.csv"
    return {
        "trec-qrels": (QRELS, ".txt", lambda f, o: ["retrieval", "--qrels", f, "--run", RUN1, "-o", o, "-q"]),
        "trec-run": (RUN1, ".txt", lambda f, o: ["retrieval", "--qrels", QRELS, "--run", f, "-o", o, "-q"]),
        "json-run": (None, ".json", lambda f, o: ["retrieval", "--qrels", QRELS, "--run", f, "-o", o, "-q"]),
        "caption-jsonl": (CAPTION_PREDS, ".jsonl", lambda f, o: ["caption", "-p", f, "-r", caption_refs, "--lang",
                                                                 "en", "-m", "bleu_4", "--tokenizer", "whitespace",
                                                                 "-o", o, "-q"]),
        "caption-csv": (caption_refs, ".csv", lambda f, o: ["caption", "-p", CAPTION_PREDS, "-r", f, "--lang", "en",
                                                            "-m", "bleu_4", "--tokenizer", "whitespace", "-o", o,
                                                            "-q"]),
        "summary-jsonl": (SUMMARIES, ".jsonl", lambda f, o: ["summary", "-p", f, "-r", f, "-m", "rouge",
                                                             "-o", o, "-q"]),
    }


@pytest.mark.parametrize("reader", ["trec-qrels", "trec-run", "json-run", "caption-jsonl", "caption-csv",
                                    "summary-jsonl"])
@pytest.mark.parametrize("piece", HOSTILE, ids=[repr(p[:12]) for p in HOSTILE])
def test_hostile_pieces_in_every_reader(workdir, capsys, reader, piece):
    source, ext, args = _reader_cases(workdir)[reader]
    valid = (source.read_bytes() if source is not None
             else json.dumps({"q1": {"doc1": 1.0, "doc2": 0.5}, "q2": {"doc3": 2.0}}).encode())
    first_id = valid.find(b'"') + 1 if valid.startswith((b"{", b"[")) else 0
    for at in sorted({first_id, len(valid) // 2, len(valid.rstrip(b"\n"))}):
        f = workdir / f"in{ext}"
        f.write_bytes(valid[:at] + piece + valid[at:])
        out = workdir / "o.json"
        check_cli(args(f, out), out, capsys)
