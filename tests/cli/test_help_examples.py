"""Every command's --help ends with an example: the root, every sub-command and every
sub-command of `absa` and `runs`, walked from the click tree so a new command is covered too."""

from __future__ import annotations

import re

import click
import pytest
from click.testing import CliRunner

from scorekit.cli import cli


def commands() -> list[list[str]]:
    ctx = click.Context(cli)
    out: list[list[str]] = []

    def walk(cmd: click.Command, path: list[str]) -> None:
        out.append(path)
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                walk(cmd.get_command(ctx, name), path + [name])

    walk(cli, [])
    return out


def test_the_tree_has_every_family():
    paths = {" ".join(p) for p in commands()}
    for want in ("retrieval", "caption", "summary", "sweep", "topics", "report", "absa report", "runs compare"):
        assert want in paths


@pytest.mark.parametrize("path", commands(), ids=lambda p: " ".join(p) or "scorekit")
def test_help_ends_with_an_example(path):
    res = CliRunner().invoke(cli, path + ["--help"], terminal_width=100)
    assert res.exit_code == 0, res.output
    lines = res.output.rstrip().splitlines()
    heads = [i for i, line in enumerate(lines) if re.fullmatch(r"\s*Examples?:", line)]
    assert heads, f"scorekit {' '.join(path)} --help has no example"
    tail = [line for line in lines[heads[-1] + 1:] if line.strip()]
    assert tail and tail[0].strip().startswith("scorekit "), tail
    for prev, line in zip(tail, tail[1:]):   # a command, or the continuation of one
        assert line.strip().startswith("scorekit ") or prev.rstrip().endswith("\\"), (prev, line)
    # the example runs this very command
    assert tail[0].strip().startswith("scorekit " + " ".join(path[:1])) if path else True
