"""Turn (document, reference) records into :class:`PreparedArticle` s.

Sentence splitting, TextRank and the sentence encoder are passed in, so the same code runs with
the shipped MiniLM encoder in the CLI and with toy embeddings in tests. All sentences and chunks
of all articles are embedded in one batched call (the encoder sorts by length).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from scorekit.progress import track
from scorekit.summarization.rl.chunking import chunk_sentences
from scorekit.summarization.rl.episode import PreparedArticle

EmbedFn = Callable[[list[str]], np.ndarray]


def prepare_articles(ids: Sequence[str], documents: Sequence[str], references: Sequence[str], *,
                     split: Callable[[str], list[str]], embed: EmbedFn,
                     textrank: Callable[[np.ndarray], np.ndarray], lang: str = "en",
                     use_spacy: bool = True) -> tuple[list[PreparedArticle], str]:
    """Returns the prepared articles and the chunker's name (for the signature)."""
    split_docs, chunk_lists, method = [], [], "rules"
    for doc in track(documents, "splitting", total=len(documents)):
        sents = [s for s in split(doc) if s.strip()]
        chunks, method = chunk_sentences(sents, lang=lang, use_spacy=use_spacy)
        split_docs.append(sents)
        chunk_lists.append(chunks)
    texts: list[str] = []
    for sents, chunks in zip(split_docs, chunk_lists):
        texts.extend(sents)
        texts.extend(c.text for c in chunks)
    vectors = embed(texts) if texts else np.zeros((0, 1), dtype=np.float32)
    out, pos = [], 0
    dim = vectors.shape[1]
    for i, (sents, chunks) in enumerate(zip(split_docs, chunk_lists)):
        s_emb = vectors[pos:pos + len(sents)].reshape(len(sents), dim)
        pos += len(sents)
        c_emb = vectors[pos:pos + len(chunks)].reshape(len(chunks), dim)
        pos += len(chunks)
        tr = textrank(s_emb) if len(sents) else np.zeros(0)
        out.append(PreparedArticle(str(ids[i]), sents, s_emb, np.asarray(tr, dtype=np.float64), chunks,
                                   c_emb, reference=references[i], source=documents[i]))
    return out, method
