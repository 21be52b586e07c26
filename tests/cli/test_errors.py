"""Issue #14, CLI side: every user mistake is ONE line on stderr naming the option/file, exit 2,
no traceback, nothing written. Each test here reproduces one reported case (or a family of them).
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from tests.as_nobody import nobody_can_run_scorekit

from scorekit.cli import main

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
QRELS = EX / "retrieval" / "qrels.txt"
RUN1 = EX / "retrieval" / "run_v1.txt"
NEWS = EX / "summarization" / "news_en.jsonl"
TOPICS = EX / "topics" / "topics_en.json"


def run(args, capsys):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def one_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err and "np.float64" not in err
    return lines[0]


def files(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): (None if p.is_dir() else p.read_bytes()) for p in sorted(root.rglob("*"))}


# --------------------------------------------------------- numeric options checked at parse time
BAD_NUMBERS = [
    (["topics", "--topics", TOPICS], "--bootstrap", "0"),
    (["topics", "--topics", TOPICS], "--pairs", "-2"),
    (["caption", "-p", "p.json", "-r", "r.json", "--lang", "en"], "--baseline-meteor", "nan"),
    (["caption", "-p", "p.json", "-r", "r.json", "--lang", "en"], "--baseline-meteor", "-1"),
    (["retrieval", "--qrels", QRELS, "--run", RUN1], "--alpha", "nan"),
    (["retrieval", "--qrels", QRELS, "--run", RUN1], "--alpha", "1.5"),
    (["retrieval", "--qrels", QRELS, "--run", RUN1], "--n-resamples", "0"),
    (["retrieval", "--qrels", QRELS, "--run", RUN1], "--seed", "-1"),
    (["sweep", "--data", NEWS], "--bootstrap", "0"),
    (["sweep", "--data", NEWS], "--limit", "0"),
    (["sweep", "--data", NEWS], "--seed", "x"),
    (["runs", "compare", "1", "2"], "--alpha", "inf"),
    (["runs", "leaderboard"], "--top", "0"),
]


@pytest.mark.parametrize("base,option,value", BAD_NUMBERS, ids=[f"{b[0]}{o}={v}" for b, o, v in BAD_NUMBERS])
def test_bad_number_is_one_usage_line(tmp_path, capsys, monkeypatch, base, option, value):
    monkeypatch.chdir(tmp_path)
    code, out, err = run([*base, option, value], capsys)
    assert code == 2
    line = one_line(err)
    assert line.startswith(f"scorekit {base[0]}") and ": error: " in line and option in line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("option,text", [("--band", "nan,0.9"), ("--band", "0.9,0.5"), ("--band", "0.5")])
def test_sweep_band_validated(capsys, option, text):
    code, _, err = run(["sweep", "--data", NEWS, option, text], capsys)
    assert code == 2 and option in one_line(err)


# ------------------------------------------------------------------------- usage errors: one line
@pytest.mark.parametrize("args", [
    ["retrieval", "--qrels", QRELS],                        # missing option
    ["retrieval", "--qrels", QRELS, "--run", RUN1, "--bogus"],
    ["retrieval", "--qrels", QRELS, "--run", RUN1, "--test", "nope"],
    ["retrieval", "qrels.trec", "run.trec"],                  # positional files (docs/report.md bug)
    ["retrival"],
    ["absa", "nope"],
    ["runs", "show", "notanint"],
])
def test_usage_error_is_one_line(capsys, args):
    code, _, err = run(args, capsys)
    assert code == 2
    line = one_line(err)
    assert line.startswith("scorekit") and ": error: " in line
    assert "Usage:" not in err and "Try " not in err


@pytest.mark.parametrize("group", ["absa", "runs"])
def test_group_summaries_are_not_cut(capsys, group):
    code, out, _ = run([group, "--help"], capsys)
    assert code == 0
    commands = out.split("Commands:")[1]
    assert "..." not in commands


def test_every_option_has_help():
    import click

    from scorekit.cli import cli

    ctx = click.Context(cli)
    missing = []

    def walk(cmd, path):
        if isinstance(cmd, click.Group):
            for n in cmd.list_commands(ctx):
                walk(cmd.get_command(ctx, n), [*path, n])
            return
        missing.extend(f"{' '.join(path)} {p.opts[0]}" for p in cmd.params
                       if isinstance(p, click.Option) and not p.help and not p.hidden)

    for name in cli.list_commands(ctx):
        if name in ("train-summarizer", "summarize"):  # cli/rl.py: owned by the rl work
            continue
        walk(cli.get_command(ctx, name), [name])
    assert missing == []


# ----------------------------------------------------------- gzip: truncated / fake is a file error
def _gz_cases(tmp: Path):
    """(command args with {} for the file, source file, suffix) for every reader that takes .gz."""
    ex = EX
    return [
        (["retrieval", "--qrels", "{}", "--run", RUN1], QRELS, ".txt.gz"),
        (["retrieval", "--qrels", QRELS, "--run", "{}"], RUN1, ".txt.gz"),
        (["caption", "-p", "{}", "-r", ex / "caption" / "references_ko.json", "--lang", "ko", "-m", "bleu_4"],
         ex / "caption" / "predictions_ko.json", ".json.gz"),
        (["caption", "-p", ex / "caption" / "predictions_en.jsonl", "-r", "{}", "--lang", "en", "-m", "bleu_4"],
         ex / "caption" / "references_en.csv", ".csv.gz"),
        (["topics", "--topics", "{}"], TOPICS, ".json.gz"),
        (["topics", "--topics", TOPICS, "--corpus", "{}"], ex / "topics" / "corpus_en.txt", ".txt.gz"),
        (["topics", "--topics", TOPICS, "--ratings", "{}"], ex / "topics" / "ratings_en.csv", ".csv.gz"),
        (["sweep", "--data", "{}", "-m", "rouge,density,words"], NEWS, ".jsonl.gz"),
        (["summary", "-p", "{}", "-r", ex / "summarization" / "summaries.jsonl", "-m", "rouge"],
         ex / "summarization" / "summaries.jsonl", ".jsonl.gz"),
        (["absa", "scorecards", "{}", "--out", tmp / "sc.jsonl"],
         ex / "absa" / "results" / "cr_demo__seed42_proposed" / "outputs.jsonl", ".jsonl.gz"),
    ]


@pytest.mark.parametrize("damage", ["truncated", "fake", "empty"])
def test_damaged_gzip_is_one_line_naming_the_file(tmp_path, capsys, damage):
    for i, (args, source, suffix) in enumerate(_gz_cases(tmp_path)):
        bad = tmp_path / f"in{i}{suffix}"
        blob = gzip.compress(Path(source).read_bytes())
        bad.write_bytes({"truncated": blob[: len(blob) // 2], "fake": b"plain text, not gzip\n",
                         "empty": b"\x1f\x8b"}[damage])
        before = files(tmp_path)
        code, _, err = run([str(a).replace("{}", str(bad)) for a in args], capsys)
        assert code == 2, (args, err)
        line = one_line(err)
        assert bad.name in line and "abort" not in line, line
        assert files(tmp_path) == before


def test_plain_file_named_dot_gz(tmp_path, capsys):
    dot = tmp_path / ".gz"
    dot.write_text("not gzip")
    for args in (["retrieval", "--qrels", dot, "--run", RUN1], ["topics", "--topics", dot],
                 ["sweep", "--data", dot], ["caption", "-p", dot, "-r", dot, "--lang", "en"]):
        code, _, err = run(args, capsys)
        assert code == 2 and ".gz" in one_line(err)


# ------------------------------------------------------------------------ interrupts and OS errors
def test_keyboard_interrupt_is_130_and_eof_is_not_aborted(capsys, monkeypatch):
    import importlib

    compare_mod = importlib.import_module("scorekit.retrieval.compare")

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(compare_mod, "compare", interrupted)
    code, _, err = run(["retrieval", "--qrels", QRELS, "--run", RUN1], capsys)
    assert code == 130 and one_line(err) == "scorekit: interrupted"

    def eof(*a, **k):
        raise EOFError("Compressed file ended before the end-of-stream marker was reached")

    monkeypatch.setattr(compare_mod, "compare", eof)
    code, _, err = run(["retrieval", "--qrels", QRELS, "--run", RUN1], capsys)
    assert code == 2 and "abort" not in one_line(err)


def test_unreadable_input_is_one_line(tmp_path, capsys, monkeypatch):
    import importlib

    compare_mod = importlib.import_module("scorekit.retrieval.compare")

    def denied(*a, **k):
        raise PermissionError(13, "Permission denied", str(tmp_path / "secret.txt"))

    monkeypatch.setattr(compare_mod, "compare", denied)
    code, _, err = run(["retrieval", "--qrels", QRELS, "--run", RUN1], capsys)
    assert code == 2 and "secret.txt: Permission denied" in one_line(err)


# -------------------------------------------------------------------------- read-only destinations
DEST_OPTIONS = [
    (["retrieval", "--qrels", QRELS, "--run", RUN1, "-o"], "o.json"),
    (["retrieval", "--qrels", QRELS, "--run", RUN1, "--report"], "r.html"),
    (["retrieval", "--qrels", QRELS, "--run", RUN1, "--per-query"], "pq.csv"),
    (["retrieval", "--qrels", QRELS, "--run", RUN1, "--record", "--store"], "runs.db"),
    (["sweep", "--data", NEWS, "-m", "rouge,density,words", "--plot"], "plots"),
    (["sweep", "--data", NEWS, "-m", "rouge,density,words", "--table"], "t.csv"),
]


@pytest.mark.parametrize("base,name", DEST_OPTIONS, ids=[b[-1] for b, _ in DEST_OPTIONS])
def test_read_only_destination_is_one_line(tmp_path, capsys, monkeypatch, base, name):
    """Tests run as root, for whom nothing is read-only: the folder is made read-only and
    os.access answers as it would for a normal user (the real non-root run is below)."""
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **k: False if Path(p) == ro and mode & os.W_OK
                        else real_access(p, mode, **k))
    before = files(tmp_path)
    code, _, err = run([*base, ro / name], capsys)
    ro.chmod(0o755)
    assert code == 2
    line = one_line(err)
    assert base[-1] in line and "not writable" in line
    assert files(tmp_path) == before


@pytest.mark.parametrize("base,name", DEST_OPTIONS[:4], ids=[b[-1] for b, _ in DEST_OPTIONS[:4]])
def test_under_a_file_is_one_line(tmp_path, capsys, base, name):
    afile = tmp_path / "afile"
    afile.write_text("x")
    code, _, err = run([*base, afile / name], capsys)
    assert code == 2
    assert "afile" in one_line(err)
    assert afile.read_text() == "x" and len(list(tmp_path.iterdir())) == 1


@pytest.mark.skipif(not nobody_can_run_scorekit(), reason="needs root, and a checkout user nobody can read")
def test_read_only_as_nobody(tmp_path):
    work = Path(tempfile.mkdtemp(prefix="sk-ro-"))
    try:
        work.chmod(0o755)
        ro = work / "ro"
        ro.mkdir(mode=0o555)
        env = {"PYTHONPATH": str(ROOT / "src"), "HOME": str(work), "PATH": "/usr/bin:/bin"}
        r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m",
                            "scorekit", "retrieval", "--qrels", str(QRELS), "--run", str(RUN1), "-o", str(ro / "o.json")],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 2 and "not writable" in one_line(r.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_numpy_scalars_are_plain_numbers_in_messages(tmp_path, capsys):
    bad = tmp_path / "run.txt"
    bad.write_text("q1 Q0 d1 1 nan tag\n")
    code, _, err = run(["retrieval", "--qrels", QRELS, "--run", bad], capsys)
    assert code == 2
    line = one_line(err)
    assert "run.txt:1" in line and "nan" in line and "np." not in line


# ==================================================================== issue #25: hostile inputs
ABSURD = "99999999999999999999"


def _integer_params():
    """(command path, option or argument name) of every integer-valued parameter of every command."""
    import click

    from scorekit.cli import cli
    from scorekit.cli.rl import _Number

    ctx = click.Context(cli)
    found = []

    def walk(cmd, path):
        if isinstance(cmd, click.Group):
            for n in cmd.list_commands(ctx):
                walk(cmd.get_command(ctx, n), [*path, n])
            return
        for p in cmd.params:
            t = p.type
            if isinstance(t, click.types.IntParamType) or (isinstance(t, _Number) and t.kind is int):
                before = [q for q in cmd.params if isinstance(q, click.Argument)]
                found.append((tuple(path), p, before[:before.index(p)] if p in before else []))

    for name in cli.list_commands(ctx):
        walk(cli.get_command(ctx, name), [name])
    return found


INTEGER_PARAMS = _integer_params()


def test_every_integer_option_has_an_upper_bound():
    """An unbounded count reaches numpy or SQLite as a traceback (`sweep --bootstrap 1e20`)."""
    from scorekit.cli.rl import _Number

    unbounded = [f"{' '.join(path)} {p.name}" for path, p, _ in INTEGER_PARAMS
                 if (p.type.high if isinstance(p.type, _Number) else getattr(p.type, "max", None)) is None]
    assert INTEGER_PARAMS and unbounded == []


@pytest.mark.parametrize("path,param,before", INTEGER_PARAMS,
                         ids=[f"{' '.join(p)}:{q.name}" for p, q, _ in INTEGER_PARAMS])
@pytest.mark.parametrize("value", [ABSURD, "-" + ABSURD])
def test_absurd_number_is_one_usage_line_naming_it(tmp_path, capsys, monkeypatch, path, param, before, value):
    """Checked at parse time: nothing is read, nothing written, whatever else the command needs."""
    import click

    monkeypatch.chdir(tmp_path)
    if isinstance(param, click.Option):
        args, name = [param.opts[0], value], param.opts[0]
    else:   # a positional argument: the ones before it get a valid value
        args, name = ["--", *["1"] * len(before), value], param.human_readable_name
    code, out, err = run([*path, *args], capsys)
    assert code == 2, err
    line = one_line(err)
    assert line.startswith(f"scorekit {' '.join(path)}: error: ") and name in line, line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args,fragment", [
    (["train-summarizer", "--hidden", "0"], "scorekit train-summarizer: error: Invalid value for '--hidden'"),
    (["train-summarizer"], "scorekit train-summarizer: error: give --checkpoint"),
    (["summarize", "--num-test", "0"], "scorekit summarize: error: Invalid value for '--num-test'"),
    (["summarize", "--exclude-trained"], "scorekit summarize: error: --exclude-trained needs --checkpoint"),
    (["sweep", "--data", NEWS, "--n", "3,x"], "scorekit sweep: error: --n: expected comma-separated integers"),
    (["retrieval", "--qrels", QRELS, "--run", RUN1, "--name", "a", "--name", "b"],
     "scorekit retrieval: error: --name given 2 times"),
    (["caption", "-p", "p.json", "-r", "r.json", "--lang", "en", "--images", ".", "--videos", "."],
     "scorekit caption: error: give --images or --videos"),
    (["fuse", "--run", RUN1, "--run", RUN1, "-m", "wsum", "--weights", "inf,1", "-o", "f.txt"],
     "scorekit fuse: error: Invalid value for '--weights'"),
])
def test_usage_errors_have_one_form(tmp_path, capsys, monkeypatch, args, fragment):
    """`scorekit CMD: error: ...` for every command's usage errors (click's own form), never
    `scorekit: error: CMD: ...`; nothing written (fuse's --weights is checked before fusing)."""
    monkeypatch.chdir(tmp_path)
    code, _, err = run(args, capsys)
    assert code == 2
    assert one_line(err).startswith(fragment)
    assert list(tmp_path.iterdir()) == []


def test_train_summarizer_output_without_folds_is_refused_up_front(tmp_path, capsys):
    out = tmp_path / "out.json"
    code, stdout, err = run(["train-summarizer", "--checkpoint", tmp_path / "p.pt", "-o", out], capsys)
    assert code == 2 and "--output" in one_line(err) and "--folds" in one_line(err)
    assert list(tmp_path.iterdir()) == [] and stdout == ""


@pytest.mark.slow
def test_train_summarizer_quiet_prints_nothing(tmp_path, capsys):
    code, stdout, err = run(["train-summarizer", "--num-train", "2", "--epochs", "1", "--n", "7",
                             "--checkpoint", tmp_path / "p.pt", "-q"], capsys)
    assert code == 0, err
    assert stdout == "" and (tmp_path / "p.pt").exists()


# ------------------------------------------------------------------------- bad input refused
def test_duplicate_keys_in_cider_df_are_refused(tmp_path, capsys):
    df = tmp_path / "df.json"
    df.write_text('{"n_docs": 10,\n "df": {"a man": 3,\n        "a man": 4}}')
    code, _, err = run(["caption", "-p", EX / "caption" / "predictions_en.jsonl", "-r",
                        EX / "caption" / "references_en.csv", "--lang", "en", "-m", f"cider(df={df})"],
                       capsys)
    assert code == 2 and one_line(err) == f"scorekit: error: {df}:3: duplicate key 'a man' in one JSON object " \
                                          "(each key may appear once)"
    df.write_text('{"n_docs": 10, "df": {"a man": 3, "a  man": 4}}')     # one n-gram once normalised
    code, _, err = run(["caption", "-p", EX / "caption" / "predictions_en.jsonl", "-r",
                        EX / "caption" / "references_en.csv", "--lang", "en", "-m", f"cider(df={df})"],
                       capsys)
    assert code == 2 and "duplicate n-gram 'a man'" in one_line(err)


def test_reversed_absa_span_fails_strict(tmp_path, capsys):
    import json

    rows = tmp_path / "outputs.jsonl"
    rows.write_text(json.dumps({"meta": {"text_id": "r1"}, "final_result": {"final_tuples": [
        {"aspect_term": {"term": "배송", "span": [2, 0]}, "polarity": "positive"}]}}, ensure_ascii=False) + "\n",
        encoding="utf-8")
    code, _, err = run(["absa", "scorecards", rows, "--out", tmp_path / "sc.jsonl", "--strict"], capsys)
    assert code == 2
    line = one_line(err)
    assert "outputs.jsonl:1" in line and "span" in line and "before its start" in line
    assert not (tmp_path / "sc.jsonl").exists()


@pytest.mark.parametrize("which", ["qrels", "run"])
def test_nul_byte_inside_a_trec_id(tmp_path, capsys, which):
    bad = tmp_path / f"{which}.txt"
    source = QRELS if which == "qrels" else RUN1
    lines = source.read_bytes().split(b"\n")
    lines[2] = b"q\x001" + lines[2][2:]
    bad.write_bytes(b"\n".join(lines))
    args = ["--qrels", bad, "--run", RUN1] if which == "qrels" else ["--qrels", QRELS, "--run", bad]
    code, _, err = run(["retrieval", *args, "-o", tmp_path / "o.json"], capsys)
    assert code == 2 and f"{bad.name}:3: query id 'q\\x001' holds a NUL byte" in one_line(err)
    assert not (tmp_path / "o.json").exists()


def test_lone_surrogate_in_a_prediction_names_file_line_and_field(tmp_path, capsys):
    preds = tmp_path / "p.jsonl"
    preds.write_text('{"id": "video_001", "prediction": "ok"}\n{"id": "video_002", "prediction": "a \\ud800 b"}\n')
    code, _, err = run(["caption", "-p", preds, "-r", EX / "caption" / "references_ko.json", "--lang", "ko",
                        "-m", "bleu_4", "-o", tmp_path / "o.json"], capsys)
    assert code == 2
    assert one_line(err) == (f"scorekit: error: {preds}:2: lone surrogate \\ud800 in the string at ['prediction'] "
                             "(half of a UTF-16 pair, not a character; write the character itself or its full pair)")
    assert not (tmp_path / "o.json").exists()


def test_bert_model_folder_that_does_not_exist_is_an_error(tmp_path, capsys):
    """The user asked for that model: not a warning with exit 0, and no Hub hint for a path."""
    missing = tmp_path / "no" / "such-model"
    code, _, err = run(["caption", "-p", EX / "caption" / "predictions_en.jsonl", "-r",
                        EX / "caption" / "references_en.csv", "--lang", "en", "-m", f"bertscore(model={missing})",
                        "-o", tmp_path / "o.json"], capsys)
    assert code == 2
    line = one_line(err)
    assert str(missing) in line and "model folder not found" in line and "huggingface-cli" not in line
    assert not (tmp_path / "o.json").exists()


def test_truncated_paraphrase_table_is_reported_as_damaged(tmp_path, capsys):
    from scorekit.generation.meteor15_resources import locate

    try:
        sources = locate()
    except Exception:
        pytest.skip("no Meteor 1.5 resources installed (pycocoevalcap)")
    if sources.jar is None:
        pytest.skip("Meteor 1.5 resources without the jar")
    (tmp_path / "m15" / "data").mkdir(parents=True)
    (tmp_path / "m15" / "meteor-1.5.jar").symlink_to(sources.jar)
    (tmp_path / "m15" / "data" / "paraphrase-en.gz").write_bytes(sources.paraphrase.read_bytes()[:100_000])
    code, _, err = run(["caption", "-p", EX / "caption" / "predictions_en.jsonl", "-r",
                        EX / "caption" / "references_en.csv", "--lang", "en", "-m",
                        f"meteor15(resources={tmp_path / 'm15'})"], capsys)
    assert code == 2
    line = one_line(err)
    assert "paraphrase-en.gz" in line and "damaged or truncated" in line and "not found" not in line


# -------------------------------------------------------------------- documented inputs accepted
def test_korean_nfd_caption_ids_score_like_nfc(tmp_path, capsys):
    """Issue #25: NFD ids against NFC references gave every item 0 (METEOR 0.600 -> 0.0)."""
    import json
    import unicodedata

    refs = json.loads((EX / "caption" / "references_ko.json").read_text(encoding="utf-8"))
    preds = json.loads((EX / "caption" / "predictions_ko.json").read_text(encoding="utf-8"))
    ko = {k: k.replace("video", "영상") for k in refs}
    (tmp_path / "r.json").write_text(json.dumps({ko[k]: v for k, v in refs.items()}, ensure_ascii=False),
                                     encoding="utf-8")
    (tmp_path / "p_nfc.json").write_text(json.dumps({ko[k]: v for k, v in preds.items()}, ensure_ascii=False),
                                         encoding="utf-8")
    (tmp_path / "p_nfd.json").write_text(json.dumps({unicodedata.normalize("NFD", ko[k]) + "\u200b": v
                                                     for k, v in preds.items()}, ensure_ascii=False),
                                         encoding="utf-8")
    scores = {}
    for form in ("nfc", "nfd"):
        out = tmp_path / f"{form}.json"
        code, _, err = run(["caption", "-p", tmp_path / f"p_{form}.json", "-r", tmp_path / "r.json", "--lang", "ko",
                            "-m", "meteor", "--strict", "-q", "-o", out], capsys)
        assert code == 0 and err == "", err
        scores[form] = json.loads(out.read_text())["metrics"]["meteor"]
    assert scores["nfd"] == scores["nfc"] and round(scores["nfc"], 3) == 0.600


def test_caption_reference_csv_with_a_huge_field(tmp_path, capsys):
    import csv
    import json

    long = "a man rides a wave " * 10_000            # 190 KB: over the csv module's 128 KiB default
    refs = tmp_path / "refs.csv"
    with refs.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "reference"])
        for row in csv.reader((EX / "caption" / "references_en.csv").read_text().splitlines()[1:]):
            w.writerow(row)
        w.writerow(["huge", long])
    out = tmp_path / "o.json"
    code, _, err = run(["caption", "-p", EX / "caption" / "predictions_en.jsonl", "-r", refs, "--lang", "en",
                        "-m", "bleu_4", "--tokenizer", "whitespace", "-q", "-o", out], capsys)
    assert code == 0, err
    items = {r["id"]: r for r in json.loads(out.read_text())["per_item"]}
    assert items["huge"]["references"] == [long]


@pytest.mark.parametrize("argv, want", [
    (["topics", "--topics", "t.json", "--model", "m"], '--model is now set in the metric names: -m "sc(model=DIR),'),
    (["topics", "--topics", "t.json", "--topn", "3"], '--topn is now set in the metric names: -m "coherence(topn=N)"'),
    (["summary", "-p", "a", "-r", "b", "--bertscore-model", "m"], '-m "bertscore(model=DIR)"'),
    (["caption", "-p", "a", "-r", "b", "--lang", "ko", "--bert-model", "m"],
     '--bert-model is now set in the metric names: -m "bertscore(model=DIR)"'),
    (["caption", "-p", "a", "-r", "b", "--lang", "ko", "--num-layers", "9"], '-m "bertscore(num_layers=N)"'),
    (["caption", "-p", "a", "-r", "b", "--lang", "ko", "--lexicon", "s.tsv"], '-m "meteor(lexicon=A.tsv;B.tsv)"'),
    (["caption", "-p", "a", "-r", "b", "--lang", "en", "--clip-model", "c"], '-m "clipscore(model=DIR)"'),
    (["train-summarizer", "--bert-model", "m", "--checkpoint", "p.pt"],
     '--bert-model is now set in the metric names: --reward "bertscore(model=DIR)"'),
    (["summarize", "--num-layers", "9"],
     '--num-layers is now set in the metric names: --reward "bertscore(num_layers=N)"'),
])
def test_an_option_moved_into_the_name_grammar_says_how_to_write_it(argv, want, capsys):
    """#26 deleted per-metric flags; typing one names its spelling in the grammar, in one line."""
    code, _, err = run(argv, capsys)
    assert code == 2 and want in one_line(err) and "Traceback" not in err


def test_every_moved_option_is_really_gone():
    """The hints table names only options the commands no longer take (else it would shadow one)."""
    from scorekit.cli import MOVED_TO_GRAMMAR, cli

    for name, moved in MOVED_TO_GRAMMAR.items():
        cmd = cli.get_command(None, name)
        taken = {o for p in cmd.params for o in (*p.opts, *p.secondary_opts)}
        assert not taken & set(moved), (name, taken & set(moved))


@pytest.mark.parametrize("cmd", [
    ["caption", "-p", EX / "caption" / "predictions_en.jsonl", "-r", EX / "caption" / "references_en.csv", "--lang", "en"],
    ["summary", "-p", EX / "summarization" / "summaries.jsonl", "-r", EX / "summarization" / "summaries.jsonl"],
    ["topics", "--topics", TOPICS],
    ["sweep", "--data", NEWS],
])
@pytest.mark.parametrize("text", [",", "", " , "])
def test_metrics_option_naming_no_metric_is_an_error(tmp_path, capsys, cmd, text):
    # before: caption, summary and topics ran with no metric and wrote {"metrics": {}}, exit 0
    code, _, err = run([*cmd, "-m", text, "-o", tmp_path / "r.json"], capsys)
    assert code == 2 and "--metrics" in one_line(err) and "no metric named" in err
    assert list(tmp_path.iterdir()) == []
