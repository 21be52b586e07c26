"""Korean morphological analysis through Kiwi (kiwipiepy + kiwipiepy-model, offline).

The spec's Okt needs a JVM and is slower; Kiwi gives surface morphs, lemma forms (``자`` -> ``자다``)
for stem matching, and Sejong POS tags so particles (조사, ``J*``) and punctuation (``S[FPSEOW]``)
can be dropped as the spec's EnhancedKoreanMETEOR does. All input is NFC-normalised first.
"""

from __future__ import annotations

import os
import re
import sys
import threading
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from scorekit.errors import MissingDependencyError
from scorekit.text.normalize import nfc

# Sejong tags Kiwi emits for punctuation and symbols (numbers SN, Latin SL, Hanja SH are kept).
PUNCT_TAGS = frozenset({"SF", "SP", "SS", "SSO", "SSC", "SE", "SO", "SW"})
_HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")


class Morph(NamedTuple):
    form: str   # surface form as analysed
    tag: str    # Sejong POS tag (NNG, VV, JKS, SF, ...)
    lemma: str  # dictionary form: verbs/adjectives get 다 (자 -> 자다); others equal form
    start: int = -1  # character span in the analysed (NFC) text, -1 when unknown
    end: int = -1


def is_particle(tag: str) -> bool:
    return tag.startswith("J")


def is_punct(tag: str) -> bool:
    return tag in PUNCT_TAGS


def has_hangul(text: str) -> bool:
    return bool(_HANGUL.search(text))


def _new_kiwi(multi: bool = True):
    """A Kiwi; ``multi=False``: without its multi-word name dictionary (text/kiwi_names.py)."""
    try:
        from kiwipiepy import Kiwi
    except ImportError as exc:  # pragma: no cover - kiwipiepy is a core dependency
        raise MissingDependencyError("Korean text needs kiwipiepy and kiwipiepy-model: "
                                     "pip install kiwipiepy kiwipiepy-model") from exc
    workers = int(os.environ.get("SCOREKIT_KIWI_WORKERS", "0")) or (os.cpu_count() or 1)
    return Kiwi(num_workers=workers, load_multi_dict=multi)


def get_kiwi(texts: Sequence[str] | None = None):
    """The Korean analyser of every family: one Kiwi per process, with the starter lexicon's words
    registered (issue #29: one instance, one analysis per text; docs/caption.md "One Korean
    analysis"). A user lexicon adds its words to a second instance (:func:`get_kiwi_with`).
    ``texts``: what it will analyse (see :func:`get_kiwi_with`)."""
    from scorekit.text.lexicon import Lexicon

    lex = Lexicon.default()
    return get_kiwi_with(lex.entries(), lex.fingerprint, texts)


_USER_KIWIS: dict[str, object] = {}


def get_kiwi_with(entries: Sequence[tuple[str, str]], key: str, texts: Sequence[str] | None = None):
    """A Kiwi with each ``(word, POS)`` registered as a user word, so a lexicon word stays one
    morph in context (``해질녘`` is one noun, not 해+지+ㄹ+녘). Cached per ``key`` (the lexicon's
    fingerprint) and per process (a forked child cannot use its parent's Kiwi, whose threads did
    not survive the fork; the parent's stays referenced, never destroyed). Nouns are added as they
    are; a verb/adjective (``주무시다``) adds its stem unless Kiwi without user words already
    analyses the word as stem + 다 (asked before any word is added, the answer kept in the cache
    folder, so a warm start builds Kiwi's model once).

    ``texts``: the texts the instance is for. When none of them, nor the lexicon's verbs, can
    touch an entry of Kiwi's multi-word name dictionary (:func:`scorekit.text.kiwi_names.clear`),
    Kiwi is built without it (the same analyses, cheaper); otherwise (or with ``texts=None``) the
    full Kiwi, which then also serves every later call of the process."""
    key = f"{os.getpid()}:{key}"
    if (kiwi := _USER_KIWIS.get(key)) is not None:
        return kiwi
    from scorekit.text import kiwi_names

    entries = [(nfc(word), tag) for word, tag in entries]
    verbs = [(w, tag) for w, tag in entries if tag in ("VV", "VA") and w.endswith("다") and len(w) >= 2]
    light = _USER_KIWIS.get(f"{key}:light")
    multi = texts is None or not kiwi_names.clear([*texts, *(w for w, _ in verbs)])
    kiwi_names.forget()
    if light is not None and not multi:
        return light
    kiwi = _new_kiwi(multi=multi)
    keep_whole = _verbs_split_already(kiwi, verbs)
    for word, tag in entries:
        if tag not in ("VV", "VA"):
            kiwi.add_user_word(word, tag, 0.0)
        elif (word, tag) in verbs and word not in keep_whole:
            kiwi.add_user_word(word[:-1], tag, 0.0)
    if multi:
        _USER_KIWIS.pop(f"{key}:light", None)   # the full one serves every text from now on
    mine = [k for k in _USER_KIWIS if k.startswith(f"{os.getpid()}:")]
    if len(_USER_KIWIS) >= 4 and mine:
        _USER_KIWIS.pop(mine[0])
    _USER_KIWIS[key if multi else f"{key}:light"] = kiwi
    return kiwi


def _verbs_split_already(kiwi, verbs: Sequence[tuple[str, str]]) -> set[str]:
    """The verbs that ``kiwi`` (no user words yet) analyses as exactly stem + 다 of their own tag."""
    if not verbs:
        return set()
    import hashlib
    import json

    from scorekit.cache import cache_root

    ident = "\n".join([kiwi_version(), _version("kiwipiepy-model"),
                       *sorted(f"{w}/{t}" for w, t in verbs)])
    path = cache_root() / "kiwi" / f"verbs-{hashlib.sha256(ident.encode()).hexdigest()[:16]}.json"
    try:
        got = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(got, list) and all(isinstance(w, str) for w in got):
            return set(got)
    except (OSError, ValueError):
        pass
    out = set()
    for (word, tag), toks in zip(verbs, kiwi.tokenize([w for w, _ in verbs])):
        if len(toks) == 2 and toks[0].form == word[:-1] and toks[0].tag.split("-")[0] == tag:
            out.add(word)
    try:  # a cache that cannot be written only costs the next start a rebuild
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(sorted(out), ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass
    return out


def _morphs(tokens, intern=sys.intern) -> tuple[Morph, ...]:
    # forms, tags and lemmas repeat across a batch: one string object each (a batch's morphs
    # took ~400 bytes apiece with a fresh string per field, ~36 MB for 6,000 captions)
    return tuple(Morph(intern(t.form), intern(t.tag), intern(getattr(t, "lemma", None) or t.form),
                       t.start, t.start + t.len)
                 for t in tokens)


# The last analysed batch per lexicon: text -> morphs. The metrics of one run (CIDEr's and
# BLEU's tokens, ROUGE-L's, METEOR's units) ask for the same texts in turn; each distinct text is
# analysed once. Replaced by the next batch that has texts it lacks; not kept past MEMO_TEXTS.
MEMO_TEXTS = 300_000
_memo: tuple[str | None, dict[str, tuple[Morph, ...]]] = (None, {})


LONG_TEXT = 10_000   # characters: Kiwi analyses a shorter text in well under a second


def _interruptible(work):
    """``work()`` in a helper thread while the main thread waits in short, signal-aware steps.

    Kiwi analyses without the GIL but does not return to Python until a text is done, and a
    pathological text (one 300,000-character token) takes a minute: in the main thread, SIGTERM
    and Ctrl-C would wait for it. Waiting here, the CLI's handlers run at once and roll the
    outputs back; the abandoned daemon thread ends with the process."""
    if threading.current_thread() is not threading.main_thread():
        return work()
    box: list = []

    def run():
        try:
            box.append((True, work()))
        except BaseException as exc:   # re-raised in the caller's thread
            box.append((False, exc))

    worker = threading.Thread(target=run, name="scorekit-kiwi", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.05)
    ok, value = box[0]
    if not ok:
        raise value
    return value


def _analysed(texts: Sequence[str], lexicon=None) -> list[tuple[Morph, ...]]:
    """Morphs of each (NFC, non-blank) text; Kiwi (the one of ``lexicon``, default the starter
    lexicon) analyses the distinct texts it has not seen in one multithreaded batch."""
    global _memo
    from scorekit.text.lexicon import Lexicon

    lex = lexicon or Lexicon.default()
    known = _memo[1] if _memo[0] == lex.fingerprint else {}
    missing = [t for t in dict.fromkeys(texts) if t not in known]
    if not missing:
        return [known[t] for t in texts]
    kiwi = get_kiwi_with(lex.entries(), lex.fingerprint, missing)
    def analyse():
        return list(map(_morphs, kiwi.tokenize(missing)))

    # between two texts the main thread is back in Python and answers signals: only a long text
    # needs the helper thread (which costs ~26 MB of peak memory: its own malloc arena)
    got = dict(zip(missing, _interruptible(analyse) if max(map(len, missing)) > LONG_TEXT else analyse()))
    if len(known) + len(got) <= MEMO_TEXTS:
        known = {**known, **got} if known else got
    else:
        known = {t: known.get(t) or got[t] for t in dict.fromkeys(texts)} if len(texts) <= MEMO_TEXTS else {}
    _memo = (lex.fingerprint, known)
    return [known[t] if t in known else got[t] for t in texts]


def analyze(text: str) -> list[Morph]:
    """Morphs of one text (NFC-normalised first)."""
    return analyze_batch([text])[0]


def analyze_batch(texts: Sequence[str], lexicon=None) -> list[list[Morph]]:
    """Morphs of many texts; Kiwi spreads the batch over its worker threads. ``lexicon``: a
    :class:`~scorekit.text.lexicon.Lexicon` whose words Kiwi knows, default the starter one."""
    texts = [nfc(t) for t in texts]
    out: list[list[Morph]] = [[] for _ in texts]
    idx = [i for i, t in enumerate(texts) if t.strip()]
    if idx:
        for i, morphs in zip(idx, _analysed([texts[i] for i in idx], lexicon)):
            out[i] = list(morphs)
    return out


def select(morphs: Iterable[Morph], *, drop_particles: bool = False, drop_punct: bool = True,
           lemma: bool = False) -> list[str]:
    """Strings from morphs: surface forms (or lemmas), optionally without particles/punctuation."""
    return [m.lemma if lemma else m.form for m in morphs
            if not (drop_particles and is_particle(m.tag)) and not (drop_punct and is_punct(m.tag))]


def tokenize(text: str, *, drop_particles: bool = False, drop_punct: bool = True,
             lemma: bool = False) -> list[str]:
    return select(analyze(text), drop_particles=drop_particles, drop_punct=drop_punct, lemma=lemma)


def tokenize_batch(texts: Sequence[str], *, drop_particles: bool = False, drop_punct: bool = True,
                   lemma: bool = False) -> list[list[str]]:
    """Like ``[tokenize(t) for t in texts]``, from the one batched analysis of each text."""
    return [select(ms, drop_particles=drop_particles, drop_punct=drop_punct, lemma=lemma)
            for ms in analyze_batch(texts)]


def analyser_version() -> str:
    """What pins the Korean tokens in a signature: Kiwi's version and the starter lexicon whose
    words it knows (``0.24.1+lex3f2a...``)."""
    from scorekit.text.lexicon import Lexicon

    return f"{kiwi_version()}+lex{Lexicon.default().fingerprint}"


def kiwi_version() -> str:
    return _version("kiwipiepy")


def _version(package: str) -> str:
    try:
        from importlib.metadata import version

        return version(package)
    except Exception:  # pragma: no cover
        return "unknown"
