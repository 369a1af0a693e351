"""benchmarks/readme_tables.py: the README's benchmark tables rendered from the benchmarks'
JSON between their markers, every line within 100 columns, the rest of the text untouched."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("readme_tables",
                                              ROOT / "benchmarks" / "readme_tables.py")
readme_tables = importlib.util.module_from_spec(spec)
spec.loader.exec_module(readme_tables)

MACHINE = {"cpu": "AMD EPYC 7B13 64-Core Processor", "cores": 2, "python": "3.11.7"}
ENGINE = {"machine": MACHINE, "date": "2026-11-29", "default_backend": "native",
          "command": "python benchmarks/bench_engine.py --games 300 --out /tmp/x.json",
          "random_play": {"decisions_per_s": 63547, "games_per_s": 621.8,
                          "mean_decisions_per_game": 102.2},
          "cautious_random_play": {"decisions_per_s": 11618, "games_per_s": 18.6,
                                   "mean_decisions_per_game": 623.0},
          "copy": {"clone_us": 0.8, "json_round_trip_us": 2414.3}}
PAIR = {"steps_per_cpu_s": 30000, "steps_per_s": 29000}
VECTOR = {"machine": MACHINE, "date": "2026-11-29", "backend": "native", "rounds": 3,
          "command": "python benchmarks/bench_vector.py --quick",
          "load_before": [7.4, 3.1, 1.9], "load_after": [6.0, 5.0, 4.0],
          "results": [{"n": n, "sync_steps_per_cpu_s": 29108, "vector_steps_per_cpu_s": 38104,
                       "ratio_vector_to_sync": 1.47, "ratio_per_round": [1.31, 1.47, 1.52],
                       "selfplay_decisions_per_cpu_s": 117424} for n in (1, 8, 64)],
          "selfplay_backends": [{"n": 256, "python": {"steps_per_s": 2476},
                                 "native_1_thread": {"steps_per_s": 15400,
                                                     "ratio_to_python_per_round": [4.2, 12.2]}}],
          "opponents": {"n": 64, "random": PAIR,
                        "learned_batched": {**PAIR, "ratio_to_random": 0.51,
                                            "ratio_per_round": [0.49, 0.51, 0.52]},
                        "learned_per_game": {**PAIR, "ratio_to_random": 0.09,
                                             "ratio_per_round": [0.08, 0.1]}},
          "sb3": [{"n": 64, "dummy_vec_env": PAIR,
                   "native_adapter": {**PAIR, "ratio_to_dummy_vec_env": 3.05,
                                      "ratio_per_round": [2.9, 3.1]}}],
          "maskable_ppo": {"timesteps": 4096, "dummy_vec_env_2": 1499, "dummy_vec_env_64": 5925,
                           "native_adapter_64": 6687}}

README = """# Title

Some text | with a pipe, and a line longer than a hundred columns on purpose, kept as it is: """ \
    + "x" * 30 + """

<!-- bench:engine -->
an old engine table
<!-- /bench:engine -->

between

<!-- bench:env -->
an old env table, left as it is: no env.json
<!-- /bench:env -->

<!-- bench:vector -->
<!-- /bench:vector -->
tail
"""


def test_blocks_are_rendered_between_their_markers_within_100_columns(tmp_path: Path) -> None:
    (tmp_path / "engine.json").write_text(json.dumps(ENGINE))
    (tmp_path / "vector.json").write_text(json.dumps(VECTOR))
    out, skipped = readme_tables.render(README, tmp_path)
    assert skipped == ["env"]
    assert "an old engine table" not in out
    assert "an old env table, left as it is: no env.json" in out
    for name in ("engine", "env", "vector"):
        assert out.count(f"<!-- bench:{name} -->") == out.count(f"<!-- /bench:{name} -->") == 1
    # the text outside the blocks is untouched
    outside = [part.split("<!-- /bench:")[-1] for part in out.split("<!-- bench:")]
    expected = [part.split("<!-- /bench:")[-1] for part in README.split("<!-- bench:")]
    assert outside == expected
    engine = out.split("<!-- bench:engine -->\n")[1].split("<!-- /bench:engine -->")[0]
    vector = out.split("<!-- bench:vector -->\n")[1].split("<!-- /bench:vector -->")[0]
    for block in (engine, vector):
        assert all(len(line) <= 100 for line in block.splitlines())
        assert "2026-11-29" in block and "AMD EPYC 7B13" in block and "2 cores" in block
        assert "backend native" in block and "/tmp/x.json" not in block
    assert "| uniform random play, engine only | 63,547 decisions/s" in engine
    assert "(0.51× random" in vector and "= 3.05 (2.90–3.10)" in vector
    assert readme_tables.render(out, tmp_path)[0] == out  # rendering again changes nothing


def test_a_missing_marker_or_a_wide_row_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no <!-- bench:vector -->"):
        readme_tables.render(README.replace("<!-- /bench:vector -->", ""), tmp_path)
    with pytest.raises(ValueError, match="wider than 100"):
        readme_tables.table(["what"], [["x" * 120]])


def test_the_readme_has_every_block() -> None:
    text = (ROOT / "README.md").read_text()
    for name in readme_tables.BLOCKS:
        assert f"<!-- bench:{name} -->" in text and f"<!-- /bench:{name} -->" in text
