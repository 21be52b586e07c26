"""RAG retrieval from passages end to end (issue #30): ``scorekit rag --compat ranx-k`` against
ranx-k 0.0.17's ``evaluate_with_ranx_similarity`` (benchmarks/anchors/ranxk_rag.py), both whole
processes on the same generated Korean JSONL, alternating (benchmarks/e2e.py).

Each question has 3 reference passages and 10 retrieved ones (rank order), drawn from a pool of
4 x questions Korean passages (a corpus both sides retrieve from: references are retrieved at
random ranks, the rest are other pool passages, some repeated; ``SCOREKIT_BENCH_RAG_POOL=0``:
every passage distinct). Matching: Kiwi ROUGE-L >= 0.5,
k = 10, ``hit_rate@10, ndcg@10, map@10, mrr``; the numbers must agree (``max |diff|``).

    python -m benchmarks rag                                  # 100, 1,000, 10,000 questions
    SCOREKIT_BENCH_RAG_SIZES=100,1000 python -m benchmarks rag
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

from benchmarks.e2e import Case, anchor_cmd, bench, max_diff, scorekit_cmd

K = 10
MEASURES = f"hit_rate@{K},ndcg@{K},map@{K},mrr"
SIZES = [100, 1000, 10000]
POOL = int(os.environ.get("SCOREKIT_BENCH_RAG_POOL", "4"))

_NOUNS = ("배송 주문 상품 결제 카드 오류 환불 취소 교환 반품 사이즈 포인트 적립 쿠폰 회원 가입 인증 번호 재고 "
          "품절 리뷰 작성 주소 변경 고객 센터 문의 답변 처리 기간 비용 택배 기사 포장 파손 영수증 계좌 "
          "은행 이체 할인 이벤트 혜택 등급 배송비 무료 당일 예약 매장 방문 수령 정책 안내 확인 요청 접수").split()
_VERBS = ("늦어지고 있습니다|완료되지 않았습니다|변경하고 싶습니다|적용되지 않습니다|받을 수 있나요|"
          "안내해 주세요|확인 부탁드립니다|진행 중입니다|처리되었습니다|가능한가요").split("|")
_PARTICLES = ["이", "가", "을", "를", "의", "에", "은", "는", "도", "로", ""]


def _passage(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(2, 4)):
        words = [w + rng.choice(_PARTICLES) for w in rng.sample(_NOUNS, rng.randint(3, 6))]
        parts.append(" ".join(words) + " " + rng.choice(_VERBS) + rng.choice([".", "?", "!", ","]))
    return " ".join(parts)


def make_data(n: int, path: Path, seed: int = 0, pool: int = 4) -> Path:
    """``pool``: the corpus holds ``pool`` x n passages; 0 = every passage distinct (no reuse
    across questions: the least one analysis per distinct passage can save)."""
    rng = random.Random(seed)
    corpus = [_passage(rng) for _ in range(max(pool, 1) * n)]
    if pool == 0:
        fresh = iter([_passage(rng) for _ in range(13 * n)])
        choice = lambda _c: next(fresh)  # noqa: E731
        sample = lambda _c, m: [next(fresh) for _ in range(m)]  # noqa: E731
    else:
        choice, sample = rng.choice, rng.sample
    with path.open("w", encoding="utf-8") as fh:
        for q in range(n):
            refs = sample(corpus, 3)
            ret = [choice(corpus) for _ in range(K)]
            for r in refs:
                if rng.random() < 0.6:
                    ret[rng.randrange(K)] = r
            if rng.random() < 0.2:          # a duplicate lower in the ranking
                ret[rng.randrange(1, K)] = ret[0]
            fh.write(json.dumps({"id": f"q{q}", "question": "문의", "retrieved": ret, "references": refs},
                                ensure_ascii=False) + "\n")
    return path


def case() -> Case:
    return Case(
        "rag-ko", "questions",
        lambda n, d: {"data": make_data(n, d / "rag.jsonl", pool=POOL)},
        lambda i, o: scorekit_cmd() + ["rag", "--data", str(i["data"]), "--match", "kiwi_rouge", "--threshold", "0.5",
                                        "--compat", "ranx-k", "-m", MEASURES, "-o", str(o), "-q"],
        {"ranx-k": lambda i, o: anchor_cmd("ranxk_rag.py", i["data"], o, K, "kiwi_rouge", 0.5)},
        max_diff,
        note=f"x{K} retrieved x3 references, pool {POOL or 'none (all distinct)'}, Korean, kiwi_rouge >= 0.5, `scorekit rag --compat ranx-k -m {MEASURES}` "
             f"vs ranx-k evaluate_with_ranx_similarity",
    )


def main() -> None:
    sizes = [int(s) for s in os.environ.get("SCOREKIT_BENCH_RAG_SIZES", ",".join(map(str, SIZES))).split(",")]
    bench(case(), sizes, repeat=int(os.environ.get("SCOREKIT_BENCH_REPEAT", "1")))


if __name__ == "__main__":
    main()
