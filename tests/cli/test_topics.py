"""`scorekit topics` end to end: JSON output, tables, and one-line errors with exit 2."""

import json

import pytest

from scorekit.cli import main

TOPICS = {"tech": ["computer", "software", "programming", "code"],
          "cars": ["car", "engine", "vehicle", "road"],
          "경제": ["경제", "시장", "주식", "금리"]}
CORPUS = ("the computer runs software and programming code\n"
          "a car engine drives the vehicle on the road\n"
          "경제 성장과 주식 시장, 금리 인상\n"
          "software code for the car engine\n"
          "시장 경제와 금리\n")


@pytest.fixture
def files(tmp_path):
    t = tmp_path / "topics.json"
    t.write_text(json.dumps(TOPICS, ensure_ascii=False), encoding="utf-8")
    c = tmp_path / "corpus.txt"
    c.write_text(CORPUS, encoding="utf-8")
    r = tmp_path / "ratings.csv"
    r.write_text("topic,human,llm\ntech,4,5\ncars,3,3\n경제,2,3\n", encoding="utf-8")
    return t, c, r, tmp_path


@pytest.mark.slow
def test_full_run_writes_json(files, capsys):
    t, c, r, tmp = files
    out = tmp / "out.json"
    code = main(["topics", "--topics", str(t), "--corpus", str(c), "--ratings", str(r), "--grid",
                 "-m", "sc,sd,cd,semdiv,overall(sis=0.5),coherence,topic_diversity", "-o", str(out), "--format", "markdown", "--bootstrap", "200",
                 "--allow-english-model"])   # the mixed set has a Korean topic; MiniLM sees jamo
    assert code == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert set(data["metrics"]) == {"sc", "sd_avg", "vd", "cd", "semdiv", "overall(sis=0.5)", "npmi", "c_v",
                                    "u_mass", "topic_diversity"}
    m = data["metrics"]
    assert "|overall(sis=0.5):model=all-MiniLM-L6-v2/pool=mean_tokens/trunc=256/dtype=fp32|" in data["signature"]
    assert m["overall(sis=0.5)"] == pytest.approx(0.4 * m["sc"] + 0.4 * m["sd_avg"] + 0.2 * m["semdiv"] + 0.2 * 0.5)
    assert [row["id"] for row in data["per_item"]] == ["tech", "cars", "경제"]
    assert all("npmi" in row and "rating" in row for row in data["per_item"])
    assert len(data["extra"]["pairs"]) == 3
    meta = data["extra"]["meta"]
    assert {c["method"] for c in meta["correlations"]} == {"pearson", "spearman", "kendall"}
    assert "ICC(2,1)" in meta["icc"]
    assert [g["value"] for g in meta["gamma_grid"]] == [0.5, 0.6, 0.7, 0.8, 0.9]
    assert sum(g["selected"] for g in meta["threshold_grid"]) == 1
    assert data["signature"].startswith("task:topics|norm:nfc+invisible|corpus_tok:auto|windows:c_v=110,npmi=10|"
                                        "metrics:sc,sd,cd,semdiv,overall(sis=0.5),coherence,topic_diversity|"
                                        "sc:model=all-MiniLM-L6-v2/")
    printed = capsys.readouterr().out
    assert "gamma_direct grid search" in printed and "| sc |" in printed


@pytest.mark.slow
def test_without_sis_says_so(files, capsys):
    t, *_ = files
    assert main(["topics", "--topics", str(t)]) == 2          # Korean keywords, English-only model
    assert main(["topics", "--topics", str(t), "--allow-english-model"]) == 0
    out = capsys.readouterr().out
    assert "SIS is not defined by the spec and was not given (overall(sis=X))" in out


@pytest.mark.parametrize("content,msg", [
    ("[]", "topics.json:1: the topic list is empty"),
    ('[["solo"]]', "topics.json:1: topic 't1': has 1 keyword(s)"),
    ('{"a": ["x", "y"],\n "b": ["x", "x"]}', "topics.json:2: topic 'b': duplicate keyword(s) 'x'"),
    ('[["x", " "]]', "cannot be embedded"),
    ("[[", "topics.json:1: invalid JSON"),
])
def test_bad_topics_exit_2_with_one_line(tmp_path, capsys, content, msg):
    t = tmp_path / "topics.json"
    t.write_text(content, encoding="utf-8")
    out = tmp_path / "out.json"
    code = main(["topics", "--topics", str(t), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert msg in err and "Traceback" not in err and err.count("\n") == 1
    assert not out.exists()


def test_bad_ratings_and_options(files, capsys):
    t, c, r, tmp = files
    r.write_text("topic,h\ntech,4\nplanes,2\n", encoding="utf-8")
    assert main(["topics", "--topics", str(t), "--ratings", str(r)]) == 2
    assert "ratings.csv:3: unknown topic 'planes'" in capsys.readouterr().err
    assert main(["topics", "--topics", str(tmp / "missing.json")]) == 2
    assert "missing.json: topics file not found" in capsys.readouterr().err
    (tmp / "empty.txt").write_text("\n", encoding="utf-8")
    assert main(["topics", "--topics", str(t), "--corpus", str(tmp / "empty.txt")]) == 2
    assert "the corpus is empty" in capsys.readouterr().err


def test_num_layers_pools_another_layer_and_is_signed(tmp_path):
    """-m "sc(num_layers=3)" embeds with MiniLM's third layer: other numbers, the layer pinned in
    that measure's signature; the run without it is the default run, unchanged."""
    import json as _json
    import subprocess as _sp
    import sys as _sys
    from pathlib import Path as _P

    topics = _P(__file__).resolve().parents[2] / "examples" / "topics" / "topics_en.json"
    outs = {}
    for layers in (None, 3):
        o = tmp_path / f"o{layers}.json"
        args = [_sys.executable, "-m", "scorekit", "topics", "--topics", str(topics), "-o", str(o), "-q"]
        if layers:
            args += ["-m", f"sc(num_layers={layers})"]
        r = _sp.run(args, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        outs[layers] = _json.loads(o.read_text())
    assert "|sc(num_layers=3):model=all-MiniLM-L6-v2/pool=mean_tokens/trunc=256/dtype=fp32/layer=3|" \
        in outs[3]["signature"] and "layer=" not in outs[None]["signature"]
    assert outs[3]["metrics"]["sc(num_layers=3)"] != outs[None]["metrics"]["sc"]


# -- several topic models in one command -------------------------------------------------------
OTHER = {"mix1": ["computer", "road", "주식"], "mix2": ["car", "code", "금리"], "mix3": ["software", "vehicle", "시장"]}


@pytest.mark.slow
def test_several_models_ranked_and_compared(files, capsys):
    t, c, _, tmp = files
    o = tmp / "other.json"
    o.write_text(json.dumps(OTHER, ensure_ascii=False), encoding="utf-8")
    out, single = tmp / "cmp.json", tmp / "one.json"
    assert main(["topics", "--topics", f"good={t}", "--topics", f"mixed={o}", "--corpus", str(c),
                 "--allow-english-model", "--bootstrap", "300", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert [r["name"] for r in doc["runs"]] == ["good", "mixed"] and doc["comparison"]["baseline"] == "good"
    assert set(doc["ranking"]) == set(doc["runs"][0]["metrics"])
    for key, entries in doc["ranking"].items():
        for e in entries:
            assert e["value"] == next(r for r in doc["runs"] if r["name"] == e["model"])["metrics"][key]
    assert {r["measure"] for r in doc["comparison"]["rows"]} == {"sc", "sd_avg", "npmi", "c_v", "u_mass"}
    assert all(r["test"] == "two-sample permutation over topics" for r in doc["comparison"]["rows"])
    assert "2 topic models ranked on every measure" in printed and "Compared with good" in printed
    # one --topics: the single-model output shape, unchanged
    assert main(["topics", "--topics", str(t), "--corpus", str(c), "--allow-english-model", "-q",
                 "-o", str(single)]) == 0
    one = json.loads(single.read_text(encoding="utf-8"))
    assert "runs" not in one and one["metrics"] == doc["runs"][0]["metrics"] and one["name"] == "topics"


@pytest.mark.parametrize("argv, pattern", [
    (["--topics", "a={t}", "--topics", "a={t}"], "two topic models are named 'a'"),
    (["--topics", "{t}", "--topics", "{t}"], "two topic models are named 'topics'"),
    (["--topics", "a={t}", "--topics", "b={t}", "--ratings", "{r}"], "--ratings rates the topics of one model"),
    (["--topics", "a="], "--topics a=: expected NAME=FILE"),
])
def test_several_models_errors_are_one_line(files, capsys, argv, pattern):
    t, _, r, _ = files
    code = main(["topics", *[a.format(t=t, r=r) for a in argv]])
    err = capsys.readouterr().err
    assert code == 2 and pattern in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("spec,msg", [
    ("sc(threshold_edge=nan)", "parameter 'threshold_edge' must be a finite number, got 'nan'"),
    ("sc(threshold_edge=1.5)", "parameter 'threshold_edge' must be in [-1, 1], got 1.5"),
    ("sd(gamma_overlap=-5)", "parameter 'gamma_overlap' must be in [0, 1]"),
    ("sc(damping=inf)", "parameter 'damping' must be a finite number"),
    ("overall(sis=nan)", "parameter 'sis' must be a finite number"),
    ("semdiv(alpha_vd=x)", "parameter 'alpha_vd' must be float"),
    ("overall(w_sc=inf)", "parameter 'w_sc' must be a finite number"),
    ("topic_diversity(topk=0)", "parameter 'topk' must be in [1, inf]"),
    ("coherence(topn=0)", "parameter 'topn' must be in [1, inf]"),
    ("sc(thresold_edge=0.2)", "did you mean 'threshold_edge'?"),
    ("scc", "unknown topics metric 'scc'"),
    ("coherence", "need a reference corpus (--corpus)"),
    ("sc(num_layers=-1)", "parameter 'num_layers' must be in [0, 1000], got -1"),
    ("overall(allow_english_model=true)",
     "allow_english_model is set for the whole run, not per metric: --allow-english-model"),
    ("sc(model=no/such-model)", "model 'no/such-model' is not on disk"),
])
def test_bad_metric_specs_one_line_nothing_written(files, capsys, spec, msg):
    """What the per-metric flags (--threshold-edge, --gamma, --sis, ...) checked, the declarations
    check now: one line, exit 2, no output file."""
    t, _, _, tmp = files
    out = tmp / "bad.json"
    assert main(["topics", "--topics", str(t), "-m", spec, "-o", str(out), "--allow-english-model"]) == 2
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize("flag", ["--sis", "--threshold-edge", "--damping", "--gamma", "--semdiv-weights",
                                  "--overall-weights", "--topk", "--topn", "--model", "--num-layers"])
def test_per_metric_flags_are_gone(files, capsys, flag):
    """A measure's parameters have one way in: -m "sc(threshold_edge=0.2)", "sc(model=DIR,num_layers=4)"."""
    t, *_ = files
    assert main(["topics", "--topics", str(t), flag, "0.5"]) == 2
    err = capsys.readouterr().err   # the option is gone; the one line says how to write it now
    assert f"scorekit topics: error: {flag} is now set in the metric names: -m " in err and err.count("\n") == 1


def test_a_topic_absent_from_the_corpus_names_the_corpus_and_topics_files(files, capsys):
    t, c, _, tmp = files
    t.write_text(json.dumps({**TOPICS, "space": ["rocket", "orbit"]}), encoding="utf-8")
    out = tmp / "absent.json"
    code = main(["topics", "--topics", str(t), "--corpus", str(c), "-m", "coherence", "-o", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and not out.exists()
    assert f"{c}: topic space: none of its keywords occurs in the reference corpus" in err[0]
    assert f"from {t}" in err[0]
