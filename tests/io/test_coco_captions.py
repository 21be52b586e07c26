"""COCO caption files (pycocoevalcap's results list and annotations object) read from their
content, for predictions and references alike; the scores equal pycocoevalcap's own COCOEvalCap
pipeline (pycocotools' COCO + loadRes, PTBTokenizer, Bleu, Rouge, Cider) on the same files."""

from __future__ import annotations

import json
import random
import shutil
import unicodedata

import pytest

from scorekit.cli import main
from scorekit.errors import InputError
from scorekit.io.captions import read_caption_set, read_predictions, read_references

WORDS = ("a man woman dog cat two is are riding playing sitting on in the a park beach wave surfboard "
         "red blue small big street table with of near next to grass water").split()


def _sentence(rng: random.Random) -> str:
    s = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))
    return s[0].upper() + s[1:] + rng.choice([".", "", " .", "!"])


def coco_files(tmp_path, seed: int, string_ids: bool, extra_images: int = 0):
    """An annotations file (several captions per image, interleaved as COCO's are) and a results
    file, with integer or string image ids."""
    rng = random.Random(seed)
    n = rng.randint(4, 12)
    ids = [f"COCO_val_{i:05d}" if string_ids else 100 + 7 * i for i in range(n + extra_images)]
    images = [{"id": i, "file_name": f"{i}.jpg"} for i in ids]
    anns, aid = [], 1
    for _ in range(rng.randint(1, 5)):  # rounds: image order shuffled, each image one caption
        for i in rng.sample(ids, len(ids)):
            anns.append({"image_id": i, "id": aid, "caption": _sentence(rng)})
            aid += 1
    results = [{"image_id": i, "caption": _sentence(rng)} for i in rng.sample(ids[:n], n)]
    ann_path, res_path = tmp_path / f"captions_{seed}.json", tmp_path / f"results_{seed}.json"
    ann_path.write_text(json.dumps({"info": {}, "images": images, "annotations": anns}))
    res_path.write_text(json.dumps(results))
    return ann_path, res_path, anns, results


def test_annotations_and_results_read_in_annotation_order(tmp_path):
    ann, res, anns, results = coco_files(tmp_path, 1, string_ids=False)
    refs = read_references(ann)
    for i in {a["image_id"] for a in anns}:
        assert refs[str(i)] == [a["caption"] for a in anns if a["image_id"] == i]
    assert read_predictions(res) == {str(r["image_id"]): r["caption"] for r in results}
    # an annotations file with one caption per image reads as predictions too
    one = tmp_path / "one.json"
    one.write_text(json.dumps({"images": [{"id": 1}], "annotations": [{"image_id": 1, "id": 1, "caption": "x"}]}))
    assert read_predictions(one) == {"1": "x"}
    # ... and a results file as references
    assert read_references(res) == {str(r["image_id"]): [r["caption"]] for r in results}


def test_annotated_images_without_prediction_are_left_out_as_pycocoevalcap(tmp_path):
    ann, res, anns, results = coco_files(tmp_path, 2, string_ids=True, extra_images=3)
    data = read_caption_set(res, ann)
    assert sorted(data.ids) == sorted(str(r["image_id"]) for r in results)
    assert data.n_missing_predictions == 0
    assert "3 annotated image(s) have no prediction and are not scored" in data.warnings[0]
    with pytest.raises(InputError, match="have no prediction"):
        read_caption_set(res, ann, strict=True)


def test_korean_coco_captions_are_nfc(tmp_path):
    nfd = unicodedata.normalize("NFD", "파도 위의 서퍼")
    ann = tmp_path / "ko.json"
    ann.write_text(json.dumps({"images": [{"id": "k1"}], "annotations": [
        {"image_id": "k1", "id": 1, "caption": nfd}, {"image_id": "k1", "id": 2, "caption": "바다"}]},
        ensure_ascii=False))
    res = tmp_path / "ko_res.json"
    res.write_text(json.dumps([{"image_id": "k1", "caption": nfd}], ensure_ascii=False))
    assert read_references(ann) == {"k1": ["파도 위의 서퍼", "바다"]}
    assert read_predictions(res)["k1"] == unicodedata.normalize("NFC", nfd)


@pytest.mark.parametrize("content,message", [
    ([{"image_id": 1}], "COCO result 1: expected an object with 'image_id' and 'caption'"),
    ([{"image_id": 1, "caption": "a"}, {"image_id": [2], "caption": "b"}], "COCO result 2: image_id must be"),
    ({"images": [], "annotations": [{"image_id": 1, "id": 1, "caption": 3}]},
     "COCO annotation 1: caption must be a string, got int"),
    ([{"image_id": 1, "caption": "a"}, {"image_id": 1, "caption": "b"}], "duplicate prediction id '1'"),
])
def test_errors_name_the_file_and_the_entry(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(content))
    with pytest.raises(InputError, match=message) as err:
        (read_references if "annotation" in message else read_predictions)(path)
    assert str(path) in str(err.value)


@pytest.mark.java
@pytest.mark.skipif(shutil.which("java") is None, reason="PTBTokenizer needs a Java runtime")
@pytest.mark.parametrize("seed,string_ids", [(3, False), (4, True), (5, False)])
def test_scores_equal_pycocoevalcap_pipeline_on_the_same_files(tmp_path, capsys, seed, string_ids):
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.rouge.rouge import Rouge
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer
    from pycocotools.coco import COCO

    ann, res, _, _ = coco_files(tmp_path, seed, string_ids, extra_images=2)
    # COCOEvalCap.evaluate(), without METEOR and SPICE (Java servers; METEOR has its own tests)
    coco = COCO(str(ann))
    coco_res = coco.loadRes(str(res))
    img_ids = coco_res.getImgIds()
    gts = {i: coco.imgToAnns[i] for i in img_ids}
    rs = {i: coco_res.imgToAnns[i] for i in img_ids}
    tok = PTBTokenizer()
    gts, rs = tok.tokenize(gts), tok.tokenize(rs)
    want = {}
    bleu, _ = Bleu(4).compute_score(gts, rs, verbose=0)
    want.update({f"bleu_{n + 1}": b for n, b in enumerate(bleu)})
    want["rouge_l_coco"], _ = Rouge().compute_score(gts, rs)
    want["cider"], _ = Cider().compute_score(gts, rs)

    out = tmp_path / "scores.json"
    code = main(["caption", "-p", str(res), "-r", str(ann), "--lang", "en", "-m", "bleu,rouge_l_coco,cider",
                 "-o", str(out), "-q"])
    _, err = capsys.readouterr()
    assert code == 0, err
    got = json.loads(out.read_text())
    assert got["inputs"]["n_items"] == len(img_ids)
    for k, v in want.items():
        assert got["metrics"][k] == pytest.approx(v, rel=1e-9, abs=1e-12), k
