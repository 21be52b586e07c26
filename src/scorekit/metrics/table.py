"""The docs' metric tables, generated from the one registry: ``python -m scorekit.metrics.table
[family]`` prints one markdown table per family (key, direction, kind, corpus, doc);
``python -m scorekit.metrics.table --params [family]`` the parameters every metric declares (the
name grammar's ``chrf(beta=3)``: name, type, default, allowed values)."""

from __future__ import annotations

import sys

from scorekit.metrics.registry import REGISTRY


def markdown(family: str) -> str:
    rows = [f"| `{i.key}` | {'higher' if i.higher_is_better else 'lower'} | {i.kind} | "
            f"{'yes' if i.corpus else 'no'} | {i.doc.replace('|', '/')} |"
            for i in REGISTRY.infos(family)]
    return "\n".join([f"### {family}", "", "| key | better | kind | corpus | what it is |",
                      "|---|---|---|---|---|", *rows]) + "\n"


def params_markdown(family: str) -> str:
    """One row per metric: its parameters as declared (batch-level ones, set once for the whole
    batch, are left out)."""
    lines = [f"### {family} parameters", "", "| metric | parameters |", "|---|---|"]
    for cls in REGISTRY.classes(family):
        text = "; ".join(f"`{p.describe()}`" + (f" {p.doc}" if p.doc else "")
                         for p in cls.params if not p.batch)
        lines.append(f"| `{cls.name}` | {(text or '—').replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    params = "--params" in argv
    argv = [a for a in argv if a != "--params"]
    families = argv or REGISTRY.families()
    render = params_markdown if params else markdown
    sys.stdout.write("\n".join(render(f) for f in dict.fromkeys(families)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
