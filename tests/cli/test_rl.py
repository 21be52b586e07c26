"""`scorekit train-summarizer` / `scorekit summarize`: user mistakes are caught before any work
(one line, exit 2, nothing written), and the end-to-end runs on the shipped sample and MiniLM."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from scorekit.summarization.data import default_sample  # noqa: E402
from scorekit.summarization.data import read_pairs  # noqa: E402
from scorekit.summarization.rl.policy import PolicyConfig  # noqa: E402
from scorekit.summarization.rl.train import CHECKPOINT_FORMAT, Policy, document_key  # noqa: E402

SRC = str(Path(__file__).resolve().parents[2] / "src")


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "scorekit", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})})


def one_line_error(proc, *fragments):
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for f in fragments:
        assert f in lines[0], (f, lines[0])


@pytest.mark.parametrize("args,fragment", [
    (["train-summarizer", "--lr", "nan", "--checkpoint", "p.pt"], "'--lr': expected a finite number"),
    (["train-summarizer", "--lr", "0", "--checkpoint", "p.pt"], "'--lr'"),
    (["train-summarizer", "--epochs", "0", "--checkpoint", "p.pt"], "'--epochs'"),
    (["train-summarizer", "--hidden", "x", "--checkpoint", "p.pt"], "'--hidden'"),
    (["train-summarizer", "--folds", "1"], "'--folds'"),
    (["train-summarizer", "--baseline-momentum", "1", "--checkpoint", "p.pt"], "'--baseline-momentum'"),
    (["train-summarizer", "--state", "emb,bogus", "--checkpoint", "p.pt"], "--state"),
    (["train-summarizer", "--reward", "bertscore(num_layers=0)", "--checkpoint", "p.pt"],
     "--reward: bertscore: parameter 'num_layers' must be in [1, inf], got 0"),
    (["train-summarizer", "--reward", "bertscore(num_layer=5)", "--checkpoint", "p.pt"],
     "did you mean 'num_layers'?"),
    (["summarize", "--reward", "bertscre"], "--reward: unknown summary metric 'bertscre' — did you mean 'bertscore'"),
    (["summarize", "--reward", "rouge"], "--reward: the reward is BERTScore F1"),
    (["summarize", "--reward", "bertscore(idf=true)"], "the reward scores each (summary, reference) pair alone"),
    (["train-summarizer"], "--checkpoint"),
    (["summarize", "--num-test", "-3"], "'--num-test': expected a value >= 1"),
    (["train-summarizer", "--lang", "ko", "--folds", "3"], "--allow-english-model"),
    (["summarize", "--lang", "ko"], "English-only"),
    (["summarize", "--lang", "ko", "--encoder", "enc"],
     'the reward\'s model defaults to the shipped all-MiniLM-L6-v2, which is English-only; give a Korean-capable '
     'model (--reward "bertscore(model=PATH)") or --allow-english-model'),
])
def test_bad_options_are_one_line_errors(tmp_path, args, fragment):
    proc = run(*args)
    one_line_error(proc, fragment)
    assert not Path("p.pt").exists()


@pytest.mark.parametrize("args,fragment", [
    (["--bert-model", "m"], '--bert-model is now set in the metric names: --reward "bertscore(model=DIR)"'),
    (["--num-layers", "5"], '--num-layers is now set in the metric names: --reward "bertscore(num_layers=N)"'),
    (["--reward", "bertscore(allow_english_model=yes)"],
     "allow_english_model is set for the whole run, not per metric: --allow-english-model"),
])
@pytest.mark.parametrize("command", ["train-summarizer", "summarize"])
def test_the_old_reward_spellings_name_the_new_one(tmp_path, command, args, fragment):
    """#26: the reward's model is given in the metric grammar (--reward), as everywhere else; the
    old flags and a run option written as a parameter are one line, exit 2, nothing written."""
    where = ["--checkpoint", str(tmp_path / "p.pt"), "--folds", "2"] if command == "train-summarizer" else []
    proc = run(command, *args, *where, "-o", str(tmp_path / "o.json"), "--report", str(tmp_path / "r.html"))
    one_line_error(proc, fragment)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_the_reward_model_in_the_grammar_equals_a_scorer_built_with_it(tmp_path):
    """--reward "bertscore(num_layers=5)" scores with the BERTScorer of that layer: the numbers
    and signature of the policy evaluated with BERTScorer(num_layers=5) built directly (what the
    deleted --num-layers 5 built)."""
    from scorekit.neural.bertscore import BERTScorer
    from scorekit.neural.encoder import Encoder
    from scorekit.summarization.rl.pipeline import Toolkit, evaluate_policy

    out = tmp_path / "eval.json"
    proc = run("summarize", "--num-test", "2", "--n", "7", "--reward", "bertscore(num_layers=5)", "-o", str(out), "-q")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    enc = Encoder.load(None)
    toolkit = Toolkit(enc.embed, enc.name, BERTScorer(num_layers=5), "en")
    articles, chunker, _ = toolkit.prepare(read_pairs(default_sample("en")).head(2))
    policy = Policy.create(PolicyConfig(embed_dim=articles[0].sent_emb.shape[1]), seed=42).eval()
    want = evaluate_policy(policy, articles, toolkit, n_list=[7], chunker=chunker, name="untrained")
    assert data["metrics"] == want.metrics and data["signature"] == want.signature
    assert "|bertscore:model=all-MiniLM-L6-v2/L5/" in data["signature"]


def test_checkpoint_folder_is_checked_before_training(tmp_path):
    proc = run("train-summarizer", "--checkpoint", str(tmp_path / "nodir" / "p.pt"))
    one_line_error(proc, "nodir", "does not exist")
    proc = run("train-summarizer", "--checkpoint", str(tmp_path))
    one_line_error(proc, "is a directory")
    proc = run("train-summarizer", "--n", "0,7", "--checkpoint", str(tmp_path / "p.pt"))
    one_line_error(proc, "positive")
    assert list(tmp_path.iterdir()) == []


def test_damaged_checkpoints_name_the_file(tmp_path):
    no_config = tmp_path / "noconfig.pt"
    torch.save({"format": CHECKPOINT_FORMAT, "sentence": {}, "chunk": {}}, no_config)
    one_line_error(run("summarize", "--checkpoint", str(no_config)), str(no_config), "no config")
    good = Policy.create(PolicyConfig(embed_dim=8, hidden=4))
    good.save(tmp_path / "good.pt")
    payload = torch.load(tmp_path / "good.pt", weights_only=True)
    payload["config"]["hidden"] = 16  # tensors no longer fit the config
    shapes = tmp_path / "shapes.pt"
    torch.save(payload, shapes)
    one_line_error(run("summarize", "--checkpoint", str(shapes)), str(shapes), "shapes do not match")
    (tmp_path / "junk.pt").write_bytes(b"junk")
    one_line_error(run("summarize", "--checkpoint", str(tmp_path / "junk.pt")), "not a scorekit summariser checkpoint")
    one_line_error(run("summarize", "--checkpoint", str(tmp_path / "missing.pt")), "checkpoint not found")


def test_without_torch_says_to_install_the_neural_extra(tmp_path):
    fake = tmp_path / "fake" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('no torch here', name='torch')\n")
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path / "fake"), SRC])}
    for cmd in (["train-summarizer", "--checkpoint", str(tmp_path / "p.pt")], ["summarize"]):
        proc = run(*cmd, env=env)
        one_line_error(proc, cmd[0], "install the neural extra")
    assert not (tmp_path / "p.pt").exists()


def test_default_sample_ships_inside_the_package():
    import scorekit

    pkg = Path(scorekit.__file__).resolve().parent
    for lang, count in (("en", 30), ("ko", 10)):
        path = default_sample(lang)
        assert path.is_file() and pkg in path.resolve().parents
        assert len(read_pairs(path)) == count


def test_summarize_refuses_the_articles_a_checkpoint_was_trained_on(tmp_path):
    pairs = read_pairs(default_sample("en"))
    policy = Policy.create(PolicyConfig(embed_dim=384, hidden=4))
    policy.meta["train_keys"] = sorted(document_key(d) for d in pairs.documents[:5])
    policy.save(tmp_path / "p.pt")
    proc = run("summarize", "--checkpoint", str(tmp_path / "p.pt"))
    one_line_error(proc, "5 of the 30 articles were used to train", "--exclude-trained")
    policy.meta["train_keys"] = sorted(document_key(d) for d in pairs.documents)
    policy.save(tmp_path / "all.pt")
    proc = run("summarize", "--checkpoint", str(tmp_path / "all.pt"), "--exclude-trained")
    one_line_error(proc, "nothing held out")


@pytest.mark.slow
def test_train_then_summarize_round_trip(tmp_path):
    ckpt = tmp_path / "policy.pt"
    proc = run("train-summarizer", "--num-train", "3", "--n", "7,9", "--checkpoint", str(ckpt))
    assert proc.returncode == 0, proc.stderr
    assert ckpt.exists() and "trained on 3 articles" in proc.stdout
    out = tmp_path / "eval.json"
    proc = run("summarize", "--checkpoint", str(ckpt), "--num-test", "3", "--n", "7,9", "-o", str(out),
               "--format", "csv", "--exclude-trained")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert [i["id"] for i in data["per_item"]] == ["en04", "en05", "en06"]  # held out: not en01..en03
    systems = {(r["system"], r["n"]) for r in data["extra"]["table"]}
    assert systems == {(s, n) for s in ("rl", "textrank", "lead") for n in (7, 9)}
    for item in data["per_item"]:
        assert len(item["rl@7"].split()) <= 7 and len(item["lead@9"].split()) == 9
    assert 0 < data["metrics"]["rl@7/bertscore_f1"] <= 1
    assert "policy:k1/h32/state=rich/first-words" in data["signature"]
    assert "encoder:all-MiniLM-L6-v2" in data["signature"]


@pytest.mark.slow
def test_cross_validation_command(tmp_path):
    out, report = tmp_path / "cv.json", tmp_path / "cv.html"
    proc = run("train-summarizer", "--folds", "2", "--num-train", "6", "--epochs", "1", "--n", "7",
               "--reward", "bertscore(num_layers=5)", "-o", str(out), "--report", str(report))
    assert proc.returncode == 0, proc.stderr
    assert "held-out BERTScore F1, 2-fold cross-validation over 6 articles" in proc.stdout
    assert "rl vs" in proc.stdout and "significantly better than TextRank" in proc.stdout
    data = json.loads(out.read_text())
    assert data["task"] == "summarize-rl-cv" and data["inputs"]["folds"] == 2
    assert {c["against"] for c in data["extra"]["comparisons"]} == {"lead", "textrank"}
    assert "/L5" in data["signature"]  # the reward's num_layers reaches the reward model
    html = report.read_text()
    assert "training reward" in html and "sk-rl-compare" in html
