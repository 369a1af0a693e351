"""The `evenstar` command line."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Dawn of the Evenstar: arena, balance studies, play and replay.")
console = Console()


@app.callback()
def _main() -> None:
    """Dawn of the Evenstar: arena, balance studies, play and replay."""


AGENT_SPECS = ("agent specs: random, cautious, heuristic, ismcts[:ITER[:SECONDS]], ppo:PATH, "
               "openspiel-ismcts[:SIMS]")


@app.command()
def arena(agents: Annotated[list[str], typer.Argument(help=AGENT_SPECS)],
          games: Annotated[int, typer.Option(help="seeds per pairing, each played twice "
                                             "with the sides swapped")] = 50,
          workers: Annotated[int, typer.Option(help="processes")] = 2,
          seed: Annotated[int, typer.Option(help="first seed")] = 0,
          out: Annotated[Path, typer.Option(help="output folder")] = Path("results/arena"),
          ) -> None:
    """Agents play each other with paired seeds; win rates per side, ratings and plots."""
    from experiments.arena import arena as run
    from experiments.arena import make_agent

    if len(agents) < 2:
        raise typer.BadParameter("name at least two agents")
    for spec in agents:
        try:
            make_agent(spec, 0)
        except ValueError as exc:  # a bad agent spec or policy file
            raise typer.BadParameter(str(exc)) from None
    summary = run(agents, games, out, workers=workers, seed0=seed)
    table = Table(title=f"Arena ({games} paired seeds per pairing)")
    for col in ("agent", "opponent", "side", "games", "W", "D", "L", "win rate [95% CI]"):
        table.add_column(col)
    for r in summary["results"]:
        table.add_row(r["agent"], r["opponent"], r["side"], str(r["games"]), str(r["wins"]),
                      str(r["draws"]), str(r["losses"]),
                      f"{r['win_rate']:.1%} [{r['ci95_low']:.1%}, {r['ci95_high']:.1%}]")
    console.print(table)
    for name, rating in summary["ratings"].items():
        console.print(f"rating {name}: mu {rating['mu']:.1f} sigma {rating['sigma']:.1f}")
    console.print(f"wrote {out}/summary.json, results.csv, games.jsonl and plots")


@app.command()
def play(side: Annotated[str, typer.Option("--as", help="your side: usa or china")] = "usa",
         opponent: Annotated[str, typer.Option(help=AGENT_SPECS)] = "heuristic",
         seed: Annotated[int, typer.Option(help="game seed")] = 0,
         save: Annotated[Path, typer.Option(help="where the game record is saved")] =
         Path("evenstar_game.json")) -> None:
    """Play a game against an agent in the terminal."""
    from experiments.play import PlaySession

    if side not in ("usa", "china"):
        raise typer.BadParameter("--as must be usa or china")
    try:
        session = PlaySession(side, opponent, seed, save, console=console)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    session.run()


def _load_record(path: Path):
    from experiments import records

    try:
        return records.load(path)
    except records.RecordError as exc:
        raise typer.BadParameter(str(exc)) from None


@app.command()
def replay(file: Annotated[Path, typer.Argument(help="a game record (.json)")],
           pause: Annotated[bool, typer.Option(help="wait for Enter after each action "
                                               "(q to stop)")] = True) -> None:
    """Step through a recorded game in the terminal."""
    from experiments import records

    rec = _load_record(file)
    console.print(f"Replaying seed {rec.seed}: {rec.agents}")
    shown = 0
    g = None
    try:
        for g, action in records.replay(rec, log=True):
            console.print(f"[bold cyan]{g.decision}[/] -> {g.describe_action(action)}")
            if pause:
                try:
                    if console.input("").strip().lower() == "q":
                        return
                except EOFError:
                    return
            lines = g.log
            for line in lines[shown:]:
                console.print(f"  [dim]{line}[/]")
            shown = len(lines)
    except records.RecordError as exc:
        raise typer.BadParameter(str(exc)) from None
    if g is not None:
        for line in g.log[shown:]:
            console.print(f"  [dim]{line}[/]")
        result = g.result
        console.print(f"[bold]Result:[/] {result.reason if result else 'unfinished'}; "
                      f"VP {g.vp}")


@app.command()
def render(file: Annotated[Path, typer.Argument(help="a game record (.json)")],
           turn: Annotated[int, typer.Option(help="show the board at the start of this "
                                             "turn (0: the end)")] = 0,
           out: Annotated[Path, typer.Option(help="PNG file")] = Path("map.png")) -> None:
    """Write the map picture of a recorded game at the start of a turn, or at its end."""
    import matplotlib.image

    from evenstar_env import Game
    from evenstar_env.env.render import render_rgb

    rec = _load_record(file)
    g = Game(rec.seed)
    for a in rec.actions:
        if turn and g.turn >= turn:
            break
        g.step(a)
    out.parent.mkdir(parents=True, exist_ok=True)
    matplotlib.image.imsave(out, render_rgb(g))
    console.print(f"wrote {out} (turn {g.turn}, {g.phase})")


@app.command()
def balance(variants: Annotated[Path, typer.Option(help=escape(
                "TOML file of [[variant]] tables (the first is the baseline)"))] =
            Path("experiments/variants.toml"),
            only: Annotated[list[str] | None, typer.Option("--variant", help="run only these "
                                                           "variants (repeatable)")] = None,
            usa: Annotated[str, typer.Option(help="US agent: " + AGENT_SPECS)] = "heuristic",
            china: Annotated[str, typer.Option(help="China agent")] = "heuristic",
            games: Annotated[int, typer.Option(help="seeds per variant")] = 100,
            seed: Annotated[int, typer.Option(help="first seed")] = 0,
            workers: Annotated[int, typer.Option(help="parallel games")] = 2,
            backend: Annotated[str, typer.Option(help="process or ray")] = "process",
            ray_address: Annotated[str | None, typer.Option(help="Ray cluster address "
                                                            "(default: start one here)")] =
            None,
            sprt: Annotated[bool, typer.Option(help="stop a variant once the SPRT decides "
                                               "which side it favours")] = False,
            forbid: Annotated[list[str] | None, typer.Option(help="card id: add a causal "
                                                             "run with its event banned "
                                                             "(repeatable)")] = None,
            out: Annotated[Path, typer.Option(help="results folder (resumed if it has "
                                              "games)")] = Path("results/balance")) -> None:
    """Side balance of rule variants by self-play, with intervals, plots and a report."""
    from evenstar_env.content import ContentError
    from experiments.balance import Study, load_study_variants, run_study

    try:
        chosen = load_study_variants(variants, only)
        for spec in (usa, china):
            from experiments.arena import make_agent

            make_agent(spec, 0)
    except (ContentError, ValueError) as exc:
        raise typer.BadParameter(str(exc)) from None
    study = Study(chosen, usa=usa, china=china, games=games, seed0=seed, workers=workers,
                  backend=backend, ray_address=ray_address, sprt=sprt, forbid=forbid or [])
    summary = run_study(study, out)
    table = Table(title=f"Balance: {usa} (US) vs {china} (China), {games} seeds per variant")
    for col in ("variant", "games", "US win rate [95% CI]", "US - baseline [95% CI]", "SPRT"):
        table.add_column(col)
    for name, v in summary["variants"].items():
        d = v["diff_vs_baseline"]
        table.add_row(name, str(v["games"]),
                      f"{v['usa']['rate']:.1%} [{v['usa']['ci95'][0]:.1%}, "
                      f"{v['usa']['ci95'][1]:.1%}]",
                      f"{d['mean']:+.3f} [{d['ci95'][0]:+.3f}, {d['ci95'][1]:+.3f}]",
                      v.get("sprt", {}).get("meaning", ""))
    console.print(table)
    console.print(f"wrote {out}/report.md, summary.json, games.csv, games.jsonl and plots")


if __name__ == "__main__":
    app()
