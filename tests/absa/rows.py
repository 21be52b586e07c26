"""Row builders shared by the absa tests."""


def t(term, pol=None, **kw):
    d = {"aspect_term": term, **kw}
    if pol is not None:
        d["polarity"] = pol
    return d


def entry(tid, s1=None, final=None, gold="absent", review=(), arb=(), text="", **extra):
    fr = {}
    if s1 is not None:
        fr["stage1_tuples"] = s1
    if final is not None:
        fr["final_tuples"] = final
    e = {"meta": {"text_id": tid, "input_text": text}, "final_result": fr,
         "analysis_flags": {"review_actions": list(review), "arb_actions": list(arb)}}
    if gold != "absent":
        e["inputs"] = {"gold_tuples": gold}
    for k, v in extra.items():
        if k == "final_result":
            e["final_result"].update(v)
        elif k == "inputs":
            e.setdefault("inputs", {}).update(v)
        else:
            e[k] = v
    return e
