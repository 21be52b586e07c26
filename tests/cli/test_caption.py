"""`scorekit caption` end to end: JSON output, report, per-item text, clear errors (exit 2)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "caption"


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "scorekit", "caption", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)


def test_korean_example_json_output(tmp_path):
    out = tmp_path / "res.json"
    r = run("-p", EXAMPLES / "predictions_ko.json", "-r", EXAMPLES / "references_ko.json", "--lang", "ko",
            "-m", "bleu,meteor,rouge_l,cider", "-o", out, "--format", "csv")
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    assert data["task"] == "caption" and data["signature"].startswith("task:caption|lang:ko|norm:nfc+invisible|tok:kiwi")
    assert set(data["metrics"]) == {"bleu_1", "bleu_2", "bleu_3", "bleu_4", "meteor", "rouge_l", "cider"}
    row = data["per_item"][0]
    assert row["id"] == "video_001" and row["prediction"].startswith("파란") and len(row["references"]) == 2
    rep = data["extra"]["report"]
    assert rep["baseline_meteor"] == 0.3052
    assert rep["meteor_improvement_pct"] == pytest.approx((data["metrics"]["meteor"] - 0.3052) / 0.3052 * 100)
    assert "meteor" in r.stdout


def test_english_jsonl_csv_and_empty_prediction(tmp_path):
    out = tmp_path / "res.json"
    r = run("-p", EXAMPLES / "predictions_en.jsonl", "-r", EXAMPLES / "references_en.csv", "--lang", "en",
            "-m", "bleu_4,cider,meteor_nltk", "--baseline-meteor", "0.33", "-o", out, "-q")
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    data = json.loads(out.read_text())
    assert data["inputs"]["n_empty_predictions"] == 1
    assert data["per_item"][3]["meteor_nltk"] == 0.0 and data["per_item"][3]["cider"] == 0.0
    assert data["extra"]["report"]["baseline_meteor"] == 0.33


@pytest.mark.parametrize("preds, refs, extra, pattern", [
    ({"a": "x", "b": "y"}, {"a": ["x"], "c": ["z"]}, ["--strict"], "no prediction: 'c'"),
    ({"a": 5}, {"a": ["x"]}, [], "id 'a': prediction must be a string, got int"),
    ({"a": "x"}, {"a": []}, [], "id 'a': empty reference list"),
    ({"a": "x"}, {"a": ["x"]}, ["-m", "blue"], "did you mean 'bleu'"),
])
def test_user_errors_exit_2_without_traceback(tmp_path, preds, refs, extra, pattern):
    p, r_ = tmp_path / "p.json", tmp_path / "r.json"
    p.write_text(json.dumps(preds))
    r_.write_text(json.dumps(refs))
    out = tmp_path / "out.json"
    r = run("-p", p, "-r", r_, "--lang", "en", "-o", out, *extra)
    assert r.returncode == 2
    assert pattern in r.stderr and "Traceback" not in r.stderr
    assert not out.exists()


def test_one_sided_ids_warn_by_default(tmp_path):
    p, r_ = tmp_path / "p.json", tmp_path / "r.json"
    p.write_text(json.dumps({"a": "a dog", "extra": "x"}))
    r_.write_text(json.dumps({"a": ["a dog"], "missing": ["a cat"]}))
    r = run("-p", p, "-r", r_, "--lang", "en", "-m", "bleu_1")
    assert r.returncode == 0
    assert "'missing'" in r.stderr and "'extra'" in r.stderr


def test_invalid_utf8_names_file_and_line(tmp_path):
    p, r_ = tmp_path / "p.jsonl", tmp_path / "r.json"
    p.write_bytes(b'{"id": "a", "prediction": "ok"}\n{"id": "b", "prediction": "\xc3("}\n')
    r_.write_text(json.dumps({"a": ["x"], "b": ["y"]}))
    r = run("-p", p, "-r", r_, "--lang", "en")
    assert r.returncode == 2 and "p.jsonl:2: invalid UTF-8" in r.stderr


def _ko(metrics="meteor,rouge_l,bleu_4", *extra):
    r = run("-p", EXAMPLES / "predictions_ko.json", "-r", EXAMPLES / "references_ko.json", "--lang", "ko",
            "-m", metrics, "-q", "-o", "-", *extra)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_korean_units_and_meteor_delta_in_the_name_grammar():
    """ko_units and delta reach the metrics they name (and only those), keyed as written, and the
    signature; the CLI equals the Python API."""
    from scorekit.generation import evaluate

    base = _ko()
    surface = _ko("meteor,rouge_l(ko_units=surface),bleu_4(ko_units=surface)")
    delta = _ko("meteor(delta=0.5),rouge_l,bleu_4")
    assert "|rouge_l:ko_units=content" in base["signature"]
    assert "|rouge_l(ko_units=surface):ko_units=surface" in surface["signature"]
    assert "delta=0.9" in base["signature"] and "|meteor(delta=0.5):" in delta["signature"]
    assert "delta=0.5" in delta["signature"]
    # surface units: ROUGE-L/BLEU change, METEOR does not; delta: METEOR changes, ROUGE-L/BLEU do not
    assert surface["metrics"]["rouge_l(ko_units=surface)"] != base["metrics"]["rouge_l"]
    assert surface["metrics"]["meteor"] == base["metrics"]["meteor"]
    assert delta["metrics"]["meteor(delta=0.5)"] != base["metrics"]["meteor"]
    assert delta["metrics"]["rouge_l"] == base["metrics"]["rouge_l"]
    from scorekit.io.captions import read_caption_set

    data = read_caption_set(EXAMPLES / "predictions_ko.json", EXAMPLES / "references_ko.json")
    api = evaluate(data.predictions, data.references, lang="ko",
                   metrics=["meteor(delta=0.5)", "rouge_l(ko_units=surface)"])
    assert api.metrics["meteor(delta=0.5)"] == pytest.approx(delta["metrics"]["meteor(delta=0.5)"], abs=1e-12)
    assert api.metrics["rouge_l(ko_units=surface)"] == pytest.approx(
        surface["metrics"]["rouge_l(ko_units=surface)"], abs=1e-12)


@pytest.mark.parametrize("args,needle", [
    (["--lang", "en", "-m", "rouge_l(ko_units=surface)"], "rouge_l(ko_units=...) applies to Korean captions only"),
    (["--lang", "en", "-m", "meteor(delta=0.5)"], "`meteor` is the Korean METEOR; on English captions use meteor15"),
    (["--lang", "ko", "-m", "bleu(ko_units=surface)", "--tokenizer", "whitespace"], "give one or the other"),
    (["--lang", "ko", "-m", "meteor(delta=2)"], "'delta' must be in [0, 1]"),
    (["--lang", "ko", "-m", "chrf(betta=3)"], "did you mean 'beta'"),
    (["--lang", "ko", "-m", "bertscore(allow_english_model=true)"],
     "allow_english_model is set for the whole run, not per metric: --allow-english-model"),
])
def test_korean_flags_misused(tmp_path, args, needle):
    out = tmp_path / "o.json"
    r = run("-p", EXAMPLES / "predictions_ko.json", "-r", EXAMPLES / "references_ko.json", *args, "-o", out)
    assert r.returncode == 2 and needle in r.stderr and "Traceback" not in r.stderr
    assert not out.exists()


# -- the yardstick follows the language; --recipe spec's guards (its numbers: tests/generation/test_spec_recipe.py)
def test_yardstick_follows_the_language(tmp_path):
    out = tmp_path / "en.json"
    r = run("-p", EXAMPLES / "predictions_en.jsonl", "-r", EXAMPLES / "references_en.csv", "--lang", "en",
            "-m", "meteor15,meteor_nltk,cider", "-o", out)
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    rep = data["extra"]["report"]
    assert rep["primary"] == "meteor15" and rep["baseline_meteor"] == 0.33 and rep["comparable"]
    assert data["extra"]["primary_metric"] == "meteor15"
    assert rep["meteor_improvement_pct"] == pytest.approx((data["metrics"]["meteor15"] - 0.33) / 0.33 * 100)
    assert rep["targets"][0]["metric"] == "meteor15" and rep["targets"][0]["target_1"] == pytest.approx(0.363)
    assert "Meteor 1.5" in rep["meteor_recipe"] and "English" in rep["baseline_recipe"]
    assert data["metrics"]["meteor_nltk"] != data["metrics"]["meteor15"]
    assert f"METEOR (meteor15) {data['metrics']['meteor15']:.4f} vs baseline 0.3300: " \
           f"{rep['meteor_improvement_pct']:+.1f}%" in r.stdout
    bad = run("-p", EXAMPLES / "predictions_en.jsonl", "-r", EXAMPLES / "references_en.csv", "--lang", "en",
              "-m", "meteor")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "meteor15" in bad.stderr and "meteor_nltk" in bad.stderr


def test_meteor_written_with_a_lexicon_is_the_headline(tmp_path):
    """#26: --lexicon is gone; meteor(lexicon=...) is keyed as written and is still the Korean
    headline: the same baseline comparison, section 7 row and console roles as plain meteor."""
    lex = tmp_path / "syn.tsv"
    lex.write_text("파도\t물결\n", encoding="utf-8")
    args = ["-p", EXAMPLES / "predictions_ko.json", "-r", EXAMPLES / "references_ko.json", "--lang", "ko"]
    plain = run(*args, "-m", "meteor,cider,bleu_4", "-o", tmp_path / "a.json")
    written = run(*args, "-m", "meteor(lexicon=syn.tsv),cider,bleu_4", "-o", tmp_path / "b.json", cwd=tmp_path)
    assert plain.returncode == 0 and written.returncode == 0, written.stderr
    a, b = (json.loads((tmp_path / n).read_text())["extra"] for n in ("a.json", "b.json"))
    key = "meteor(lexicon=syn.tsv)"
    assert b["primary_metric"] == key and b["report"]["primary"] == key
    assert b["report"]["targets"][0]["metric"] == key and b["report"]["targets"][0]["value"] is not None
    assert [r["metric"] for r in a["report"]["targets"][1:]] == [r["metric"] for r in b["report"]["targets"][1:]]
    assert f"METEOR ({key}) " in written.stdout
    for out, k in ((plain.stdout, "meteor"), (written.stdout, key)):
        assert any(f" {k} " in line and " primary " in line for line in out.splitlines()), out
    old = run(*args, "--lexicon", lex)
    assert old.returncode == 2 and f'--lexicon is now set in the metric names: -m "meteor(lexicon=' in old.stderr


def test_korean_default_recipe_names_the_mismatch(tmp_path):
    out = tmp_path / "ko.json"
    r = run("-p", EXAMPLES / "predictions_ko.json", "-r", EXAMPLES / "references_ko.json", "--lang", "ko",
            "-m", "meteor", "-o", out, "-q")
    assert r.returncode == 0, r.stderr
    rep = json.loads(out.read_text())["extra"]["report"]
    assert rep["primary"] == "meteor" and rep["baseline_meteor"] == 0.3052 and rep["recipe"] == "scorekit"
    assert not rep["comparable"] and "--recipe spec" in rep["note"] and "Kiwi" in rep["meteor_recipe"]


@pytest.mark.parametrize("extra, pattern", [
    (["--lang", "en"], "use it with --lang ko"),
    (["--lang", "ko", "-m", "meteor"], "--metrics does not apply to --recipe spec"),
    (["--lang", "ko", "--tokenizer", "kiwi"], "--tokenizer does not apply to --recipe spec"),
    (["--lang", "ko", "--engine", "ray"], "--engine does not apply to --recipe spec"),
])
def test_recipe_spec_refuses_options_that_change_it(tmp_path, extra, pattern):
    r = run("-p", EXAMPLES / "predictions_ko.json", "-r", EXAMPLES / "references_ko.json", "--recipe", "spec",
            *extra, "-o", tmp_path / "o.json")
    assert r.returncode == 2 and pattern in r.stderr and r.stderr.count("\n") == 1
    assert not (tmp_path / "o.json").exists()


@pytest.mark.parametrize("block", [
    "sys.modules['konlpy'] = None",    # konlpy not installed
    "import jpype; jpype.getDefaultJVMPath = lambda: (_ for _ in ()).throw("
    "jpype.JVMNotFoundException('No JVM shared library file (libjvm.so) found.'))",   # no Java
])
def test_recipe_spec_without_konlpy_or_java_says_how_to_install(tmp_path, block):
    if "jpype" in block:
        pytest.importorskip("jpype")
    code = f"import sys; {block}; from scorekit.cli import main; sys.exit(main())"
    r = subprocess.run([sys.executable, "-c", code, "caption", "-p", EXAMPLES / "predictions_ko.json",
                        "-r", EXAMPLES / "references_ko.json", "--lang", "ko", "--recipe", "spec",
                        "-o", tmp_path / "o.json"], capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "pip install 'scorekit[spec]'" in r.stderr
    assert "apt-get install default-jre-headless" in r.stderr and not (tmp_path / "o.json").exists()


def test_metrics_help_lists_what_metrics_compute():
    """--metrics help lists metric classes and the keys they compute; --recipe spec's declared
    keys (spec_rouge_l, spec_cider) are not -m choices."""
    r = subprocess.run([sys.executable, "-m", "scorekit", "caption", "--help"], capture_output=True, text=True)
    text = " ".join(r.stdout.split())
    assert "meteor_nltk" in text and "meteor15" in text and "bleu_4" in text
    assert "spec_cider" not in text.split("--baseline-meteor")[0] and "--recipe [scorekit|spec]" in text


def test_rouge_parameters_keyed_as_written_equal_the_references(tmp_path):
    """#26: ROUGE's declared parameters through -m, against rouge-score and pycocoevalcap with the
    same non-default values (several references: score_multi / pycocoevalcap's max over them)."""
    from pycocoevalcap.rouge.rouge import Rouge
    from rouge_score import rouge_scorer

    preds = {"a": "the dogs were running in parks", "b": "two cats sleeping on the red sofa"}
    refs = {"a": ["a dog runs in the park", "dogs run"], "b": ["a cat sleeps on a sofa"]}
    p, r_, out = tmp_path / "p.json", tmp_path / "r.json", tmp_path / "out.json"
    p.write_text(json.dumps(preds))
    r_.write_text(json.dumps(refs))
    r = run("-p", p, "-r", r_, "--lang", "en", "-m", "rouge_l(use_stemmer=true),rouge_l_coco(beta=2.5),rouge_l",
            "-o", out, "-q")
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    assert set(data["metrics"]) == {"rouge_l(use_stemmer=true)", "rouge_l_coco(beta=2.5)", "rouge_l"}
    sc = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    want = [sc.score_multi(refs[i], preds[i])["rougeL"].fmeasure for i in preds]
    assert [row["rouge_l(use_stemmer=true)"] for row in data["per_item"]] == pytest.approx(want, rel=1e-12)
    assert data["metrics"]["rouge_l(use_stemmer=true)"] == pytest.approx(sum(want) / 2, rel=1e-12)
    assert data["metrics"]["rouge_l"] < data["metrics"]["rouge_l(use_stemmer=true)"]   # stemming matched more
    coco = Rouge()
    coco.beta = 2.5
    # the words are PTB tokens already (lower case, no punctuation): pycocoevalcap's input as it is
    mean, _ = coco.compute_score({i: refs[i] for i in preds}, {i: [preds[i]] for i in preds})
    assert data["metrics"]["rouge_l_coco(beta=2.5)"] == pytest.approx(mean, rel=1e-12)
    assert "rouge_l(use_stemmer=true):stem=porter-nltk" in data["signature"]
    assert "rouge_l_coco(beta=2.5)" in data["signature"].split("|metrics:")[1].split("|")[0].split(",")


@pytest.mark.parametrize("spec, pattern", [
    ("rouge_l(use_stemmer=maybe)", "parameter 'use_stemmer' must be true or false, got 'maybe'"),
    ("rouge_l_coco(beta=-1)", "parameter 'beta' must be in [0, inf], got -1.0"),
    ("rouge_l(stemmer=true)", "did you mean 'use_stemmer'"),
])
def test_bad_rouge_parameter_is_one_line_exit_2(tmp_path, spec, pattern):
    p, r_, out = tmp_path / "p.json", tmp_path / "r.json", tmp_path / "out.json"
    p.write_text(json.dumps({"a": "a dog runs"}))
    r_.write_text(json.dumps({"a": ["dogs run"]}))
    r = run("-p", p, "-r", r_, "--lang", "en", "-m", spec, "-o", out)
    assert r.returncode == 2
    assert pattern in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not out.exists()
