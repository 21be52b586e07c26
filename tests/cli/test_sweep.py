"""`scorekit sweep` through the CLI: table, JSON extra["sweep"], plots, and one-line errors."""

import json
import subprocess
import sys

import pytest

from scorekit.cli import main

DATA = "examples/summarization/news_en.jsonl"
NO_MODEL = ["-m", "rouge,density,words"]   # what --no-bertscore was: ROUGE, Density, words


def run(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_sweep_lead_random_json_and_table(tmp_path, capsys):
    out = tmp_path / "s.json"
    table = tmp_path / "t.csv"
    code, stdout, err = run(["sweep", "--data", DATA, "--n", "3,9,15", "--summarizer", "lead,random",
                             *NO_MODEL, "--bootstrap", "100", "-o", str(out), "--table", str(table),
                             "--plot", str(tmp_path)], capsys)
    assert code == 0, err
    assert "recommended n:" in stdout and "signature: " in stdout
    data = json.loads(out.read_text())
    assert data["task"] == "sweep" and data["extra"]["sweep"]["n"] == [3, 9, 15]
    assert set(data["extra"]["sweep"]["series"]) == {"lead", "random"}
    assert data["extra"]["recommendation"]["summarizer"] == "lead"
    assert table.read_text().splitlines()[0].startswith("summarizer,n,rouge1,rouge1 low")
    assert (tmp_path / "sweep_rouge1.png").exists()


def test_short_documents_are_reported(tmp_path, capsys):
    f = tmp_path / "d.jsonl"
    f.write_text(json.dumps({"document": "Just four words here.", "reference": "four words"}) + "\n"
                 + json.dumps({"document": " ".join(["word"] * 30), "reference": "word"}) + "\n")
    code, stdout, err = run(["sweep", "--data", str(f), "--n", "2,5", "--summarizer", "lead",
                             *NO_MODEL, "-q"], capsys)
    assert code == 0
    assert "1 of 2 documents have fewer than 5 words" in err


@pytest.mark.parametrize("args, message", [
    (["--n", "0,3"], "--n: summary length n must be positive, got 0"),
    (["--n", "3,x"], "--n: expected comma-separated integers"),
    (["--summarizer", "lead,textrnk"], "did you mean 'textrank'"),
    (["--band", "0.5"], "--band"),
])
def test_bad_arguments_exit_2_with_one_line(args, message, capsys):
    code, stdout, err = run(["sweep", "--data", DATA, *NO_MODEL, *args], capsys)
    assert code == 2
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_empty_reference_names_line_and_no_output_written(tmp_path, capsys):
    f = tmp_path / "d.jsonl"
    f.write_text(json.dumps({"id": "a", "document": "Some text here.", "reference": "ok"}) + "\n"
                 + json.dumps({"id": "b", "document": "More text.", "reference": ""}) + "\n")
    out = tmp_path / "o.json"
    code, _, err = run(["sweep", "--data", str(f), *NO_MODEL, "-o", str(out)], capsys)
    assert code == 2 and f"{f}:2: empty reference (id b)" in err
    assert not out.exists()


def test_missing_dataset_is_a_clear_error(tmp_path, capsys):
    code, _, err = run(["sweep", "--dataset", "xsum", *NO_MODEL], capsys)
    assert code == 2 and "XSUM is not available offline" in err


@pytest.mark.slow
def test_textrank_with_real_encoder_subprocess(tmp_path):
    out = tmp_path / "s.json"
    proc = subprocess.run([sys.executable, "-m", "scorekit", "sweep", "--data", "examples/summarization/news_ko.jsonl",
                           "--n", "5,9", "--summarizer", "textrank", *NO_MODEL, "-q", "-o", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert "encoder:all-MiniLM-L6-v2" in data["signature"]
    assert 0 < data["extra"]["sweep"]["series"]["textrank"]["rouge1"]["mean"][1] < 1


def _system_file(tmp_path, ids, name="bart.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps({"id": i, "summary": f"summary {i} of the article about the city"}) + "\n"
                            for i in ids))
    return path


def test_external_system_joins_the_sweep(tmp_path, capsys):
    ids = [f"en{k:02d}" for k in range(1, 31)]
    system = _system_file(tmp_path, ids)
    out, table = tmp_path / "s.json", tmp_path / "t.csv"
    code, stdout, err = run(["sweep", "--data", DATA, "--limit", "4", "--n", "2,5", "--summarizer", "lead",
                             "--system", f"bart={system}", *NO_MODEL, "--bootstrap", "50",
                             "-o", str(out), "--table", str(table)], capsys)
    assert code == 0, err
    data = json.loads(out.read_text())
    assert list(data["extra"]["sweep"]["series"]) == ["lead", "bart", "bart (full)"]
    assert data["extra"]["sweep"]["full_length"] == {"bart (full)": 8.0}
    assert "|systems:bart@" in data["signature"]
    assert "bart (full): the whole summaries, 8.0 words on average" in stdout
    rows = table.read_text().splitlines()
    assert rows[-1].startswith("bart (full),full,") and rows[-2].startswith("bart,5,")


@pytest.mark.parametrize("ids, message", [
    (["en01", "en02"], "--system bart: no summary for document id 'en03' (2 of 4 missing)"),
    ([f"en{k:02d}" for k in range(1, 31)] + ["xx"], "--system bart: id 'xx' is no document of the data"),
])
def test_external_system_ids_must_match_the_documents(tmp_path, capsys, ids, message):
    system = _system_file(tmp_path, ids)
    out = tmp_path / "s.json"
    code, _, err = run(["sweep", "--data", DATA, "--limit", "4", "--summarizer", "lead", *NO_MODEL,
                        "--system", f"bart={system}", "-o", str(out)], capsys)
    assert code == 2 and message in err and str(system) in err
    assert len(err.strip().splitlines()) == 1 and not out.exists()


@pytest.mark.parametrize("value, message", [
    ("bart", "--system: expected NAME=FILE, got 'bart'"),
    ("lead=x.jsonl", "the name 'lead' is already used"),
])
def test_bad_system_option(value, message, capsys):
    code, _, err = run(["sweep", "--data", DATA, "--summarizer", "lead", *NO_MODEL, "--system", value], capsys)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_summarizer_grammar_errors_on_the_cli(capsys):
    code, _, err = run(["sweep", "--data", DATA, *NO_MODEL, "--summarizer", "lead,textrank(encodr=m)"], capsys)
    assert code == 2 and "unknown parameter 'encodr'" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("metrics, message", [
    ("rouge,chrf", "unknown summary metric 'chrf'"),
    ("density,words", "the sweep needs rouge or bertscore"),
    ("rouge,rouge(use_stemmer=true)", "metric 'rouge1' asked twice"),
    ("rouge,bertscore(num_layers=2),efficiency(num_layers=3)", "give them the same parameters"),
    ("rouge,bertscore(device=cpu)", "device is set for the whole batch (--device)"),
    ("rouge,bertscore(num_layers=0)", "num_layers"),
    ("rouge(", "unbalanced '('"),
])
def test_metric_grammar_errors_on_the_cli(metrics, message, tmp_path, capsys):
    out = tmp_path / "s.json"
    code, _, err = run(["sweep", "--data", DATA, "--limit", "3", "--n", "3", "--summarizer", "lead",
                        "-m", metrics, "-o", str(out)], capsys)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1 and not out.exists()


def test_metrics_pick_the_columns(tmp_path, capsys):
    """-m rouge1: only that key is swept (no density, no words); rouge(use_stemmer=true) stems and
    the signature says so."""
    out, stemmed = tmp_path / "s.json", tmp_path / "t.json"
    args = ["sweep", "--data", DATA, "--limit", "5", "--n", "3,7", "--summarizer", "lead", "--bootstrap", "20",
            "-q"]
    assert run(args + ["-m", "rouge1", "-o", str(out)], capsys)[0] == 0
    assert run(args + ["-m", "rouge(use_stemmer=true)", "-o", str(stemmed)], capsys)[0] == 0
    plain, stem = json.loads(out.read_text()), json.loads(stemmed.read_text())
    assert list(plain["extra"]["sweep"]["series"]["lead"]) == ["rouge1"]
    assert list(stem["extra"]["sweep"]["series"]["lead"]) == ["rouge1", "rouge1_r", "rouge2", "rouge2_r"]
    assert "|stem:no|" in plain["signature"] and "|stem:yes|" in stem["signature"]
    assert "|metrics:rouge|rouge:tok=rouge-score;ko=kiwi-" in plain["signature"]


def test_bertscore_parameters_in_the_name_grammar(tmp_path, capsys):
    """bertscore(num_layers=3): the layer reaches the model and the signature; efficiency, written
    bare, is that BERTScore's F1 per word (lead-3: three words per summary)."""
    pytest.importorskip("torch")
    out = tmp_path / "s.json"
    code, _, err = run(["sweep", "--data", DATA, "--limit", "4", "--n", "3", "--summarizer", "lead",
                        "--bootstrap", "20", "-m", "rouge,bertscore(num_layers=3),efficiency", "-q",
                        "-o", str(out)], capsys)
    assert code == 0, err
    data = json.loads(out.read_text())
    assert "/L3/" in data["signature"]
    series = data["extra"]["sweep"]["series"]["lead"]
    assert list(series) == ["rouge1", "rouge1_r", "rouge2", "rouge2_r", "bertscore_f1", "efficiency"]
    f1 = [row["lead/bertscore_f1@3"] for row in data["per_item"]]
    assert series["efficiency"]["mean"][0] == pytest.approx(sum(x / 3 for x in f1) / 4, abs=1e-12)


def test_default_bertscore_is_skipped_on_korean_with_an_english_model(tmp_path, capsys):
    """The default selection leaves BERTScore out, visibly, when its model cannot read Hangul
    (the warning names the -m spelling); --allow-english-model scores it anyway."""
    pytest.importorskip("torch")
    out = tmp_path / "s.json"
    args = ["sweep", "--data", "examples/summarization/news_ko.jsonl", "--limit", "3", "--n", "3",
            "--summarizer", "lead", "--bootstrap", "20", "-q", "-o", str(out)]
    code, _, err = run(args, capsys)
    assert code == 0, err
    assert "skipped BERTScore" in err and "-m 'bertscore(model=DIR)'" in err
    assert "bertscore_f1" not in json.loads(out.read_text())["extra"]["sweep"]["series"]["lead"]
    code, _, err = run(args + ["--allow-english-model"], capsys)
    assert code == 0 and "skipped" not in err, err
    series = json.loads(out.read_text())["extra"]["sweep"]["series"]["lead"]
    assert {"bertscore_f1", "efficiency"} <= set(series)
