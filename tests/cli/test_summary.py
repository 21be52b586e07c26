"""`scorekit summary` through the CLI."""

import json

from scorekit.cli import main

DEMO = "examples/summarization/summaries.jsonl"


def run(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_summary_scores_and_writes_json(tmp_path, capsys):
    out = tmp_path / "r.json"
    code, stdout, err = run(["summary", "-p", DEMO, "-r", DEMO, "-s", DEMO, "-m", "rouge,density,words", "-o", str(out)],
                            capsys)
    assert code == 0, err
    data = json.loads(out.read_text())
    assert {"rouge1", "rouge2", "density", "token_density", "words"} <= set(data["metrics"])
    assert "bertscore_f1" not in data["metrics"]
    assert data["per_item"][0]["id"] == "en01" and len(data["per_item"]) == 15
    assert data["signature"].startswith("task:summary|")
    ko = [r for r in data["per_item"] if r["id"].startswith("ko")]
    assert all(r["rouge1"] > 0 for r in ko)  # Korean via Kiwi


def test_txt_files_by_position(tmp_path, capsys):
    p = tmp_path / "p.txt"
    r = tmp_path / "r.txt"
    p.write_text("court opened investigation\n")
    r.write_text("the international court opened investigation\n")
    code, stdout, _ = run(["summary", "-p", str(p), "-r", str(r), "-m", "rouge", "--format", "csv"], capsys)
    assert code == 0
    rows = dict(line.split(",", 1) for line in stdout.strip().splitlines()[1:])
    assert float(rows["rouge1_r"]) == 0.6 and float(rows["rouge2_r"]) == 0.5


def test_count_mismatch_and_empty_reference(tmp_path, capsys):
    p = tmp_path / "p.txt"
    r = tmp_path / "r.txt"
    p.write_text("a\nb\n")
    r.write_text("a\n")
    code, _, err = run(["summary", "-p", str(p), "-r", str(r), "-m", "rouge"], capsys)
    assert code == 2 and "1 references but 2 predictions" in err
    r.write_text("a\n\n")
    code, _, err = run(["summary", "-p", str(p), "-r", str(r), "-m", "rouge"], capsys)
    assert code == 2 and f"{r}:2: empty reference" in err


def test_summary_chrf_from_the_registry(tmp_path, capsys):
    out = tmp_path / "r.json"
    code, _, err = run(["summary", "-p", DEMO, "-r", DEMO, "--metrics", "rouge,chrf,chrf_pp",
                        "-o", str(out)], capsys)
    assert code == 0, err
    data = json.loads(out.read_text())
    assert {"chrf", "chrf_pp"} <= set(data["metrics"]) and "|metrics:rouge,chrf,chrf_pp|" in data["signature"]
    assert 0 < data["metrics"]["chrf"] <= 1 and "chrf_pp" in data["per_item"][0]


def test_summary_misspelt_metric_is_one_line(capsys):
    code, _, err = run(["summary", "-p", DEMO, "-r", DEMO, "--metrics", "chrff"], capsys)
    assert code == 2 and "did you mean 'chrf'" in err and len(err.strip().splitlines()) == 1


def test_summary_rouge_use_stemmer_through_the_grammar_equals_rouge_score(tmp_path, capsys):
    """#26: `rouge(use_stemmer=true)` is reachable from the command line, keyed as written, equal to
    rouge-score's stemmed ROUGE-1/2, and pinned in the signature (a stemmed run is not `stem:no` alone)."""
    from rouge_score import rouge_scorer

    p, r, out = tmp_path / "p.txt", tmp_path / "r.txt", tmp_path / "r.json"
    preds, refs = ["the riders were riding horses"], ["the rider rides a horse"]
    p.write_text("\n".join(preds) + "\n")
    r.write_text("\n".join(refs) + "\n")
    code, _, err = run(["summary", "-p", str(p), "-r", str(r), "-m", "rouge(use_stemmer=true),rouge", "-o", str(out)],
                       capsys)
    assert code == 0, err
    data = json.loads(out.read_text())
    want = rouge_scorer.RougeScorer(["rouge1", "rouge2"], use_stemmer=True).score(refs[0], preds[0])
    plain = rouge_scorer.RougeScorer(["rouge1", "rouge2"]).score(refs[0], preds[0])
    assert abs(data["metrics"]["rouge1(use_stemmer=true)"] - want["rouge1"].fmeasure) < 1e-12
    assert abs(data["metrics"]["rouge2_r(use_stemmer=true)"] - want["rouge2"].recall) < 1e-12
    assert abs(data["metrics"]["rouge1"] - plain["rouge1"].fmeasure) < 1e-12
    assert "|rouge(use_stemmer=true):tok=rouge-score;ko=kiwi-" in data["signature"]
    assert ";stem=porter-nltk" in data["signature"].split("|rouge(use_stemmer=true):")[1].split("|")[0]
    code, _, err = run(["summary", "-p", str(p), "-r", str(r), "-m", "rouge(use_stemmer=maybe)"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "use_stemmer" in err


def test_allow_english_model_is_a_run_option_not_a_bertscore_parameter(tmp_path, capsys):
    """#26: `--allow-english-model` (API `allow_english_model=True`) is set for the whole run, as
    in caption, topics and sweep; `bertscore(allow_english_model=...)` is one line naming it, exit
    2, nothing written. The numbers are the scorer's with the flag (it changes none)."""
    import pytest

    pytest.importorskip("torch")
    from scorekit.neural.bertscore import BERTScorer

    ko = tmp_path / "ko.jsonl"
    rows = [json.loads(x) for x in open(DEMO, encoding="utf-8") if x.strip()]
    rows = [r for r in rows if r["id"].startswith("ko")]
    ko.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "r.json"
    base = ["summary", "-p", str(ko), "-r", str(ko), "--lang", "ko", "-o", str(out), "-q"]
    code, _, err = run(base + ["-m", "bertscore(allow_english_model=yes)"], capsys)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "allow_english_model is set for the whole run, not per metric: --allow-english-model" in err
    code, _, err = run(base + ["-m", "bertscore"], capsys)   # MiniLM cannot read Hangul: refused
    assert code == 2 and err.count("\n") == 1 and "--allow-english-model" in err
    assert '-m "bertscore(model=PATH)"' in err and not out.exists()
    code, _, err = run(base + ["-m", "bertscore,efficiency", "--allow-english-model"], capsys)
    assert code == 0, err
    data = json.loads(out.read_text(encoding="utf-8"))
    f1 = BERTScorer(allow_english_model=True).score([r["prediction"] for r in rows],
                                                    [r["reference"] for r in rows]).f1
    assert [r["bertscore_f1"] for r in data["per_item"]] == pytest.approx(list(f1), abs=1e-12)
    assert set(data["metrics"]) == {"bertscore_f1", "efficiency"}
    assert "allow" not in data["signature"]   # no number changes: nothing pinned
