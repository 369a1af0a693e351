"""The `evenstar` command line."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Dawn of the Evenstar: arena, balance studies, play and replay.")
console = Console()


@app.callback()
def _main() -> None:
    """Dawn of the Evenstar: arena, balance studies, play and replay."""


AGENT_SPECS = "agent specs: random, cautious, heuristic, ismcts[:ITER[:SECONDS]], ppo:PATH"


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

    if len(agents) < 2:
        raise typer.BadParameter("name at least two agents")
    try:
        summary = run(agents, games, out, workers=workers, seed0=seed)
    except ValueError as exc:  # a bad agent spec or policy file
        raise typer.BadParameter(str(exc)) from None
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


if __name__ == "__main__":
    app()
