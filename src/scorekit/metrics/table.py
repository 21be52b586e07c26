"""The docs' metric tables, generated from the one registry: ``python -m scorekit.metrics.table
[family]`` prints one markdown table per family (key, direction, kind, corpus, doc)."""

from __future__ import annotations

import sys

from scorekit.metrics.registry import REGISTRY


def markdown(family: str) -> str:
    lines = [f"### {family}", "", "| key | better | kind | corpus | what it is |", "|---|---|---|---|---|"]
    for info in REGISTRY.infos(family):
        lines.append(f"| `{info.key}` | {'higher' if info.higher_is_better else 'lower'} | {info.kind} | "
                     f"{'yes' if info.corpus else 'no'} | {info.doc.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    families = argv or REGISTRY.families()
    sys.stdout.write("\n".join(markdown(f) for f in dict.fromkeys(families)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
