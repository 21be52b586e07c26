"""Anchor: gensim CoherenceModel (c_npmi, c_v, u_mass; processes=1) on a whitespace-tokenised
corpus file (one document per line) and a topics JSON — the coherence part of ``scorekit topics``.

    python gensim_coherence.py topics.json corpus.txt out.json
"""

import json
import logging
import sys
import warnings

from gensim.corpora import Dictionary
from gensim.models.coherencemodel import CoherenceModel


def main(topics_path, corpus_path, out_path):
    logging.getLogger("gensim").setLevel(logging.ERROR)
    topics = json.load(open(topics_path, encoding="utf-8"))
    topics = list(topics.values()) if isinstance(topics, dict) else topics
    with open(corpus_path, encoding="utf-8") as fh:
        texts = [line.split() for line in fh if line.strip()]
    dictionary = Dictionary(texts)
    out = {}
    for measure, key in (("c_npmi", "npmi"), ("c_v", "c_v"), ("u_mass", "u_mass")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cm = CoherenceModel(topics=topics, texts=texts, dictionary=dictionary, coherence=measure,
                                processes=1, topn=20)
            out[key] = float(cm.get_coherence())
    json.dump(out, open(out_path, "w"))


if __name__ == "__main__":
    main(*sys.argv[1:4])
