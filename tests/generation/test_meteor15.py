"""meteor15 against the Meteor 1.5 jar (pycocoevalcap's, run through Java) as the oracle.

Each test batches all its segments into one JVM session (``SCORE`` lines, then one ``EVAL`` line,
exactly what pycocoevalcap's ``Meteor.compute_score`` sends) and compares the 23 sufficient
statistics of every segment exactly, the segment scores and the system score within 1e-9.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekit.errors import MissingDependencyError
from scorekit.generation import meteor15_resources as R

pytestmark = pytest.mark.java


def _jar() -> Path | None:
    try:
        return R.locate().jar
    except MissingDependencyError:
        return None


JAR = _jar()
needs_jar = pytest.mark.skipif(JAR is None or shutil.which("java") is None,
                               reason="needs Java and pycocoevalcap's meteor-1.5.jar")


def run_jar(hyps: list[str], refs: list[list[str]]) -> tuple[np.ndarray, np.ndarray, float]:
    """One JVM: pycocoevalcap's SCORE lines, then its EVAL line -> (stats, segment scores, system)."""
    proc = subprocess.Popen(["java", "-jar", "-Xmx2G", str(JAR), "-", "-", "-stdio", "-l", "en", "-norm"],
                            cwd=JAR.parent, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    lines = []
    for h, rs in zip(hyps, refs):
        h = h.replace("|||", "").replace("  ", " ")
        lines.append(" ||| ".join(("SCORE", " ||| ".join(rs), h)))
    writer = threading.Thread(target=lambda: (proc.stdin.write(("\n".join(lines) + "\n").encode()),
                                              proc.stdin.flush()))
    writer.start()
    stats = [proc.stdout.readline().decode().strip() for _ in hyps]
    writer.join()
    proc.stdin.write(("EVAL ||| " + " ||| ".join(stats) + "\n").encode())
    proc.stdin.close()
    out = proc.stdout.read().decode().split("\n")
    proc.wait()
    segs = np.array([float(x) for x in out[: len(hyps)]])
    return np.array([[float(x) for x in s.split()] for s in stats]), segs, float(out[len(hyps)])


def check(hyps, refs, scorer=None):
    from scorekit.generation.meteor15 import Meteor15

    ours = (scorer or Meteor15()).score(hyps, refs)
    stats, segs, system = run_jar(hyps, refs)
    bad = [k for k in range(len(hyps)) if not np.array_equal(stats[k], ours.stats[k])]
    assert not bad, (f"{len(bad)}/{len(hyps)} segments differ; first: {hyps[bad[0]]!r} vs "
                     f"{refs[bad[0]]!r}: jar {stats[bad[0]].tolist()} ours {ours.stats[bad[0]].tolist()}")
    assert np.max(np.abs(segs - ours.scores)) <= 1e-9
    assert abs(system - ours.score) <= 1e-9
    return ours


# Vocabulary that exercises every stage: inflections (stem), WordNet synonyms, phrases of the
# paraphrase table (man/men/people/person, car/automobile/vehicle, big/large/great, next to/near/
# close to, on top of/above, in front of/before, photo/picture/image), function words, repeats.
WORDS = ("a a a the the an two some is are of with and to in on at by man men woman women person "
         "people human male female boy girl child children kid baby dog dogs puppy cat street "
         "streets road roads car cars automobile vehicle bus sitting sits sat seated standing stands "
         "holding holds hold held riding rides ride walking walks walked running runs run ran large "
         "big great small little young old tall beach photo picture image photograph near close next "
         "top front before above alongside behind together plate food pizza table field grass "
         "playing plays play looking looks watching").split()
PHRASES = ("next to", "close to", "on top of", "in front of", "a lot of", "in addition to",
           "side by side with", "the streets", "human beings", "of dogs", "of children")
PUNCT = ("", "", "", "", ",", ".", "!", "?", "'s", "s", " .", "...", ";", ":", "'")
EXTRA = ("U.S.", "e.g.", "Mr.", "1,000", "3.5", "don't", "it's", "--", "\u2013", "\u201cquoted\u201d",
         "\u2018single\u2019", "(parens)", "co-op", "well-known", "A", "DOG", "Man", "No.", "9", "St.",
         "''", "``", "&", "$5", "dogs'", "90's", "x-ray", "MAN'S")


def sentence(rng: random.Random) -> str:
    toks = []
    for _ in range(rng.randint(0, 14)):
        kind = rng.randint(0, 9)
        w = rng.choice(WORDS) if kind <= 6 else rng.choice(PHRASES) if kind == 7 else rng.choice(EXTRA)
        toks.append(w + rng.choice(PUNCT))
    return " ".join(toks)


# Hypothesis draws the seed of a whole 200-segment set: one JVM session per example keeps the
# test fast, and a set this large would overflow Hypothesis' own example buffer.
@needs_jar
@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32 - 1))
def test_random_caption_sets_equal_the_jar(seed):
    rng = random.Random(seed)
    hyps = [sentence(rng) for _ in range(200)]
    check(hyps, [[sentence(rng) for _ in range(rng.randint(1, 5))] for _ in hyps])


@needs_jar
def test_seeded_sets_with_heavy_overlap_equal_the_jar():
    """Hypotheses made from their references (shuffled, inflected, synonyms swapped) so the beam
    search has many competing matches; 600 segments."""
    rng = random.Random(7)
    swaps = {"man": "person", "big": "large", "car": "automobile", "photo": "picture", "near": "close to",
             "dog": "dogs", "sitting": "sits", "street": "road", "on": "on top of", "child": "kid"}
    hyps, refs = [], []
    for _ in range(600):
        rs = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 13))) for _ in range(rng.randint(1, 5))]
        base = rng.choice(rs).split()
        out = [swaps.get(w, w) if rng.random() < 0.5 else w for w in base]
        for _ in range(rng.randint(0, 4)):
            i, j = rng.randrange(len(out)), rng.randrange(len(out))
            out[i], out[j] = out[j], out[i]
        if rng.random() < 0.3:
            out = out + out[: rng.randint(1, 4)]
        hyps.append(" ".join(out))
        refs.append(rs)
    check(hyps, refs)


@needs_jar
def test_coco_ptb_tokenised_inputs_equal_the_jar():
    """What COCOEvalCap feeds Meteor: PTB-tokenised, lowercased, punctuation-free captions (the
    tokens of scorekit's coco tokenizer, joined by spaces)."""
    from benchmarks.bench_caption import data
    from scorekit.text.tokenizers import tokenize_batch

    preds, refs = data(400, seed=3)
    toks = tokenize_batch(preds + [r for rs in refs for r in rs], "coco")
    hyps = [" ".join(t) for t in toks[: len(preds)]]
    pos, tref = len(preds), []
    for rs in refs:
        tref.append([" ".join(t) for t in toks[pos:pos + len(rs)]])
        pos += len(rs)
    check(hyps, tref)


@needs_jar
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_parts_on_forked_processes_equal_the_jar(monkeypatch):
    """A large batch is split over the cores (scorekit.forkmap), each part tokenising (the COCO
    tokenizer) and aligning its own captions; the rows are still the jar's, and the caption
    metric gives the same, whether the batch was tokenised before or inside the parts."""
    from benchmarks.bench_caption import data
    from scorekit import forkmap
    from scorekit.generation import meteor15 as M
    from scorekit.metrics import get_metric
    from scorekit.text.english import coco_tokenize

    forks = []
    real = forkmap.os.fork
    monkeypatch.setattr(forkmap.os, "fork", lambda: forks.append(1) or real())
    monkeypatch.setattr(M, "MIN_PAIRS_PER_PROCESS", 40)
    monkeypatch.setenv("SCOREKIT_WORKERS", "3")
    preds, refs = data(300, seed=5)
    ours = M.Meteor15().score(preds, refs, tokenize=coco_tokenize)
    assert len(forks) == 2
    join = lambda text: " ".join(coco_tokenize(text))  # noqa: E731
    stats, segs, system = run_jar([join(p) for p in preds], [[join(r) for r in rs] for rs in refs])
    assert np.array_equal(stats, ours.stats)
    assert np.max(np.abs(segs - ours.scores)) <= 1e-9 and abs(system - ours.score) <= 1e-9
    m = get_metric("caption", "meteor15")
    assert m((preds, refs))["meteor15"] == ours.score


@needs_jar
def test_edge_cases_equal_the_jar():
    hyps = ["", "a", "a dog", "the the the", "A man riding a wave on top of a surfboard.",
            "a man a man a man", "people", "|||a ||| dog", "x", "Dog's owner isn't here... really",
            "\u00e9t\u00e9 caf\u00e9 na\u00efve", "\ud55c\uad6d\uc5b4 \ubb38\uc7a5 \uc785\ub2c8\ub2e4",
            "\u043f\u0440\u0438\u0432\u0435\u0442 \u043c\u0438\u0440", "U.S.-based co. Inc. No. 5",
            "1,000,000 people , 3.14 . dogs", "a  b   c", "\t tabbed\ttext "]
    refs = [["a dog"], ["a"], ["a dog"], ["the"], ["A man on top of a surfboard riding a wave"],
            ["a man", "a person"], ["man"], ["a dog"], [""], ["the dog's owner is not here"],
            ["caf\u00e9 \u00e9t\u00e9"], ["\ud55c\uad6d\uc5b4 \ubb38\uc7a5"], ["\u043c\u0438\u0440"],
            ["US based company No. 5"], ["1,000,000 persons"], ["a b c"], ["tabbed text"]]
    check(hyps, refs)


SOUP = "abc dog ,.'-\u2019\u201c\"()!?0123456789 \uac00\ub098\u00e9A\u2013`;:&$%"


@needs_jar
@settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32 - 1))
def test_arbitrary_text_and_korean_equal_the_jar(seed):
    """The normaliser on punctuation soup, digits and Hangul (Meteor treats Hangul as symbols)."""
    rng = random.Random(seed)
    text = lambda: "".join(rng.choice(SOUP) for _ in range(rng.randint(0, 30)))  # noqa: E731
    hyps = [text() for _ in range(150)]
    check(hyps, [[text() for _ in range(rng.randint(1, 3))] for _ in hyps])


# ----------------------------------------------------------------------------- without Java
def test_snowball_matches_known_jar_stems():
    from scorekit.generation.meteor15_text import snowball_english

    # pinned against `java -cp meteor-1.5.jar Stemmer en` (nltk gives realize, irrate, ...)
    cases = {"realization": "realiz", "irrationality": "irrat", "running": "run", "dogs": "dog",
             "generously": "generous", "communication": "communic", "skies": "sky", "news": "news",
             "succeeding": "succeed", "'tis": "tis", "by": "by", "cry": "cri", "happily": "happili"}
    assert {w: snowball_english(w) for w in cases} == cases


def test_aggregate_skips_chunks_of_perfect_segments():
    from scorekit.generation.meteor15 import aggregate, segment_scores

    perfect = np.zeros(23)
    perfect[[0, 1]] = 3
    perfect[[4, 5]] = 3
    perfect[20:23] = [1, 3, 3]
    assert segment_scores(perfect[None])[0] == pytest.approx(1.0 * (1 - 0.0))  # frag 0
    other = perfect.copy()
    other[20] = 2
    agg = aggregate(np.stack([perfect, other]))
    assert agg[20] == 2 and agg[0] == 6


def test_missing_resources_message_names_both_ways(tmp_path, monkeypatch):
    monkeypatch.setenv(R.ENV_VAR, str(tmp_path))
    with pytest.raises(MissingDependencyError) as err:
        R.locate()
    msg = str(err.value)
    assert "\n" not in msg and "pycocoevalcap" in msg and "meteor15(resources=DIR)" in msg and R.ENV_VAR in msg


def test_missing_resources_cli_one_line_exit_2(tmp_path):
    preds, refs = tmp_path / "p.json", tmp_path / "r.json"
    preds.write_text('{"1": "a dog"}')
    refs.write_text('{"1": ["a dog runs"]}')
    out = tmp_path / "o.json"
    proc = subprocess.run([sys.executable, "-m", "scorekit", "caption", "-p", str(preds), "-r", str(refs), "--lang", "en",
                           "--metrics", f"meteor15(resources={tmp_path / 'nowhere'})",
                           "-o", str(out)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", "")})
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "pycocoevalcap" in proc.stderr
    assert not out.exists()


def test_metric_class_merges_shards_like_one_batch():
    """The registered caption Metric: statistics per item, corpus value from merged statistics
    (so two shards give exactly the one-batch system score, not a mean of means)."""
    from scorekit.generation.meteor15 import Meteor15
    from scorekit.metrics import describe, get_metric

    rng = random.Random(11)
    hyps = [sentence(rng) for _ in range(40)]
    refs = [[sentence(rng) for _ in range(rng.randint(1, 4))] for _ in hyps]
    from scorekit.text.tokenizers import tokenize_batch

    # the caption metric scores the COCO (PTB) tokens joined by spaces, as COCOEvalCap sends them
    join = lambda texts: [" ".join(t) for t in tokenize_batch(texts, "coco")]  # noqa: E731
    whole = Meteor15().score(join(hyps), [join(rs) for rs in refs])
    m = get_metric("caption", "meteor15")
    m.update((hyps[:15], refs[:15])).update((hyps[15:], refs[15:]))
    assert m.compute()["meteor15"] == whole.score
    assert np.array_equal(m.item_scores(m.state())["meteor15"], whole.scores)
    info = describe("meteor15", "caption")
    assert info is not None and info.corpus and info.kind == "rate"


@pytest.mark.skipif(JAR is None, reason="needs pycocoevalcap's meteor-1.5.jar")
def test_resources_from_option_env_or_jar_agree(tmp_path, monkeypatch):
    """A Meteor distribution folder, the jar itself and the environment variable all find the
    same files (same content hashes in the signature)."""
    monkeypatch.delenv(R.ENV_VAR, raising=False)
    default = R.locate()
    folder = R.locate(JAR.parent)
    jar = R.locate(JAR)
    monkeypatch.setenv(R.ENV_VAR, str(JAR.parent))
    env = R.locate()
    assert default.jar == folder.jar == jar.jar == env.jar
    assert default.paraphrase == folder.paraphrase == jar.paraphrase == env.paraphrase
    assert R.load(JAR.parent).fingerprint() == R.load().fingerprint()


def _dict_synonyms(syn: bytes, exc: bytes):
    """SynonymDictionary the plain way (two HashMaps, morph by dictionary lookups): the oracle
    for the compiled arrays."""
    from scorekit.generation.meteor15_text import java_tokens

    lines = R._lines(syn)
    raw = dict(zip(lines[0::2], lines[1::2]))
    bases: dict[str, list[str]] = {}
    el = R._lines(exc)
    for base, forms in zip(el[0::2], el[1::2]):
        for form in java_tokens(forms):
            bases.setdefault(form, []).append(base)

    def synsets(w):
        line = raw.get(w)
        return frozenset() if line is None else frozenset(int(t) for t in line.split())

    def morph(w):
        if w.endswith("ss") or len(w.encode("utf-16-le", "surrogatepass")) <= 4:
            return w
        for suf, add in zip(R.Synonyms._SUFX, R.Synonyms._ADDR):
            if w.endswith(suf) and w[: len(w) - len(suf)] + add in raw:
                return w[: len(w) - len(suf)] + add
        return ""

    def all_synsets(w):
        stem = (frozenset().union(*map(synsets, bases[w])) if w in bases else synsets(morph(w)))
        return synsets(w) | stem

    return raw, bases, all_synsets


@needs_jar
def test_small_tables_cached_equal_parsed_and_dictionary(tmp_path, monkeypatch):
    """Function words, prefixes, synonyms and hashes: parsed on the first run, memory-mapped from
    the cache after; both give every word the synsets the plain dictionaries give, and a damaged
    cache is parsed again (same content)."""
    monkeypatch.setenv("SCOREKIT_CACHE", str(tmp_path / "cache"))
    src = R.locate(JAR)
    cold = R._small_tables(src)
    folder = R._small_folder(src)
    assert folder is not None and (folder / "small.json").is_file()
    warm = R._small_tables(src)
    assert isinstance(warm[2].keys, np.ndarray) and warm[2] is not cold[2]
    raw, bases, oracle = _dict_synonyms(src.read(R.FILES[1]), src.read(R.FILES[2]))
    rng = random.Random(7)
    words = rng.sample(sorted(raw), 3000) + rng.sample(sorted(bases), 500) + [
        w + suf for w in rng.sample(sorted(raw), 800) for suf in ("s", "es", "ies", "ing", "ed", "er", "est", "men")
    ] + ["", "a", "ox", "naïve", "데이터", "x\x00", "running", "mice", "geese", "glasses", "\ud800s"]
    rng.shuffle(words)
    warm[2].preload(words[: len(words) // 2])
    bad = [w for w in words if not (cold[2].all_synsets(w) == warm[2].all_synsets(w) == oracle(w))]
    assert not bad, bad[:5]
    assert sum(bool(oracle(w)) for w in words) > 2000        # the sample does reach WordNet
    assert cold[0] == warm[0] and cold[1] == warm[1] and cold[3] == warm[3] and cold[2].bases == warm[2].bases
    assert cold[3] == {n: R._sha(src.read(n)) for n in R.FILES}
    (folder / "syn_ids.npy").write_bytes(b"garbage")
    again = R._small_tables(src)
    assert again[3] == cold[3] and all(again[2].all_synsets(w) == oracle(w) for w in words[:500])


@needs_jar
def test_small_tables_from_a_resources_folder(tmp_path, monkeypatch):
    """A source checkout (resources/ folder) is keyed by its files' hashes and reads the same."""
    import zipfile

    monkeypatch.setenv("SCOREKIT_CACHE", str(tmp_path / "cache"))
    dist = tmp_path / "meteor"
    with zipfile.ZipFile(JAR) as z:
        for name in R.FILES:
            (dist / "resources" / name).parent.mkdir(parents=True, exist_ok=True)
            (dist / "resources" / name).write_bytes(z.read(name))
    (dist / "data").mkdir()
    (dist / "data" / "paraphrase-en.gz").symlink_to(R.locate(JAR).paraphrase)
    src = R.locate(dist)
    assert src.jar is None
    first, second = R._small_tables(src), R._small_tables(src)
    assert R._small_folder(src).is_dir()
    from_jar = R._small_tables(R.locate(JAR))
    assert first[3] == second[3] == from_jar[3] and first[0] == from_jar[0]
    (dist / "resources" / R.FILES[0]).write_bytes(b"a\nthe\nof\n")     # another file, another key
    changed = R._small_tables(R.locate(dist))
    assert changed[0] == frozenset({"a", "the", "of"}) and changed[3] != first[3]


def test_korean_is_refused_in_one_line(tmp_path):
    preds, refs = tmp_path / "p.json", tmp_path / "r.json"
    preds.write_text('{"1": "\ud30c\ub780 \ubc14\ub2e4"}')
    refs.write_text('{"1": ["\ud478\ub978 \ubc14\ub2e4"]}')
    proc = subprocess.run([sys.executable, "-m", "scorekit", "caption", "-p", str(preds), "-r", str(refs), "--lang", "ko",
                           "--metrics", "meteor15"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "English" in proc.stderr
