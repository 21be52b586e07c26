"""sacrebleu's conventions in `scorekit caption`: `-m "bleu(mode=sacrebleu)" --scale 100` prints sacrebleu's
BLEU, its breakdown and chrF on sacrebleu's 0-100 scale, with the same numbers as sacrebleu on the
same files (English and Korean, NFD input read as NFC)."""

from __future__ import annotations

import json
import random
import unicodedata

import pytest

from scorekit.cli import main

sacrebleu = pytest.importorskip("sacrebleu")

EN = "a man dog the on riding red bike wave surfs . , !".split()
KO = "바다 파도 가 하얀 푸른 해변 에 치다 . 서퍼 는".split()


def _files(tmp_path, vocab, seed, nfd=False):
    rng = random.Random(seed)
    n = rng.randint(3, 15)
    say = lambda: " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 12)))  # noqa: E731
    preds = {f"i{i}": say() for i in range(n)}
    refs = {f"i{i}": [say() for _ in range(2)] for i in range(n)}
    form = (lambda t: unicodedata.normalize("NFD", t)) if nfd else (lambda t: t)
    (tmp_path / "p.json").write_text(json.dumps({k: form(v) for k, v in preds.items()}, ensure_ascii=False))
    (tmp_path / "r.json").write_text(json.dumps({k: [form(r) for r in v] for k, v in refs.items()},
                                                ensure_ascii=False))
    return preds, refs


def K(key: str) -> str:
    """A BLEU key as the results key it: as written, bleu(mode=sacrebleu)."""
    return f"{key}(mode=sacrebleu)"


def _run(tmp_path, capsys, *extra):
    out = tmp_path / "o.json"
    code = main(["caption", "-p", str(tmp_path / "p.json"), "-r", str(tmp_path / "r.json"), "--lang", "en",
                 "-m", "bleu(mode=sacrebleu),chrf", "--tokenizer", "13a", "-o", str(out), "-q", *extra])
    _, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out.read_text())


@pytest.mark.parametrize("vocab,nfd", [(EN, False), (KO, True)], ids=["en", "ko-nfd"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_scale_100_equals_sacrebleu(tmp_path, capsys, vocab, nfd, seed):
    preds, refs = _files(tmp_path, vocab, seed, nfd)
    hyps = list(preds.values())
    streams = [[refs[k][j] for k in preds] for j in range(2)]
    bleu = sacrebleu.corpus_bleu(hyps, streams)
    chrf = sacrebleu.corpus_chrf(hyps, streams)
    got = _run(tmp_path, capsys, "--scale", "100")
    m = got["metrics"]
    # x100 of the [0, 1] values: sacrebleu's numbers to the last bit or one unit in the last place
    same = lambda a, b: a == pytest.approx(b, rel=1e-15, abs=1e-13)  # noqa: E731
    assert same(m[K("bleu_4")], bleu.score) and same(m["chrf"], chrf.score)
    assert all(same(m[K(f"bleu_precision_{n}")], p) for n, p in zip(range(1, 5), bleu.precisions))
    assert (m[K("bleu_bp")], m[K("bleu_ratio")], m[K("bleu_hyp_len")], m[K("bleu_ref_len")]) == (
        bleu.bp, bleu.ratio, bleu.sys_len, bleu.ref_len)
    # bleu_n is sacrebleu's BLEU with max_ngram_order n, not the n-gram precision
    for n in range(1, 4):
        want = sacrebleu.metrics.BLEU(max_ngram_order=n).corpus_score(hyps, streams).score
        assert same(m[K(f"bleu_{n}")], want)
    assert "|scale:100|" in got["signature"]
    # per item: sacrebleu's sentence BLEU on the same scale
    row = got["per_item"][0]
    assert same(row[K("bleu_4")], sacrebleu.sentence_bleu(hyps[0], [s[0] for s in streams]).score)
    # the default scale is sacrebleu's / 100, the rest unchanged, no scale in the signature
    one = _run(tmp_path, capsys)
    assert one["metrics"][K("bleu_4")] == pytest.approx(bleu.score / 100, rel=1e-15)
    assert one["metrics"][K("bleu_bp")] == bleu.bp and "scale" not in one["signature"]


def test_scale_leaves_other_metrics_and_coco_bleu_alone(tmp_path, capsys):
    _files(tmp_path, EN, 4)
    out1, out100 = tmp_path / "a.json", tmp_path / "b.json"
    for out, scale in ((out1, "1"), (out100, "100")):
        code = main(["caption", "-p", str(tmp_path / "p.json"), "-r", str(tmp_path / "r.json"), "--lang", "en",
                     "-m", "bleu,rouge_l,chrf", "-o", str(out), "-q", "--scale", scale])
        assert code == 0, capsys.readouterr().err
    a, b = json.loads(out1.read_text())["metrics"], json.loads(out100.read_text())["metrics"]
    assert a["bleu_4"] == b["bleu_4"] and a["rouge_l"] == b["rouge_l"] and "bleu_bp" not in a
    assert b["chrf"] == pytest.approx(100 * a["chrf"], rel=1e-15)
