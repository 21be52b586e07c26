"""Issue #25: ids are normalised exactly like text (NFC, invisible characters removed) in every
reader, a NUL byte in an id is refused, and two ids of one file that become equal are duplicates.

Korean ids are written in NFD (decomposed jamo, as macOS file names and some tools give them)
against NFC twins, and ``img_1`` gets a zero-width space appended.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from scorekit.errors import InputError
from scorekit.io.ids import clean_id, clean_id_column
from scorekit.text.normalize import nfc

KO = "영상_1"
KO_NFD = unicodedata.normalize("NFD", KO)
ZW = "img_1\u200b"


def test_nfd_really_differs():
    assert KO_NFD != KO and len(KO_NFD) > len(KO) and nfc(KO_NFD) == KO


# ------------------------------------------------------------------------------ the helpers
@pytest.mark.parametrize("raw,clean", [(KO_NFD, KO), (KO, KO), (ZW, "img_1"), ("\ufeffq1", "q1"), (7, "7"),
                                       ("plain", "plain")])
def test_clean_id(raw, clean):
    assert clean_id(raw) == clean == nfc(str(raw))


def test_clean_id_refuses_nul():
    with pytest.raises(InputError, match=r"f\.json:3: id 'a\\x00b' holds a NUL byte"):
        clean_id("a\x00b", "f.json", 3)


def test_ascii_column_comes_back_untouched():
    col = pa.chunked_array([pa.array(["q1", "q2"]), pa.array(["q3"])])
    assert clean_id_column(col, "query id") is col
    single = pa.array(["d1", "d2"])
    assert clean_id_column(single, "document id") is single
    sliced = pa.array(["영상", "d1", "d2"]).slice(1)   # the buffer holds non-ASCII bytes before the slice
    assert clean_id_column(sliced, "document id") is sliced


def test_column_is_normalised_like_text():
    values = [KO_NFD, "d1", ZW, KO, "문서\u00ad2"]
    out = clean_id_column(pa.chunked_array([pa.array(values[:2]), pa.array(values[2:])]), "document id")
    assert out.to_pylist() == [nfc(v) for v in values] == [KO, "d1", "img_1", KO, "문서2"]


def test_dictionary_column_becomes_strings_when_it_changes():
    """The TREC reader's query ids are dictionary-encoded: an NFD twin would otherwise be a
    second dictionary entry holding the same id."""
    col = pa.chunked_array([pa.array([KO, KO_NFD, KO, "q2"]).dictionary_encode()])
    out = clean_id_column(col, "query id")
    assert out.type == pa.string() and out.to_pylist() == [KO, KO, KO, "q2"]
    plain = pa.chunked_array([pa.array(["q1", "q1", "q2"]).dictionary_encode()])
    assert clean_id_column(plain, "query id") is plain


def test_nul_in_a_column_names_the_line():
    col = pa.chunked_array([pa.array(["q1", "q2"]), pa.array(["q3", "q\x004"])])
    with pytest.raises(InputError, match=r"run\.txt:40: query id 'q\\x004' holds a NUL byte"):
        clean_id_column(col, "query id", "run.txt", lambda row: row * 10 + 10)
    dic = pa.chunked_array([pa.array(["a", "b\x00", "a"]).dictionary_encode()])
    with pytest.raises(InputError, match=r"r:2: document id"):
        clean_id_column(dic, "document id", "r", lambda row: row + 1)


# ------------------------------------------------------------------------------ captions
def _caption_files(tmp: Path, fmt: str, ids: list[str], texts: list[str], role: str) -> Path:
    key = "prediction" if role == "p" else "references"
    p = tmp / f"{role}.{fmt}"
    if fmt == "json":
        p.write_text(json.dumps(dict(zip(ids, texts if role == "p" else [[t] for t in texts])), ensure_ascii=False),
                     encoding="utf-8")
    elif fmt == "jsonl":
        p.write_text("".join(json.dumps({"id": i, key: t}, ensure_ascii=False) + "\n" for i, t in zip(ids, texts)),
                     encoding="utf-8")
    elif fmt == "csv":
        p.write_text(f"id,{key}\n" + "".join(f"{i},{t}\n" for i, t in zip(ids, texts)), encoding="utf-8")
    else:
        pq.write_table(pa.table({"id": ids, key: texts}), p)
    return p


@pytest.mark.parametrize("fmt", ["json", "jsonl", "csv", "parquet"])
def test_caption_ids_match_across_normal_forms(tmp_path, fmt):
    from scorekit.io.captions import read_caption_set

    refs = _caption_files(tmp_path, fmt, [KO, "img_1"], ["바다에 파도가 친다", "a dog runs"], "r")
    preds = _caption_files(tmp_path, fmt, [KO_NFD, ZW], ["파도가 친다", "a dog"], "p")
    cs = read_caption_set(preds, refs, strict=True)
    assert cs.ids == [KO, "img_1"] and cs.predictions == ["파도가 친다", "a dog"]


@pytest.mark.parametrize("fmt", ["json", "jsonl", "parquet"])
def test_caption_ids_equal_once_normalised_are_duplicates(tmp_path, fmt):
    from scorekit.io.captions import read_predictions

    preds = _caption_files(tmp_path, fmt, [KO, KO_NFD], ["하나", "둘"], "p")
    with pytest.raises(InputError, match="duplicate prediction id '영상_1'.*equal once normalised") as err:
        read_predictions(preds)
    assert str(preds) in str(err.value) and "\n" not in str(err.value)


def test_caption_shards_with_twin_ids_name_both(tmp_path):
    from scorekit.io.captions import read_predictions

    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "a.jsonl").write_text(json.dumps({"id": "img_1", "prediction": "x"}) + "\n")
    (tmp_path / "s" / "b.jsonl").write_text(json.dumps({"id": ZW, "prediction": "y"}) + "\n")
    with pytest.raises(InputError, match=r"b\.jsonl:1: duplicate prediction id 'img_1' \(also in .*a\.jsonl\)"):
        read_predictions(tmp_path / "s")


def test_caption_csv_field_over_128_kib_is_accepted(tmp_path):
    from scorekit.io.captions import read_references

    long = "파도 " * 100_000            # 700 KB of legitimate text in one field
    p = tmp_path / "refs.csv"
    p.write_text(f'id,reference\nv1,"{long}"\nv2,short\n', encoding="utf-8")
    refs = read_references(p)
    assert refs["v1"] == [long] and refs["v2"] == ["short"]


# ------------------------------------------------------------------------------ retrieval
def _trec(tmp: Path, name: str, lines: list[str]) -> Path:
    p = tmp / name
    p.write_text("".join(ln + "\n" for ln in lines), encoding="utf-8")
    return p


def test_trec_nfd_qid_and_zero_width_docid_are_matched(tmp_path):
    from scorekit.retrieval import evaluate

    qrels = _trec(tmp_path, "qrels.txt", [f"{KO} 0 d1 1", f"{KO} 0 d2 0", "q2 0 img_1 1"])
    run = _trec(tmp_path, "run.txt", [f"{KO_NFD} Q0 d1 1 2.0 t", f"{KO_NFD} Q0 d2 2 1.0 t", f"q2 Q0 {ZW} 1 1.0 t"])
    res = evaluate(qrels, run, ["P@1", "recall@10"])
    assert res.metrics == {"P@1": 1.0, "recall@10": 1.0}


def test_retrieval_ids_in_json_parquet_and_dataframe(tmp_path):
    import pandas as pd

    from scorekit.retrieval.inputs import as_qrels, as_run

    qj = tmp_path / "q.json"
    qj.write_text(json.dumps({KO_NFD: {ZW: 1}}, ensure_ascii=False), encoding="utf-8")
    rp = tmp_path / "r.parquet"
    pq.write_table(pa.table({"q_id": [KO_NFD], "doc_id": [ZW], "score": [1.0]}), rp)
    df = pd.DataFrame({"qid": [KO_NFD], "docid": [ZW], "score": [0.5]})
    for got in (as_qrels(qj), as_run(rp), as_run(df), as_run({KO_NFD: {ZW: 1.0}})):
        qids = got.qids.to_pylist()
        docs = got.docids.to_pylist()
        assert qids == [KO] and docs == ["img_1"]


def test_json_query_ids_equal_once_normalised_are_duplicates(tmp_path):
    from scorekit.retrieval.inputs import as_run

    p = tmp_path / "run.json"
    p.write_text(json.dumps({KO: {"d1": 1.0}, KO_NFD: {"d2": 1.0}}, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(InputError, match="duplicate query id '영상_1'"):
        as_run(p)


def test_trec_document_twins_are_duplicates(tmp_path):
    from scorekit.io.trec import read_run

    run = _trec(tmp_path, "run.txt", ["q1 Q0 img_1 1 2.0 t", f"q1 Q0 {ZW} 2 1.0 t"])
    with pytest.raises(InputError, match=r"run\.txt:2: duplicate document 'img_1' for query 'q1'"):
        read_run(run)


@pytest.mark.parametrize("line,what", [("q\x001 Q0 d1 1 1.0 t", "query id"), ("q1 Q0 d\x001 1 1.0 t", "document id")])
def test_nul_inside_a_trec_id_is_refused(tmp_path, line, what):
    from scorekit.io.trec import read_run

    run = _trec(tmp_path, "run.txt", ["q0 Q0 d0 1 1.0 t", line])
    with pytest.raises(InputError, match=rf"run\.txt:2: {what} .* holds a NUL byte"):
        read_run(run)


def test_ascii_trec_reading_pays_almost_nothing_for_ids(tmp_path):
    """The ASCII check looks at the raw bytes once: far below the parse itself."""
    import time

    from scorekit.io.trec import RUN_COLUMNS, _DICT, _read_csv

    p = tmp_path / "run.txt"
    p.write_text("".join(f"q{i // 1000} Q0 doc{i} {i % 1000 + 1} {1.0 / (i + 1)!r} t\n" for i in range(200_000)))
    table = _read_csv(str(p), RUN_COLUMNS, {"qid": _DICT, "docid": pa.string(), "score": pa.float64()})
    docs, qids = table.column("docid"), table.column("qid")
    t0 = time.perf_counter()
    for _ in range(5):
        assert clean_id_column(docs, "document id") is docs
        assert clean_id_column(qids, "query id") is qids
    check = (time.perf_counter() - t0) / 5
    t0 = time.perf_counter()
    _read_csv(str(p), RUN_COLUMNS, {"qid": _DICT, "docid": pa.string(), "score": pa.float64()})
    parse = time.perf_counter() - t0
    assert check < parse / 5, (check, parse)


# ------------------------------------------------------------------------------ summaries, topics, ABSA
def test_summary_ids_align_across_normal_forms(tmp_path):
    from scorekit.summarization.data import align, read_texts

    preds = tmp_path / "p.jsonl"
    refs = tmp_path / "r.jsonl"
    preds.write_text(json.dumps({"id": KO_NFD, "prediction": "요약"}, ensure_ascii=False) + "\n"
                     + json.dumps({"id": ZW, "prediction": "s"}) + "\n", encoding="utf-8")
    refs.write_text(json.dumps({"id": "img_1", "reference": "r"}) + "\n"
                    + json.dumps({"id": KO, "reference": "참조"}, ensure_ascii=False) + "\n", encoding="utf-8")
    ids, out = align({"prediction": (str(preds), read_texts(preds, "prediction")),
                      "reference": (str(refs), read_texts(refs, "reference"))})
    assert ids == [KO, "img_1"] and out["reference"] == ["참조", "r"]


def test_summary_pairs_with_twin_ids_are_duplicates(tmp_path):
    from scorekit.summarization.data import read_pairs

    p = tmp_path / "d.jsonl"
    p.write_text("".join(json.dumps({"id": i, "document": "문서", "reference": "참조"}, ensure_ascii=False) + "\n"
                         for i in (KO, KO_NFD)), encoding="utf-8")
    with pytest.raises(InputError, match=r"d\.jsonl:2: duplicate id '영상_1'"):
        read_pairs(p)


def test_summary_json_duplicate_keys_and_surrogates_are_refused(tmp_path):
    from scorekit.summarization.data import read_pairs

    p = tmp_path / "d.jsonl"
    p.write_text('{"id": "a", "document": "x", "document": "y", "reference": "r"}\n')
    with pytest.raises(InputError, match=r"d\.jsonl:1: duplicate key 'document'"):
        read_pairs(p)
    p.write_text('{"id": "a", "document": "x", "reference": "r"}\n{"id": "b", "document": "\\ud800", "reference": "r"}\n')
    with pytest.raises(InputError, match=r"d\.jsonl:2: lone surrogate \\ud800 in the string at \['document'\]"):
        read_pairs(p)


def test_topic_names_in_ratings_match_across_normal_forms(tmp_path):
    from scorekit.io.topics import parse_ratings, parse_topics

    topics = parse_topics(json.dumps({"바다": ["파도", "해변"], "산": ["숲", "구름"]}, ensure_ascii=False))
    nfd = unicodedata.normalize("NFD", "바다")
    ratings = parse_ratings(f"topic,rater_a\n{nfd},3\n산\u200b,2\n", topics)
    assert ratings.topic_index.tolist() == [0, 1]
    with pytest.raises(InputError, match="duplicate topic name '바다'"):
        parse_topics(json.dumps({"바다": ["a", "b"], nfd: ["c", "d"]}, ensure_ascii=False), "t.json")


def test_absa_ids_are_normalised_and_a_nul_id_is_a_skipped_row(tmp_path):
    from scorekit.io.absa_jsonl import read_outputs

    row = {"meta": {"text_id": unicodedata.normalize("NFD", "리뷰1") + "\u200b", "input_text": "좋아요"},
           "final_result": {"final_tuples": []}}
    bad = {"meta": {"text_id": "r\x002"}, "final_result": {"final_tuples": []}}
    p = tmp_path / "outputs.jsonl"
    p.write_text(json.dumps(row, ensure_ascii=False) + "\n" + json.dumps(bad) + "\n"
                 + '{"meta": {"text_id": "r3", "input_text": "\\udc00"}}\n', encoding="utf-8")
    res = read_outputs(p)
    assert [r["meta"]["text_id"] for r in res.rows] == ["리뷰1"]
    assert [(s.line, s.field) for s in res.skipped] == [(2, "meta.text_id"), (3, None)]
    assert "lone surrogate" in res.skipped[1].reason


@pytest.mark.parametrize("span", [[2, 0], {"start": 3, "end": 1}, [-1, 2]])
def test_absa_reversed_or_negative_span_is_a_bad_row(tmp_path, span):
    from scorekit.io.absa_jsonl import read_outputs

    p = tmp_path / "outputs.jsonl"
    p.write_text(json.dumps({"meta": {"text_id": "r1"}, "final_result": {"final_tuples": [
        {"aspect_term": {"term": "배송", "span": span}, "polarity": "positive"}]}}, ensure_ascii=False) + "\n",
        encoding="utf-8")
    res = read_outputs(p)
    assert res.rows == [] and res.skipped[0].field == "final_result.final_tuples.0.aspect_term.span"
    assert "span" in res.skipped[0].reason and "Value error" not in res.skipped[0].reason


# ------------------------------------------------------------------------------ JSON lone surrogates
@pytest.mark.parametrize("text,line,escape", [
    ('{"a": "ok",\n "b": "x \\ud800 y"}', 2, "\\ud800"),
    ('{"a": "\\udc00"}', 1, "\\udc00"),
    ('[\n"\\ud83d\\ude00",\n"\\uD83D"\n]', 3, "\\uD83D"),
    ('{"\\ud800": 1}', 1, "\\ud800"),
])
def test_lone_surrogate_is_an_error_naming_the_line(text, line, escape):
    from scorekit.io.jsonfile import parse_json

    with pytest.raises(InputError, match=rf"^f\.json:{line}: lone surrogate ") as err:
        parse_json(text, "f.json")
    assert escape in str(err.value)


def test_surrogate_pairs_and_escaped_backslashes_are_text():
    from scorekit.io.jsonfile import parse_json

    assert parse_json('{"e": "\\ud83d\\ude00", "b": "\\\\ud800"}') == {"e": "😀", "b": "\\ud800"}


def test_korean_id_column_changes_only_what_normalising_changes():
    """Only the ids that change go through Python: NFC Korean ids are found unchanged by Arrow."""
    col = pa.array([f"문서{i}" for i in range(20_000)])
    assert clean_id_column(col, "document id") is col
    mixed = pa.array([f"문서{i}" if i % 7 else unicodedata.normalize("NFD", f"문서{i}") for i in range(20_000)])
    out = clean_id_column(mixed, "document id")
    assert out.to_pylist() == [f"문서{i}" for i in range(20_000)]


@pytest.mark.parametrize("ch", ["\uac00", "\ud7a3", "\ud7a4", "\ud7b0", "\ud7ff", "\u1100", "\u11a8", "\u3131",
                                "\u200b", "\u00ad", "\ufeff", "\u0301", "é", "\U0001f600"])
def test_byte_level_fast_path_agrees_with_nfc(ch):
    """The column check decides from UTF-8 bytes that ids of ASCII and Hangul syllables need
    nothing; everything around that range (jamo, a syllable followed by a final jamo, combining
    marks, invisible characters) must still come out exactly as the text path's nfc."""
    values = [f"x{ch}y", f"가{ch}", f"{ch}", "문서1"]
    assert clean_id_column(pa.array(values), "document id").to_pylist() == [nfc(v) for v in values]
