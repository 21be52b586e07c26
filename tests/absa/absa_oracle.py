"""An independent, deliberately naive re-implementation of the spec formulas (per-row Python,
lists and dicts, no shared code with scorekit.absa beyond nothing) used as a test oracle."""

from __future__ import annotations

import re
import unicodedata


def norm_term(s):
    if not isinstance(s, str):
        return ""
    s = unicodedata.normalize("NFC", s).casefold()
    s = re.sub(r"\s+", " ", s).strip()
    return s.strip(".,;:!?\"'`“”‘’()[]{}<>「」『』《》〈〉…·~").strip()


SYN = {"pos": "positive", "positive": "positive", "긍정": "positive", "neg": "negative", "negative": "negative",
       "부정": "negative", "neu": "neutral", "neutral": "neutral", "중립": "neutral", "mixed": "mixed", "혼합": "mixed"}


def norm_pol(p):
    if not isinstance(p, str) or not p.strip():
        return "neutral", True
    k = unicodedata.normalize("NFC", p).strip().casefold()
    return SYN.get(k, k), False


def items(lst):
    out = []
    for d in lst or []:
        if not isinstance(d, dict) or not d:
            continue
        imp = d.get("is_implicit") is True
        at = d.get("aspect_term")
        if isinstance(at, dict):
            at = at.get("term")
        term = "" if imp else norm_term(at if isinstance(at, str) else "")
        raw = d.get("polarity") if d.get("polarity") is not None else d.get("label")
        pol, missing = norm_pol(raw)
        if not term and missing and not imp and not d.get("aspect_ref"):
            continue
        g = d.get("grounding")
        explicit = (g.strip().lower() == "explicit") if isinstance(g, str) and g.strip() else bool(term)
        out.append(dict(term=term, pol=pol, missing=missing, explicit=explicit,
                        conf=float(d.get("confidence") or 0), drop=bool(d.get("drop_reason"))))
    return out


def f1(gold, pred):
    """Greedy matching as a person would do it by hand: exact pairs first, then each implicit
    gold pair takes one leftover pred pair with its polarity."""
    if not gold:
        return 0.0, 0
    pred_left = list(pred)
    tp = 0
    for g in gold:
        if g[0] and g in pred_left:
            pred_left.remove(g)
            tp += 1
    for g in gold:
        if not g[0]:
            for p in pred_left:
                if p[1] == g[1]:
                    pred_left.remove(p)
                    tp += 1
                    break
    prec = tp / len(pred) if pred else 0.0
    rec = tp / len(gold)
    return (2 * prec * rec / (prec + rec) if prec + rec else 0.0), tp


def oracle_metrics(entries):
    """entries: FinalOutputSchema rows (dicts). Returns the spec metrics by formula."""
    N = len(entries)
    f1s1, f1s2, f1ex, f1im, f1rep = [], [], [], [], []
    fix = brk = still = keep = ann = 0
    conf_raw = conf_after = changed = guided = improved = degraded = rev = arb = 0
    imp_n = imp_bad = 0
    src = {"final_tuples": 0, "final_aspects": 0, "inputs": 0, "none": 0}
    used = 0
    for e in entries:
        fr = e.get("final_result") or {}
        fin, source = items(fr.get("final_tuples")), "final_tuples"
        if not fin:
            fin, source = items(fr.get("final_aspects")), "final_aspects"
        if not fin:
            fin, source = items((e.get("inputs") or {}).get("aspect_sentiments")), "inputs"
        if not fin:
            source = "none"
        src[source] += 1
        s1 = items(fr.get("stage1_tuples"))
        if not s1:
            for st in e.get("process_trace") or []:
                if str(st.get("stage", "")).lower() == "stage1" and str(st.get("agent", "")).lower() == "atsa":
                    s1 = items((st.get("output") or {}).get("aspect_sentiments"))
                    if s1:
                        break
        if not s1:
            s1 = fin
        P1 = sorted({(i["term"], i["pol"]) for i in s1})
        P2 = sorted({(i["term"], i["pol"]) for i in fin})
        # representative selection / conflicts
        groups = {}
        for i in fin:
            if i["term"]:
                groups.setdefault(i["term"], []).append(i)
        rep = {(i["term"], i["pol"]) for i in fin if not i["term"]}
        rr = ra = False
        for term, g in groups.items():
            key = lambda i: (i["explicit"], i["conf"], not i["drop"])  # noqa: E731
            best = max(key(i) for i in g)
            top = [i for i in g if key(i) == best]
            rep.add((term, top[0]["pol"]))
            if len({i["pol"] for i in g}) > 1:
                rr = True
                if len({i["pol"] for i in top}) > 1:
                    ra = True
        conf_raw += rr
        conf_after += ra
        gold_raw = None
        for holder in ((e.get("inputs") or {}), e):
            for k in ("gold_tuples", "gold", "gold_triplets"):
                if gold_raw is None and isinstance(holder.get(k), list):
                    gold_raw = holder[k]
            if gold_raw is not None:
                break
        d = 0.0
        if gold_raw is not None:
            G = sorted({(i["term"], i["pol"]) for i in items(gold_raw)})
            ann += 1

            def match(pred):
                if not G:
                    return not pred
                _, tp = f1(G, pred)
                return tp == len(G) == len(pred)
            m1, m2 = match(P1), match(P2)
            fix += (not m1) and m2
            brk += m1 and not m2
            still += (not m1) and (not m2)
            keep += m1 and m2
            if G:
                a, b = f1(G, P1)[0], f1(G, P2)[0]
                f1s1.append(a)
                f1s2.append(b)
                d = b - a
                f1rep.append(f1(G, sorted(rep))[0])
                used += len(P2)
                ex = [g for g in G if g[0]]
                if ex:
                    f1ex.append(f1(ex, P2)[0])
                ip = {g[1] for g in G if not g[0]}
                if ip:
                    imp_n += 1
                    valid = {i["pol"] for i in fin if i["pol"] in ("positive", "negative", "neutral") and not i["missing"]}
                    inter = len(ip & valid)
                    f1im.append(2 * inter / (len(ip) + len(valid)) if inter else 0.0)
                    if not valid or any(i["missing"] for i in fin):
                        imp_bad += 1

        def lab(x):
            return norm_pol(x)[0] if isinstance(x, str) and x.strip() else ""
        l1 = lab((e.get("stage1_ate") or {}).get("label"))
        lf = lab((e.get("stage2_ate") or {}).get("label")) or lab(fr.get("label"))
        ch = set(P1) != set(P2) or bool(l1 and lf and l1 != lf)
        af = e.get("analysis_flags") or {}
        acts = bool(af.get("review_actions")) or bool(af.get("arb_actions"))
        rev += bool(af.get("review_actions"))
        arb += bool(af.get("arb_actions"))
        if ch:
            changed += 1
            guided += acts
            improved += d > 0
            degraded += d < 0

    def mean(x):
        return sum(x) / len(x) if x else None

    def rate(a, b):
        return a / b if b else None
    s1m, s2m = mean(f1s1), mean(f1s2)
    return {
        "N": N, "N_gold": len(f1s1), "N_gold_annotated": ann,
        "tuple_f1_s1": s1m, "tuple_f1_s2": s2m, "delta_f1": None if s1m is None else s2m - s1m,
        "tuple_f1_s2_explicit_only": mean(f1ex), "tuple_f1_s2_implicit_only": mean(f1im),
        "tuple_f1_s2_after_rep": mean(f1rep),
        "fix_rate": rate(fix, fix + still), "break_rate": rate(brk, brk + keep), "net_gain": rate(fix - brk, N),
        "net_gain_annotated": rate(fix - brk, ann),
        "n_fix": fix, "n_break": brk, "n_still": still, "n_keep": keep,
        "polarity_conflict_rate_raw": rate(conf_raw, N), "polarity_conflict_rate": rate(conf_after, N),
        "implicit_gold_sample_n": imp_n, "implicit_invalid_sample_n": imp_bad,
        "implicit_invalid_pred_rate": rate(imp_bad, imp_n),
        "pre_to_post_change_rate": rate(changed, N), "changed_and_improved_rate": rate(improved, N),
        "changed_and_degraded_rate": rate(degraded, N), "review_action_rate": rate(rev, N),
        "arb_intervention_rate": rate(arb, N), "guided_by_review_rate": rate(guided, changed),
        "N_pred_final_tuples": src["final_tuples"], "N_pred_final_aspects": src["final_aspects"],
        "N_pred_inputs_aspect_sentiments": src["inputs"], "N_pred_used": used,
        "N_agg_fallback_used": src["final_aspects"] + src["inputs"],
    }
