"""`scorekit caption` end to end with the neural metrics: CLIPScore on images and videos through a
tiny offline CLIP, BERTScore on the shipped MiniLM — the same numbers as the Python API."""

import json
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

pytest.importorskip("torch")


def run(*args):
    return subprocess.run([sys.executable, "-m", "scorekit", "caption", *args], capture_output=True, text=True)


@pytest.fixture
def caption_set(tmp_path):
    preds = {"a": "a red square", "b": "a blue circle on grass", "c": "빨간 사각형"}
    refs = {"a": ["a red box", "red square"], "b": ["a blue ball on the lawn"], "c": ["붉은 네모", "빨간 상자"]}
    (tmp_path / "p.json").write_text(json.dumps(preds, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "r.json").write_text(json.dumps(refs, ensure_ascii=False), encoding="utf-8")
    return tmp_path, preds, refs


def test_clipscore_images_via_cli_equals_api(caption_set, tiny_clip_dir):
    from scorekit.neural.clipscore import CLIPScorer

    tmp, preds, refs = caption_set
    img_dir = tmp / "images"
    img_dir.mkdir()
    rng = np.random.default_rng(0)
    for i in preds:
        Image.fromarray(rng.integers(0, 255, (32, 32, 3), dtype=np.uint8)).save(img_dir / f"{i}.png")
    out = tmp / "res.json"
    proc = run("-p", str(tmp / "p.json"), "-r", str(tmp / "r.json"), "--lang", "en", "--metrics",
               f"clipscore(model={tiny_clip_dir})", "--images", str(img_dir), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    ids = list(preds)
    api = CLIPScorer(tiny_clip_dir).score([img_dir / f"{i}.png" for i in ids], [preds[i] for i in ids],
                                          [refs[i] for i in ids])
    by_id = {row["id"]: row for row in data["per_item"]}
    clip, ref = f"clipscore(model={tiny_clip_dir})", f"refclipscore(model={tiny_clip_dir})"   # keyed as written
    np.testing.assert_allclose([by_id[i][clip] for i in ids], api.clip_score, atol=1e-6)
    np.testing.assert_allclose([by_id[i][ref] for i in ids], api.ref_clip_score, atol=1e-6)
    assert data["metrics"][clip] == pytest.approx(float(np.mean(api.clip_score)), abs=1e-6)


def test_clipscore_video_and_missing_media(caption_set, tiny_clip_dir, make_video):
    tmp, preds, _ = caption_set
    vid_dir = tmp / "videos"
    vid_dir.mkdir()
    for i in preds:
        make_video(vid_dir / f"{i}.mkv")
    proc = run("-p", str(tmp / "p.json"), "-r", str(tmp / "r.json"), "--lang", "en", "--metrics",
               f"clipscore(model={tiny_clip_dir})", "--videos", str(vid_dir), "-o", str(tmp / "v.json"))
    assert proc.returncode == 0, proc.stderr
    assert all(0 <= row[f"clipscore(model={tiny_clip_dir})"] <= 2.5 for row in json.loads((tmp / "v.json").read_text())["per_item"])
    (vid_dir / "c.mkv").unlink()
    proc = run("-p", str(tmp / "p.json"), "-r", str(tmp / "r.json"), "--lang", "en", "--metrics",
               f"clipscore(model={tiny_clip_dir})", "--videos", str(vid_dir), "-o", str(tmp / "w.json"))
    assert proc.returncode == 2 and "no video file for 1 id(s): 'c'" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp / "w.json").exists()


def test_bertscore_via_cli_equals_api(caption_set):
    from scorekit.neural.bertscore import BERTScorer

    tmp, preds, refs = caption_set
    out = tmp / "b.json"
    proc = run("-p", str(tmp / "p.json"), "-r", str(tmp / "r.json"), "--lang", "en", "--metrics", "bertscore_f1", "-o", str(out),
               "--allow-english-model")  # the set has Hangul: MiniLM is refused without it (#15)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    ids = list(preds)
    api = BERTScorer(allow_english_model=True).score([preds[i] for i in ids], [refs[i] for i in ids])
    by_id = {row["id"]: row for row in data["per_item"]}
    np.testing.assert_allclose([by_id[i]["bertscore_f1"] for i in ids], api.f1, atol=1e-6)


def test_korean_with_the_english_model_is_refused_or_skipped(caption_set):
    tmp, _, _ = caption_set
    proc = run("-p", str(tmp / "p.json"), "-r", str(tmp / "r.json"), "--lang", "ko", "--metrics", "bertscore_f1")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "cannot read Hangul" in proc.stderr
    assert '-m "bertscore(model=PATH)"' in proc.stderr and "--bert-model" not in proc.stderr   # what caption takes
    out = tmp / "d.json"
    proc = run("-p", str(tmp / "p.json"), "-r", str(tmp / "r.json"), "--lang", "ko", "-o", str(out))
    assert proc.returncode == 0 and "skipped bertscore" in proc.stderr
    data = json.loads(out.read_text())
    assert "bertscore_f1" not in data["metrics"]
    assert all(r["metric"] != "bertscore_f1" or r["value"] is None for r in data["extra"]["report"]["targets"])


def test_two_bertscore_models_are_both_pinned_in_the_signature(tmp_path):
    """`bertscore` and `bertscore(model=DIR)` share the canonical spec `bertscore` (a folder is
    pinned by its model's name): the signature keeps both models' pins, not the last one's, in
    caption and summary results alike."""
    from scorekit.generation import evaluate
    from scorekit.neural.encoder import default_model_path
    from scorekit.signature import parse_signature
    from scorekit.summarization.metrics import summary_metrics

    other = tmp_path / "other-minilm"     # the same weights under another folder name
    other.mkdir()
    for f in default_model_path().iterdir():
        (other / f.name).symlink_to(f, target_is_directory=f.is_dir())
    preds, refs = ["a red square", "a blue circle"], [["a red box"], ["a blue ball"]]
    names = ["bertscore_f1", f"bertscore_f1(model={other})"]
    res = evaluate(preds, refs, lang="en", metrics=names)
    field = parse_signature(res.signature)["bertscore"]
    assert field.count(" + ") == 1 and "other-minilm" in field and "all-MiniLM-L6-v2" in field, field
    summ = summary_metrics(preds, [r[0] for r in refs], metrics=["bertscore", f"bertscore(model={other})"])
    field = parse_signature(summ.signature)["bertscore"]
    assert "other-minilm" in field and "all-MiniLM-L6-v2" in field, field
