"""CLIPScore / RefCLIPScore against torchmetrics' CLIPScore on a tiny random CLIP (conftest.py).

torchmetrics reports 100 * max(cos, 0) per pair (w = 100); Hessel's CLIP-S is 2.5 * max(cos, 0).
Oracle note (docs/neural.md): torchmetrics 1.9 divides ``model.get_*_features(...)`` by its norm,
but transformers 5 returns a ModelOutput there (the projected features are its ``pooler_output``);
the oracle wraps those two methods to return the tensor, nothing else.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

torch = pytest.importorskip("torch")
pytest.importorskip("torchmetrics")
pytest.importorskip("av")

from PIL import Image  # noqa: E402

from scorekit.errors import InputError, ScorekitError  # noqa: E402
from scorekit.neural.clipscore import CLIPScorer, clipscore  # noqa: E402


EN = ["a", "dog", "runs", "on", "the", "beach", "and", "sea", "cat", "red", "car", "sky"]
KO = ["바다", "파도", "하늘", "개가", "뛴다", "푸른"]
caption = st.one_of(
    st.lists(st.sampled_from(EN), min_size=1, max_size=5).map(" ".join),
    st.lists(st.sampled_from(KO), min_size=1, max_size=2).map(" ".join),
)


def _tensor_features(fn):
    def wrapped(*args, **kwargs):
        out = fn(*args, **kwargs)
        return out if isinstance(out, torch.Tensor) else out.pooler_output

    return wrapped


_metrics = {}


def tm_metric(model_dir):
    if model_dir not in _metrics:
        from torchmetrics.multimodal import CLIPScore

        m = CLIPScore(model_name_or_path=str(model_dir))
        m.model.get_text_features = _tensor_features(m.model.get_text_features)
        m.model.get_image_features = _tensor_features(m.model.get_image_features)
        _metrics[model_dir] = m
    return _metrics[model_dir]


def tm_cos(model_dir, source, target):
    """Raw 100 * cos from torchmetrics' own update step (images as CHW uint8 tensors)."""
    from torchmetrics.functional.multimodal.clip_score import _clip_score_update

    m = tm_metric(model_dir)
    with torch.no_grad():
        score, _ = _clip_score_update(source, target, m.model, m.processor)
    return score.detach().cpu().numpy().astype(np.float64) / 100


def tm_clip_score(model_dir, image_tensor, text) -> float:
    """torchmetrics' CLIPScore metric on a single pair: max(100 * cos, 0)."""
    m = tm_metric(model_dir)
    m.reset()
    with torch.no_grad():
        m.update(image_tensor, text)
        return float(m.compute())


def chw(img: Image.Image):
    return torch.from_numpy(np.array(img.convert("RGB"))).permute(2, 0, 1).contiguous()


images_st = st.lists(
    st.tuples(st.integers(8, 64), st.integers(8, 64), st.integers(0, 2**31 - 1)), min_size=1, max_size=4
).map(lambda specs: [
    Image.fromarray(np.random.default_rng(seed).integers(0, 256, (h, w, 3), dtype=np.uint8))
    for h, w, seed in specs
])


@settings(max_examples=12)
@given(images_st, st.data())
def test_clip_score_equals_torchmetrics(tiny_clip_dir, images, data):
    caps = data.draw(st.lists(caption, min_size=len(images), max_size=len(images)))
    out = CLIPScorer(tiny_clip_dir).score(images, caps)
    cos = tm_cos(tiny_clip_dir, [chw(im) for im in images], caps)
    np.testing.assert_allclose(out.clip_score, 2.5 * np.maximum(cos, 0), atol=1e-5, rtol=0)
    for k, (im, cap) in enumerate(zip(images, caps)):
        assert out.clip_score[k] / 2.5 * 100 == pytest.approx(tm_clip_score(tiny_clip_dir, chw(im), cap), abs=1e-3)


@settings(max_examples=15)
@given(images_st, st.data())
def test_ref_clip_score_is_the_harmonic_mean(tiny_clip_dir, images, data):
    n = len(images)
    caps = data.draw(st.lists(caption, min_size=n, max_size=n))
    refs = data.draw(st.lists(st.lists(caption, min_size=1, max_size=3), min_size=n, max_size=n))
    out = CLIPScorer(tiny_clip_dir).score(images, caps, refs)
    clip = 2.5 * np.maximum(tm_cos(tiny_clip_dir, [chw(im) for im in images], caps), 0)
    for k in range(n):
        text = max(float(tm_cos(tiny_clip_dir, [caps[k]] * len(refs[k]), refs[k]).max()), 0.0)
        want = 0.0 if clip[k] + text == 0 else 2 * clip[k] * text / (clip[k] + text)
        assert out.ref_clip_score[k] == pytest.approx(want, abs=1e-5)
        assert out.ref_clip_score[k] <= max(clip[k], text) + 1e-9


def test_files_pil_and_result(tiny_clip_dir, tmp_path):
    rng = np.random.default_rng(1)
    pil = [Image.fromarray(rng.integers(0, 256, (20, 30, 3), dtype=np.uint8)) for _ in range(3)]
    paths = []
    for i, im in enumerate(pil):
        paths.append(tmp_path / f"img{i}.png")
        im.save(paths[-1])
    caps = ["a dog on the beach", "푸른 바다", "the red car"]
    scorer = CLIPScorer(tiny_clip_dir)
    np.testing.assert_allclose(scorer.score(paths, caps).clip_score, scorer.score(pil, caps).clip_score, atol=1e-9)
    res = clipscore([str(p) for p in paths], caps, [["a dog"], ["바다"], ["a car", "sky"]],
                    model=tiny_clip_dir, ids=["a", "b", "c"])
    assert res.task == "clipscore" and set(res.metrics) == {"clip_score", "ref_clip_score"}
    assert res.metrics["clip_score"] == pytest.approx(float(np.mean([r["clip_score"] for r in res.per_item])))
    assert res.signature.startswith("task:clipscore|model:") and "w:2.5|refs:yes" in res.signature
    res.to_json()


def test_video_is_the_mean_over_uniform_frames(tiny_clip_dir, tmp_path, make_video):
    path = make_video(tmp_path / "v", n_frames=20, size=(40, 40))
    from scorekit.neural.video import sample_frames

    frames = sample_frames(path, 4)
    scorer = CLIPScorer(tiny_clip_dir)
    cap = "a dog runs"
    out = scorer.score_videos([path, frames], [cap, cap], num_frames=4)
    per_frame = 2.5 * np.maximum(tm_cos(tiny_clip_dir, [chw(f) for f in frames], [cap] * 4), 0)
    assert out.clip_score[0] == pytest.approx(per_frame.mean(), abs=1e-5)
    assert out.clip_score[1] == pytest.approx(per_frame.mean(), abs=1e-5)
    assert "frames:4" in out.signature
    res = clipscore(None, [cap], [["the sea"]], model=tiny_clip_dir, videos=[path], num_frames=4)
    assert res.per_item[0]["clip_score"] == pytest.approx(per_frame.mean(), abs=1e-5)


def test_long_caption_is_truncated_and_signed(tiny_clip_dir):
    img = Image.new("RGB", (16, 16), (10, 200, 30))
    out = CLIPScorer(tiny_clip_dir).score([img, img], ["바다 " * 30, "sea"])
    assert "trunc:40|" in out.signature and "truncated:1|" in out.signature
    assert np.all(np.isfinite(out.clip_score))


def test_spec_logit_shortcut_is_not_clip_score(tiny_clip_dir):
    """caption-metrics.md §5.3 scales logits_per_image (= exp(logit_scale) * cos) by 2.5."""
    from transformers import CLIPModel, CLIPProcessor

    img = Image.fromarray(np.random.default_rng(3).integers(0, 256, (32, 32, 3), dtype=np.uint8))
    model = CLIPModel.from_pretrained(tiny_clip_dir)
    proc = CLIPProcessor.from_pretrained(tiny_clip_dir)
    with torch.inference_mode():
        logits = model(**proc(text=["a dog"], images=[img], return_tensors="pt", padding=True)).logits_per_image
    cos = float(logits[0, 0]) / float(model.logit_scale.detach().exp())
    ours = CLIPScorer(tiny_clip_dir).score([img], ["a dog"]).clip_score[0]
    assert ours == pytest.approx(2.5 * max(cos, 0.0), abs=1e-5)


def test_bad_inputs_name_the_file(tiny_clip_dir, tmp_path):
    scorer = CLIPScorer(tiny_clip_dir)
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"not an image")
    with pytest.raises(InputError, match="broken.jpg: cannot read image"):
        scorer.score([bad], ["a dog"])
    with pytest.raises(InputError, match="nope.png: image file not found"):
        scorer.score([tmp_path / "nope.png"], ["a dog"])
    vid = tmp_path / "broken.mp4"
    vid.write_bytes(b"garbage" * 50)
    with pytest.raises(InputError, match="broken.mp4: cannot read video"):
        scorer.score_videos([vid], ["a dog"])
    with pytest.raises(ScorekitError, match="1 images but 2 candidates"):
        scorer.score([Image.new("RGB", (8, 8))], ["a", "b"])
    with pytest.raises(ScorekitError, match="nothing to score"):
        clipscore([], [], model=tiny_clip_dir)


def test_model_directory_errors(tmp_path):
    from scorekit.neural.encoder import default_model_path

    (tmp_path / "x.txt").write_text("x")
    with pytest.raises(InputError, match="not a Hugging Face model directory"):
        CLIPScorer(tmp_path)
    with pytest.raises(InputError, match="cannot load a CLIP model"):
        CLIPScorer(default_model_path())
