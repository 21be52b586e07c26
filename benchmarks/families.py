"""The end-to-end benchmark of each family: generated inputs, the ``scorekit`` command, the
anchor's whole pipeline, how their numbers are compared, and the default sizes (1x, 4x, 16x).

``shape`` options (``--shape key=value``) go to the generator (see benchmarks/gen.py).
"""

from __future__ import annotations

from pathlib import Path

from benchmarks import gen
from benchmarks.e2e import Case, anchor_cmd, max_diff, scorekit_cmd

SK = scorekit_cmd


def _quiet(cmd: list[str], out: Path) -> list[str]:
    return cmd + ["-o", str(out), "-q"]


def caption(shape: dict) -> Case:
    ko = float(shape.get("ko_share", 0.0)) >= 0.5
    metrics = "bleu,rouge_l,cider" if ko else "bleu,rouge_l_coco,cider"
    lang = "ko" if ko else "en"

    def make(n, d):
        p, r = gen.captions(d, n, **shape)
        return {"p": p, "r": r}

    metrics = "meteor,bleu,rouge_l,cider" if ko else metrics
    # Korean: the spec's own evaluation code (Okt + nltk + rouge-score + pycocoevalcap, per item,
    # one reference) is what a user of the spec would run instead; its numbers are another recipe
    # (docs/caption.md), so only the times are compared
    anchors = ({"spec (Okt+nltk)": lambda i, o: anchor_cmd("spec_ko_caption.py", i["p"], i["r"], o)} if ko
               else {"pycocoevalcap": lambda i, o: anchor_cmd("coco_caption.py", i["p"], i["r"], o)})
    return Case(
        "caption" + ("-ko" if ko else ""), "images",
        make,
        lambda i, o: _quiet(SK() + ["caption", "-p", str(i["p"]), "-r", str(i["r"]), "--lang", lang,
                                    "--metrics", metrics], o),
        anchors, None if ko else max_diff,
        note=f"x{shape.get('refs', 5)} refs, `scorekit caption --metrics {metrics} --lang {lang}`"
             + (" vs the spec's §6.1 code (Okt + nltk METEOR/BLEU-4 + rouge-score + CIDEr per item)" if ko
                else " vs pycocoevalcap PTBTokenizer (Java) + Bleu(4) + Rouge + Cider"),
    )


def retrieval(shape: dict) -> Case:
    measures = "ndcg@10,map@100,mrr,hit_rate@10,precision@10,recall@100"
    n_docs = int(shape.pop("n_docs", 1000))

    def make(n, d):
        q, r = gen.trec(d, n, n_docs, **shape)
        return {"q": q, "r": r}

    return Case(
        "retrieval", "queries",
        make,
        lambda i, o: _quiet(SK() + ["retrieval", "--qrels", str(i["q"]), "--run", str(i["r"]), "-m", measures], o),
        {"pytrec_eval": lambda i, o: anchor_cmd("trec_pytrec_eval.py", i["q"], i["r"], o),
         "ranx": lambda i, o: anchor_cmd("trec_ranx.py", i["q"], i["r"], o)},
        max_diff,
        note=f"x{n_docs:,} docs per query (run lines = queries x {n_docs:,}); six measures; shape {shape or 'default'}",
    )


def summary(shape: dict) -> Case:
    def make(n, d):
        return {"f": gen.summaries(d, n, **shape)}

    return Case(
        "summary", "documents",
        make,
        lambda i, o: _quiet(SK() + ["summary", "-p", str(i["f"]), "-r", str(i["f"]), "--no-bertscore"], o),
        {"rouge-score": lambda i, o: anchor_cmd("rouge_score_summary.py", i["f"], o)},
        max_diff,
        note="`scorekit summary --no-bertscore` (ROUGE-1/2 F1 and recall) vs rouge-score per pair",
    )


def sweep(shape: dict) -> Case:
    def make(n, d):
        return {"f": gen.summaries(d, n, **shape)}

    return Case(
        "sweep", "documents",
        make,
        lambda i, o: _quiet(SK() + ["sweep", "--data", str(i["f"]), "--summarizer", "lead,textrank",
                                    "-m", "rouge,density,words"], o),
        {}, None,
        note="`scorekit sweep --summarizer lead,textrank -m rouge,density,words`; no outside library runs the "
             "magic-n sweep, so no anchor",
    )


def topics(shape: dict) -> Case:
    def make(n, d):
        t, c = gen.topics(d, n, **shape)
        return {"t": t, "c": c}

    return Case(
        "topics", "corpus documents",
        make,
        lambda i, o: _quiet(SK() + ["topics", "--topics", str(i["t"]), "--corpus", str(i["c"]),
                                    "--tokenizer", "whitespace"], o),
        {"gensim": lambda i, o: anchor_cmd("gensim_coherence.py", i["t"], i["c"], o)},
        max_diff,
        note="`scorekit topics --corpus` (semantic metrics with the embedding model, model load included, "
             "plus NPMI/C_V/UMass) vs gensim CoherenceModel (the three coherences only)",
    )


def absa(shape: dict) -> Case:
    def make(n, d):
        return {"run": gen.absa(d, n, **shape)}

    def ours(i, o):
        return [SK() + ["absa", "scorecards", "-q", str(i["run"])],
                SK() + ["absa", "aggregate", str(i["run"]), "-o", str(o), "-q"]]

    return Case(
        "absa", "rows",
        make, ours,
        {"naive": lambda i, o: anchor_cmd("absa_naive.py", i["run"] / "outputs.jsonl", o)},
        max_diff,
        note="`scorekit absa scorecards` + `absa aggregate` vs the project's own naive per-row path "
             "(no outside library computes these metrics)",
    )


def neural(shape: dict) -> Case:
    from scorekit.neural.encoder import default_model_path

    model = str(default_model_path())

    def make(n, d):
        p, r = gen.captions(d, n, refs=1, **shape)
        return {"p": p, "r": r}

    return Case(
        "bertscore", "pairs",
        make,
        lambda i, o: _quiet(SK() + ["caption", "-p", str(i["p"]), "-r", str(i["r"]), "--lang", "en",
                                    "--metrics", "bertscore"], o),
        {"bert_score": lambda i, o: anchor_cmd("bert_score_pairs.py", i["p"], i["r"], model, o)},
        max_diff,
        note="`scorekit caption --metrics bertscore` vs bert_score.score, all-MiniLM-L6-v2 layer 6, CPU, "
             "model load included",
    )


def preset(family, **fixed):
    """A family at a fixed everyday shape (issue #29: small and mid sizes show fixed costs)."""
    return lambda shape: family({**fixed, **shape})


FAMILIES = {"caption": caption, "retrieval": retrieval, "summary": summary, "sweep": sweep,
            "topics": topics, "absa": absa, "bertscore": neural,
            # everyday shapes: short English captions; Korean captions with one reference against
            # the spec's own code; a re-ranking run (1,000 of a 2,000-id pool per query, 6-decimal
            # scores, queries q0, q1, ... not in lexicographic order)
            "caption-short": preset(caption, length="short"),
            "caption-ko": preset(caption, ko_share=1, refs=1),
            "retrieval-rerank": preset(retrieval, pool=2000, precision=6, judged=30)}

# 1x, 4x, 16x for `make bench` (about 15 minutes on 2 cores), and the anchors' largest size there.
DEFAULT_SIZES = {"caption": [1250, 5000, 20000], "retrieval": [250, 1000, 4000], "summary": [1000, 4000, 16000],
                 "sweep": [20, 80, 320], "topics": [500, 2000, 8000], "absa": [5000, 20000, 80000],
                 "bertscore": [125, 500, 2000], "caption-short": [2500, 10000, 40000],
                 "caption-ko": [750, 3000, 12000], "retrieval-rerank": [250, 1000, 4000]}
DEFAULT_ANCHOR_MAX = {"caption": 5000, "caption-short": 10000, "caption-ko": 3000}
