"""Regenerate the hand-made result JSON fixtures (deterministic): python make_fixtures.py

They follow the result JSON conventions the report reads (docs/report.md), independent of the
families' code: a single retrieval run, a three-system retrieval comparison, Korean captions
(one prediction deliberately NFD-decomposed), an n-sweep, topics and ABSA with seeds.
"""

import json
import random
import unicodedata
from pathlib import Path

HERE = Path(__file__).parent
SIG = "task:{task}|{params}|version:0.1.0"
QUERIES = ["서울 맛집 추천", "how to bake bread", "부산 해운대 날씨", "python sqlite wal mode",
           "제주도 렌터카 가격", "best hiking trails", "한국어 형태소 분석기", "retrieval evaluation metrics",
           "김치찌개 끓이는 법", "transformer attention"]


def r4(x):
    return round(x, 6)


def retrieval_run(name, rng, bias, n=30):
    items = []
    for i in range(n):
        nd = r4(min(1.0, max(0.0, rng.random() * 0.8 + bias))) if i % 7 else 0.0
        items.append({"id": f"q{i + 1}", "query": QUERIES[i % len(QUERIES)], "ndcg@10": nd,
                      "map@100": r4(nd * 0.8), "mrr@10": r4(min(1.0, nd * 1.1)),
                      "recall@100": r4(min(1.0, nd + 0.15))})
    metrics = {m: r4(sum(it[m] for it in items) / n) for m in ("ndcg@10", "map@100", "mrr@10", "recall@100")}
    return {"task": "retrieval", "name": name, "metrics": metrics,
            "signature": SIG.format(task="retrieval", params="rel:1|measures:ndcg@10,map@100,mrr@10,recall@100"),
            "per_item": items, "inputs": {"qrels": "data/qrels.trec", "run": f"runs/{name}.trec", "n_queries": n},
            "extra": {}, "scorekit_version": "0.1.0", "created": "2026-11-23T12:00:00+00:00"}


def main():
    rng = random.Random(7)
    single = retrieval_run("bm25", rng, 0.1)
    single["extra"] = {"warnings": ["2 queries in the run have no judgements and were skipped: q99, q100"],
                       "ci": {"ndcg@10": {"mean": single["metrics"]["ndcg@10"], "low": 0.41, "high": 0.55}}}
    runs = [retrieval_run(n, rng, b) for n, b in (("bm25", 0.1), ("dense", 0.2), ("hybrid", 0.25))]
    rows = []
    for r in runs[1:]:
        for m in ("ndcg@10", "map@100", "mrr@10"):
            v, bv = r["metrics"][m], runs[0]["metrics"][m]
            p = 0.004 if r["name"] == "hybrid" else 0.21
            rows.append({"system": r["name"], "measure": m, "value": v, "baseline_value": bv,
                         "improvement_pct": r4((v - bv) / bv * 100), "p_value": p,
                         "p_adjusted": r4(min(1.0, p * 3)), "significant": p * 3 < 0.05})
    multi = {"task": "retrieval", "metrics": runs[0]["metrics"], "signature": runs[0]["signature"],
             "runs": runs, "comparison": {"baseline": "bm25", "method": "t", "alpha": 0.05, "rows": rows}}

    preds = ["파란 바다에 하얀 파도가 치며 해변으로 다가온다", "산꼭대기에 구름이 피어오르고 숲이 우거져 있다",
             "도심 거리를 사람들이 지나가고 있다", "A dog runs across the green field.", "고양이가 창가에서 졸고 있다"]
    refs = [["푸른 바다 위로 하얀 파도가 부서지며 해변으로 밀려온다", "하얀 파도가 해변으로 밀려온다"],
            ["높은 산 위에 구름이 걸려 있고 나무들이 울창하다"],
            ["도시의 거리에 사람들이 걸어다니고 있다", "사람들이 도시 거리를 걷는다"],
            ["A brown dog is running through a field of grass."],
            ["창가에 앉은 고양이가 햇볕을 쬐며 잠들어 있다"]]
    meteor = [0.412345, 0.198765, 0.523456, 0.367891, 0.101234]
    items = []
    for i, (p, rf, m) in enumerate(zip(preds, refs, meteor)):
        if i == 2:
            p = unicodedata.normalize("NFD", p)  # decomposed jamo: the report must show it composed
        items.append({"id": f"vid{i + 1:03d}", "prediction": p, "references": rf, "meteor": m,
                      "cider_d": r4(m * 2.1), "bleu_4": r4(m * 0.5), "rouge_l": r4(m * 1.2)})
    caption = {"task": "caption", "name": "ko-captioner", "signature":
               SIG.format(task="caption", params="lang:ko|tok:kiwi|meteor:enhanced|alpha:0.9|beta:3|gamma:0.5"),
               "metrics": {k: r4(sum(it[k] for it in items) / len(items)) for k in ("meteor", "cider_d", "bleu_4", "rouge_l")},
               "per_item": items, "inputs": {"predictions": "preds.jsonl", "references": "refs.jsonl", "n_items": 5},
               "extra": {"baseline": {"meteor": 0.3052, "improvement_pct": 4.1}}}
    caption["metrics"]["bertscore_f1"] = 0.812345

    n = [5, 10, 15, 20, 30]
    series = {}
    for name, off in (("lead_n", 0.0), ("textrank", 0.03), ("rl_policy", 0.06)):
        series[name] = {}
        for metric, base in (("rouge1", 0.2), ("bertscore_f1", 0.6)):
            mean = [r4(base + off + 0.1 * (1 - 1 / (1 + k / 10))) for k in n]
            series[name][metric] = {"mean": mean, "low": [r4(v - 0.02) for v in mean],
                                    "high": [r4(v + 0.02) for v in mean]}
    sweep = {"task": "sweep", "name": "magic-n", "signature": SIG.format(task="sweep", params="n:5,10,15,20,30|lang:ko"),
             "metrics": {"best_n": 15, "rouge1@15": series["rl_policy"]["rouge1"]["mean"][2]},
             "per_item": [], "inputs": {"documents": "docs.jsonl", "n_documents": 40},
             "extra": {"sweep": {"n": n, "series": series}, "best": {"lead_n": 20, "textrank": 15, "rl_policy": 15}}}

    topics_items = [
        {"id": "topic_0", "words": ["경제", "금리", "물가", "인플레이션", "중앙은행"], "coherence": 0.71, "distinctiveness": 0.55},
        {"id": "topic_1", "words": ["football", "goal", "league", "match", "season"], "coherence": 0.64, "distinctiveness": 0.62},
        {"id": "topic_2", "words": ["선거", "후보", "투표", "정당", "공약"], "coherence": 0.38, "distinctiveness": 0.47},
        {"id": "topic_3", "words": ["날씨", "비", "기온", "태풍", "football"], "coherence": 0.22, "distinctiveness": 0.31},
    ]
    topics = {"task": "topics", "name": "lda-k4", "signature": SIG.format(task="topics", params="model:all-MiniLM-L6-v2|threshold_edge:0.3"),
              "metrics": {"semantic_coherence": 0.4875, "semantic_distinctiveness": 0.4875, "semantic_diversity": 0.95, "overall": 0.6083},
              "per_item": topics_items, "inputs": {"topics": "topics.json", "n_topics": 4},
              "extra": {"grid": [{"threshold_edge": 0.2, "overall": 0.58}, {"threshold_edge": 0.3, "overall": 0.6083},
                                 {"threshold_edge": 0.4, "overall": 0.6}],
                        "params": {"threshold_edge": 0.3, "pagerank_alpha": 0.85}}}

    seeds = [{"seed": s, "tuple_f1": f, "fix_rate": fx, "break_rate": br}
             for s, f, fx, br in ((1, 0.612, 0.21, 0.05), (2, 0.634, 0.24, 0.04), (3, 0.598, 0.19, 0.07))]
    absa = {"task": "absa", "name": "cr-v1", "signature": SIG.format(task="absa", params="protocol:cr_v1|match:normalized"),
            "metrics": {"tuple_f1": 0.614667, "fix_rate": 0.213333, "break_rate": 0.053333,
                        "polarity_conflict_rate": 0.08, "n_samples": 150},
            "per_item": [{"id": f"s{i}", "text": t, "tuple_f1": f, "changed": c}
                         for i, (t, f, c) in enumerate((("음식은 맛있지만 서비스가 느렸다", 0.5, True),
                                                         ("The battery life is great", 1.0, False),
                                                         ("가격 대비 양이 적다", 0.0, True)))],
            "inputs": {"scorecards": "scorecards.jsonl", "seeds": [1, 2, 3]},
            "extra": {"seeds": seeds,
                      "structural_metrics": {"stage1": {"tuple_f1": 0.58, "n_tuples": 410},
                                             "final": {"tuple_f1": 0.614667, "n_tuples": 398}}}}

    for name, data in (("retrieval_single", single), ("retrieval_compare", multi), ("caption_ko", caption),
                       ("sweep", sweep), ("topics", topics), ("absa", absa)):
        (HERE / f"{name}.json").write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
