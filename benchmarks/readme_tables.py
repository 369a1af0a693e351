"""The README's benchmark tables, rendered from the benchmarks' JSON (``make bench``).

Each table sits between ``<!-- bench:NAME -->`` and ``<!-- /bench:NAME -->`` in README.md;
this script replaces what is between them with NAME's table, rendered from
``benchmarks/results/FILE`` (:data:`BLOCKS`), under a line with the run's date, machine
(CPU model and cores), Python, backend, command and load.  Every line it writes fits
:data:`WIDTH` columns; the rest of the README is left as it is, and so is a block whose
JSON is missing (said on stderr).  Earlier figures go to docs/measured.md by hand, with
their dates.

Usage: python benchmarks/readme_tables.py [--results DIR] [--readme PATH] [--check]
(``--check``: exit 1 if the README is not what the JSON renders, writing nothing).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

WIDTH = 100  # the widest line a rendered block may hold
ROOT = Path(__file__).resolve().parent.parent


def _n(x: float) -> str:
    return f"{round(x):,}"


def _range(values: list[float], unit: str = "") -> str:
    return f"{min(values):.2f}–{max(values):.2f}{unit}"


def table(head: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table; ValueError if a line is wider than WIDTH."""
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    wide = [line for line in lines if len(line) > WIDTH]
    if wide:
        raise ValueError(f"a table line is wider than {WIDTH} columns: {wide[0]!r}")
    return lines


def header(title: str, data: dict[str, Any], note: str = "") -> list[str]:
    """The title with the run's date, machine, Python, backend, command and load, wrapped."""
    m = data.get("machine", {})
    cores = f", {m['cores']} cores" if "cores" in m else ""
    load = data.get("load_average") or {}
    before = load.get("before", data.get("load_before"))
    after = load.get("after", data.get("load_after"))
    loads = f"; load average {before[0]:.1f} before, {after[0]:.1f} after" \
        if before and after else ""
    command = re.sub(r" --out(=| )\S+", "", data.get("command", "?"))  # where it wrote
    text = (f"**{title}** (`{command}`): {data.get('date', 'undated')}, "
            f"{m.get('cpu', 'unknown CPU')}{cores}, Python {m.get('python', '?')}, backend "
            f"{data.get('backend', data.get('default_backend', '?'))}{loads}."
            + (f" {note}" if note else ""))
    return textwrap.wrap(text, WIDTH, break_long_words=False, break_on_hyphens=False)


def render_engine(d: dict[str, Any]) -> list[str]:
    rp, cp, c = d["random_play"], d["cautious_random_play"], d["copy"]
    return header("Engine", d, "Wall-clock seconds of one process.") + [""] + table(
        ["what", "figure"],
        [["uniform random play, engine only",
          f"{_n(rp['decisions_per_s'])} decisions/s ({rp['games_per_s']} games/s, "
          f"{rp['mean_decisions_per_game']:.0f} decisions a game)"],
         ["cautious random agents, through the agent protocol",
          f"{_n(cp['decisions_per_s'])} decisions/s ({cp['mean_decisions_per_game']:.0f} a game)"],
         ["`Game.clone()` / JSON round trip",
          f"{c['clone_us']} µs / {_n(c['json_round_trip_us'])} µs"]])


def render_env(d: dict[str, Any]) -> list[str]:
    a, c4 = d["evenstar_aec"], d["connect_four_aec"]
    rounds = d["ratio_per_round"]
    rows = [["Evenstar AEC loop, observation and mask every step",
             f"{_n(a['steps_per_s'])} steps/s"],
            ["PettingZoo `connect_four_v3`, the same loop", f"{_n(c4['steps_per_s'])} steps/s"],
            ["Evenstar / connect_four",
             f"{d['ratio_evenstar_to_connect_four_steps']:.2f} ({_range(rounds)})"]]
    if "backends" in d:
        b = d["backends"]
        rows.append(["Evenstar AEC, native / Python engine",
                     f"{_n(b['native']['steps_per_s'])} / {_n(b['python']['steps_per_s'])} "
                     f"steps/s = {b['ratio_native_to_python_steps']:.2f} "
                     f"({_range(b['ratio_per_round'])})"])
    note = (f"Wall clock; the ratios are medians of {len(rounds)} alternating rounds, their "
            "range in brackets.")
    return header("AEC env", d, note) + [""] + table(["what", "figure"], rows)


def render_vector(d: dict[str, Any]) -> list[str]:
    rows = []
    for r in d["results"]:
        rows.append(["`SyncVectorEnv` / `EvenstarVectorEnv`", str(r["n"]),
                     f"{_n(r['sync_steps_per_cpu_s'])} / {_n(r['vector_steps_per_cpu_s'])} = "
                     f"{r['ratio_vector_to_sync']:.2f} ({_range(r['ratio_per_round'])})"])
    if d["results"]:
        r = d["results"][-1]
        rows.append(["`SelfPlayVectorEnv`, decisions/s", str(r["n"]),
                     _n(r["selfplay_decisions_per_cpu_s"])])
    for r in d.get("selfplay_backends", []):
        if "native_1_thread" in r:
            k = r["native_1_thread"]
            rows.append(["`SelfPlayVectorEnv`, native 1 thread / Python, wall clock",
                         str(r["n"]), f"{_n(k['steps_per_s'])} / {_n(r['python']['steps_per_s'])} "
                         f"({min(k['ratio_to_python_per_round']):.1f}–"
                         f"{max(k['ratio_to_python_per_round']):.1f}×)"])
    if "opponents" in d:
        o = d["opponents"]
        n = str(o["n"])
        rows.append(['`EvenstarVectorEnv(opponent="random")`', n,
                     _n(o["random"]["steps_per_cpu_s"])])
        for key, what in (("learned_batched", '`opponent="learned"`, batched'),
                          ("learned_per_game", "`opponent=LearnedAgent()`, per game")):
            if key in o:
                k = o[key]
                rows.append([what, n, f"{_n(k['steps_per_cpu_s'])} ({k['ratio_to_random']:.2f}× "
                                      f"random, {_range(k['ratio_per_round'])})"])
    for r in d.get("sb3", []):
        dv, ad = r["dummy_vec_env"], r["native_adapter"]
        rows.append(["SB3 `DummyVecEnv` / `EvenstarSB3VecEnv`", str(r["n"]),
                     f"{_n(dv['steps_per_cpu_s'])} / {_n(ad['steps_per_cpu_s'])} = "
                     f"{ad['ratio_to_dummy_vec_env']:.2f} ({_range(ad['ratio_per_round'])})"])
    ppo = d.get("maskable_ppo")
    if ppo:
        keys = [k for k in ppo if k.startswith(("dummy_vec_env_", "native_adapter_"))]
        base = ppo.get("dummy_vec_env_2")
        for k in keys:
            kind, n = k.rsplit("_", 1)
            what = "`DummyVecEnv`" if kind == "dummy_vec_env" else "`EvenstarSB3VecEnv`"
            rel = f" ({ppo[k] / base:.1f}× 2 envs)" if base and k != "dummy_vec_env_2" else ""
            rows.append([f"MaskablePPO timesteps/s, {what}", n, f"{_n(ppo[k])}{rel}"])
    note = (f"Random legal learner actions; learner steps per CPU second over all N games "
            f"(`SyncVectorEnv` and `DummyVecEnv` over N `SingleAgentEnv`s; SB3: masks by "
            f"`get_action_masks`, then a step), medians of {d['rounds']} alternating rounds, "
            f"the ratio's range in brackets; `learned` against `random`.")
    return header("Vector envs and SB3", d, note) + [""] + table(["what", "N", "figure"], rows)


BLOCKS: dict[str, tuple[str, Callable[[dict[str, Any]], list[str]]]] = {
    "engine": ("engine.json", render_engine),
    "env": ("env.json", render_env),
    "vector": ("vector.json", render_vector),
}


def render(readme: str, results: Path) -> tuple[str, list[str]]:
    """`readme` with every block whose JSON is in `results` rendered afresh; the names of
    the blocks left as they were (no JSON).  ValueError if a block's markers are missing."""
    skipped = []
    for name, (file, fn) in BLOCKS.items():
        start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
        pattern = re.compile(re.escape(start) + r"\n.*?" + re.escape(end), re.S)
        if not pattern.search(readme):
            raise ValueError(f"no {start} ... {end} block in the README")
        path = results / file
        if not path.exists():
            skipped.append(name)
            continue
        body = "\n".join(fn(json.loads(path.read_text())))
        readme = pattern.sub(lambda _m, s=start, b=body, e=end: f"{s}\n{b}\n{e}", readme,
                             count=1)
    return readme, skipped


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "results")
    ap.add_argument("--readme", type=Path, default=ROOT / "README.md")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    old = args.readme.read_text()
    new, skipped = render(old, args.results)
    for name in skipped:
        print(f"{BLOCKS[name][0]} not in {args.results}: the {name} table left as it was",
              file=sys.stderr)
    if args.check:
        sys.exit(0 if new == old else 1)
    args.readme.write_text(new)
    print(f"rendered {len(BLOCKS) - len(skipped)} table(s) into {args.readme}")


if __name__ == "__main__":
    main()
