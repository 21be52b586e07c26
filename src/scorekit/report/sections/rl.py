"""Cross-validation (task ``summarize-rl-cv``): the training reward curve per fold and the policy
against lead-n and TextRank (the held-out means by n are the generic n-sweep chart's)."""

from __future__ import annotations

from scorekit.report import charts
from scorekit.report.model import Doc
from scorekit.report.parts import figure, table
from scorekit.report.sections.base import task_section


@task_section("summarize-rl-cv")
def rl_cv_section(doc: Doc) -> tuple[str, set[str]]:
    extra = doc.runs[0].get("extra") or {}
    out = []
    curve = (extra.get("reward_curve") or {}).get("episodes") or []
    if curve:
        length = max(len(c) for c in curve)
        window = max(1, length // 20)
        series = {f"fold {f + 1}": {"mean": [sum(w) / len(w) for i in range(len(c))
                                             for w in [c[max(0, i - window + 1):i + 1]]]
                                    + [None] * (length - len(c))} for f, c in enumerate(curve)}
        out.append(figure(charts.line_chart(list(range(1, length + 1)), series,
                                            title=f"training reward (running mean over {window} episodes)",
                                            xlabel="episode", ylabel="BERTScore F1")))
    comps = extra.get("comparisons") or []
    if comps:
        rows = [[c.get("against"), c.get("n"), c.get("diff"), f"[{c.get('low'):+.3f}, {c.get('high'):+.3f}]",
                 c.get("p_t"), c.get("p_bootstrap")] for c in comps]
        out.append(table(["rl vs", "n", "mean diff", "95% CI", "p (paired t)", "p (bootstrap)"], rows,
                         caption="held-out: the policy against lead-n and TextRank (paired per article)",
                         cls="sk-rl-compare"))
    goal = extra.get("goal") or {}
    if goal:
        out.append("<p>not significantly worse than lead-n: <b>{}</b>; significantly better than TextRank: "
                   "<b>{}</b></p>".format("yes" if goal.get("not_worse_than_lead") else "no",
                                          "yes" if goal.get("better_than_textrank") else "no"))
    if not out:
        return "", set()
    html = '<section class="sk-section sk-rl"><h3>reinforcement-learned summariser</h3>' + "".join(out) + "</section>"
    return html, {"reward_curve", "comparisons", "goal"}
