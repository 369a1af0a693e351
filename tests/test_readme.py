"""The README's "Using Evenstar from ..." snippets run as written: every fenced python
block that follows a ``<!-- snippet: NAME -->`` line is executed on its own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SNIPPET = re.compile(r"<!-- snippet: ([\w-]+) -->\n```python\n(.*?)\n```", re.S)


def snippets() -> dict[str, str]:
    found = SNIPPET.findall(README.read_text(encoding="utf-8"))
    names = [name for name, _ in found]
    assert len(names) == len(set(names)), f"duplicate snippet names: {names}"
    return dict(found)


def test_the_readme_has_the_snippets_of_every_interface() -> None:
    assert {"pettingzoo", "gymnasium", "maskable-ppo", "sb3-native", "vector"} <= set(snippets())


@pytest.mark.parametrize("name", sorted(snippets()))
def test_readme_snippet_runs(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(snippets()[name], f"README.md <snippet: {name}>", "exec"), {"__name__": name})
    assert capsys.readouterr().out.strip() or name == "maskable-ppo"
