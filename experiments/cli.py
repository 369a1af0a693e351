"""The `evenstar` command line.

Arguments are checked before any work starts (bad values are usage errors, exit 2;
every number is bounded: seeds 0..2**63-1, games 1..100,000, workers 1..512);
a bad input file or output folder, a folder another run is writing, or one holding
games of another run is one ``error: ...`` line (exit 1); damaged lines skipped on
resume are one ``warning: ...`` line; Ctrl-C is one ``Interrupted.`` line (exit 130),
never a traceback.
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from agents.specs import SPEC_FORMS
from experiments.limits import MAX_GAMES, MAX_SEED, MAX_WORKERS

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Dawn of the Evenstar: arena, balance studies, play and replay.")
TABLE_WIDTH = 100  # the output's width where it is not a terminal (a pipe, a file, a test)


def _width(stream: Any) -> int | None:
    """None (rich asks the terminal, or $COLUMNS) where `stream` is a terminal or COLUMNS is
    set; else TABLE_WIDTH, not rich's 80, so that the tables do not wrap."""
    isatty = getattr(stream, "isatty", None)
    tty = bool(isatty and isatty())
    return None if tty or os.environ.get("COLUMNS") else TABLE_WIDTH


console = Console(width=_width(sys.stdout))
err_console = Console(stderr=True, width=_width(sys.stderr))


def fail(message: str) -> NoReturn:
    """Stop with one clear line on stderr and exit status 1."""
    err_console.print(f"[red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(1)


def command(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``app.command()`` whose Ctrl-C prints one line and exits 130 (no traceback), whose
    locked output folder or failed write (a full disk) is one ``error:`` line and whose
    resume warnings are one line each."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        from experiments.files import FolderLockedError
        from experiments.gamelog import ResumeWarning

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("always", ResumeWarning)
                warnings.showwarning = _show_warning
                return fn(*args, **kwargs)
        except KeyboardInterrupt:
            err_console.print("Interrupted.", highlight=False)
            raise typer.Exit(130) from None
        except FolderLockedError as exc:
            fail(str(exc))
        except OSError as exc:  # a full disk or a vanished folder while writing results
            where = f"{exc.filename}: " if exc.filename else ""
            fail(f"{where}{exc.strerror or exc} (the games finished so far are kept)")

    return app.command()(run)


def _show_warning(message: Warning | str, category: type[Warning], *_: Any, **__: Any
                  ) -> None:
    """Warnings as one ``warning: ...`` line (no file and line of the code)."""
    err_console.print(f"[yellow]warning:[/] {escape(str(message))}", highlight=False,
                      soft_wrap=True)


class Side(StrEnum):
    usa = "usa"
    china = "china"


class Backend(StrEnum):
    process = "process"
    ray = "ray"


@app.callback()
def _main() -> None:
    """Dawn of the Evenstar: arena, balance studies, play and replay."""


VARIANTS_FILE = Path(__file__).resolve().parent / "variants.toml"  # found from any folder
AGENT_SPECS = f"agent specs: {SPEC_FORMS}"


# Options several commands share.
PairedGames = Annotated[int, typer.Option(min=1, max=MAX_GAMES, help="seeds per pairing, each "
                                          "played twice with the sides swapped")]
FirstSeed = Annotated[int, typer.Option(min=0, max=MAX_SEED, help="first seed")]
Workers = Annotated[int, typer.Option(min=1, max=MAX_WORKERS, help="parallel games")]
BackendOption = Annotated[Backend, typer.Option(help="where games run: local processes or "
                                                "Ray tasks")]
RayAddress = Annotated[str | None, typer.Option(help="Ray cluster address HOST:PORT, "
                                                "ray://HOST:PORT or auto (default: start "
                                                "one here)")]
ContentOption = Annotated[str, typer.Option(
    "--content", help="content folder or overlay to play (default: the shipped edition)")]
RecordContent = Annotated[Path | None, typer.Option(
    "--content", help="content folder or overlay the record was played with (default: "
    "the snapshot kept beside the record)")]
Force = Annotated[bool, typer.Option("--force", help="replace the games already in --out "
                                     "(default: resume them, or refuse a folder of another "
                                     "run)")]


def _check_run(seed: int, games: int, workers: int, ray_address: str | None) -> None:
    """The seeds, games and Ray address together, before any work (usage errors)."""
    from experiments.limits import check_run
    from experiments.ray_backend import check_address

    try:
        check_run(seed, games, workers)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--seed/--games") from None
    if ray_address is not None:
        try:
            check_address(ray_address)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--ray-address") from None


def _file_target(path: Path, hint: str) -> None:
    """A file to write: not a folder, a name the system takes (usage error if not)."""
    try:
        if path.is_dir():
            raise typer.BadParameter(f"{path} is a folder; name a file", param_hint=hint)
    except OSError as exc:
        raise typer.BadParameter(f"{path}: {exc.strerror or exc}", param_hint=hint) from None

def _check_content(content: str | Path | None) -> None:
    """A content folder that does not load is a usage error naming file, entry and field."""
    from evenstar_env.content import ContentError, load_content

    if content is None:
        return
    try:
        load_content(content)
    except ContentError as exc:
        raise typer.BadParameter(str(exc), param_hint="--content") from None


def _check_agents(specs: list[str], name: str) -> None:
    from agents.specs import make_agent

    for spec in specs:
        try:
            make_agent(spec, 0)
        except ValueError as exc:  # a bad agent spec or policy file
            raise typer.BadParameter(str(exc), param_hint=name) from None


def _output_dir(out: Path) -> None:
    from experiments.files import OutputDirError, ensure_output_dir

    try:
        ensure_output_dir(out)
    except OutputDirError as exc:
        fail(str(exc))


def _print_paired(rows: list[dict]) -> None:
    """The paired-seed scores, trinomial and pentanomial intervals side by side."""
    table = Table(title="Score over seed pairs, 95% CI: trinomial (games independent), "
                  "pentanomial (pairs as units)")
    for col in ("agent", "opponent", "pairs", "0-½-1-1½-2", "score", "trinomial",
                "pentanomial", "var ratio"):
        table.add_column(col)
    for r in rows:
        tri, pent = r["trinomial"], r["pentanomial"]
        ratio = r["variance_ratio"]
        table.add_row(r["agent"], r["opponent"], str(r["pairs"]),
                      "-".join(map(str, r["counts"])), f"{pent['score']:.1%}",
                      "[{:.1%}, {:.1%}]".format(*tri["ci95"]),
                      "[{:.1%}, {:.1%}]".format(*pent["ci95"]),
                      "-" if ratio is None else f"{ratio:.2f}")
    console.print(table)


@command
def arena(agents: Annotated[list[str], typer.Argument(help=AGENT_SPECS)],
          games: PairedGames = 50, workers: Workers = 2, seed: FirstSeed = 0,
          out: Annotated[Path, typer.Option(help="output folder (resumed if it has games "
                                              "of this command)")] = Path("results/arena"),
          backend: BackendOption = Backend.process, ray_address: RayAddress = None,
          force: Force = False, content: ContentOption = "shipped") -> None:
    """Agents play each other with paired seeds; win rates per side, ratings and plots."""
    from experiments.arena import arena as run

    if len(agents) < 2:
        raise typer.BadParameter("name at least two agents", param_hint="AGENTS")
    _check_run(seed, games, workers, ray_address)
    _check_content(content)
    _check_agents(agents, "AGENTS")
    _output_dir(out)
    try:
        summary = run(agents, games, out, workers=workers, seed0=seed, backend=backend.value,
                      ray_address=ray_address, force=force, content=content)
    except ValueError as exc:  # a folder of another run, or of changed data or weights
        fail(str(exc))
    table = Table(title=f"Arena ({games} paired seeds per pairing)")
    for col in ("agent", "opponent", "side", "games", "W", "D", "L", "win rate [95% CI]"):
        table.add_column(col)
    for r in summary["results"]:
        table.add_row(r["agent"], r["opponent"], r["side"], str(r["games"]), str(r["wins"]),
                      str(r["draws"]), str(r["losses"]),
                      f"{r['win_rate']:.1%} [{r['ci95_low']:.1%}, {r['ci95_high']:.1%}]")
    console.print(table)
    _print_paired(summary["paired"])
    for name, rating in summary["ratings"].items():
        console.print(f"rating {name}: mu {rating['mu']:.1f} sigma {rating['sigma']:.1f}")
    console.print(f"wrote {escape(str(out))}/summary.json, results.csv, games.jsonl and plots")


@command
def ratings(agents: Annotated[list[str], typer.Argument(help=AGENT_SPECS)],
            games: PairedGames = 10, workers: Workers = 2, seed: FirstSeed = 60000,
            out: Annotated[Path, typer.Option(help="results folder (games already there "
                                              "are kept)")] = Path("results/ratings"),
            backend: BackendOption = Backend.process, ray_address: RayAddress = None,
            readme: Annotated[Path | None, typer.Option(help="also write the table into "
                                                        "this README's Ratings section")] =
            None, force: Force = False, content: ContentOption = "shipped") -> None:
    """Round robin of agents on paired seeds; openskill ratings as Markdown and JSON."""
    from experiments.ratings import round_robin

    if len(agents) < 2 or len(set(agents)) < len(agents):
        raise typer.BadParameter("name at least two different agents", param_hint="AGENTS")
    _check_run(seed, games, workers, ray_address)
    _check_agents(agents, "AGENTS")
    _check_content(content)
    if readme is not None and not readme.is_file():
        raise typer.BadParameter(f"{readme}: no such file", param_hint="--readme")
    _output_dir(out)
    try:
        result = round_robin(agents, games, out, workers=workers, seed0=seed,
                             backend=backend.value, ray_address=ray_address, readme=readme,
                             force=force, content=content)
    except ValueError as exc:  # a folder of another run, or of changed data or weights
        fail(str(exc))
    table = Table(title=f"Ratings ({games} paired seeds per pairing, openskill)")
    for col in ("rank", "agent", "ordinal", "mu", "sigma", "games", "W-D-L"):
        table.add_column(col)
    for k, r in enumerate(result["ratings"], 1):
        table.add_row(str(k), r["agent"], f"{r['ordinal']:.1f}", f"{r['mu']:.1f}",
                      f"{r['sigma']:.1f}", str(r["games"]),
                      f"{r['wins']}-{r['draws']}-{r['losses']}")
    console.print(table)
    console.print(f"wrote {escape(str(out))}/ratings.md, ratings.json and the arena outputs"
                  + (f"; updated {escape(str(readme))}" if readme else ""))


@command
def ladder(games: PairedGames = 2, workers: Workers = 2, seed: FirstSeed = 90_000,
           add: Annotated[list[str] | None, typer.Option(help="an agent to rate besides the "
                                                         "fixed pool (repeatable)")] = None,
           bootstrap: Annotated[int, typer.Option(min=0, max=100_000, help="bootstrap refits "
                                                  "for the 95% intervals")] = 1000,
           out: Annotated[Path, typer.Option(help="results folder (games already there are "
                                              "kept)")] = Path("results/ladder"),
           backend: BackendOption = Backend.process, ray_address: RayAddress = None,
           readme: Annotated[Path | None, typer.Option(help="also write the table into this "
                                                       "README's Ladder section")] = None
           ) -> None:
    """Bradley–Terry Elo of the fixed agent pool (heuristic = 1500), bootstrap intervals."""
    from experiments.ladder import ladder as run

    _check_run(seed, games, workers, ray_address)
    _check_agents(add or [], "--add")
    if readme is not None and not readme.is_file():
        raise typer.BadParameter(f"{readme}: no such file", param_hint="--readme")
    _output_dir(out)
    try:
        result = run(out, games, add or [], seed, workers, bootstrap, readme=readme,
                     backend=backend.value, ray_address=ray_address)
    except ValueError as exc:  # a folder of another pool, or of changed data or weights
        fail(str(exc))
    table = Table(title=f"Ladder (pool v{result['config']['pool_version']}, "
                  f"{result['config']['total_games']} games)")
    for col in ("rank", "agent", "Elo", "95% interval", "games", "score"):
        table.add_column(col)
    for k, r in enumerate(result["ratings"], 1):
        table.add_row(str(k), r["agent"], f"{r['elo']:.0f}",
                      f"{r['ci95'][0]:.0f} – {r['ci95'][1]:.0f}", str(r["games"]),
                      f"{r['score']:.0%}")
    console.print(table)
    console.print(f"wrote {escape(str(out))}/ladder.md, ladder.json, ladder.png and the arena "
                  "outputs" + (f"; updated {escape(str(readme))}" if readme else ""))


@command
def exploiters(runs: Annotated[list[Path], typer.Argument(help="exploit run folders "
                                                           "(experiments.exploit --out)")],
               best: Annotated[Side | None, typer.Option(help="print only the checkpoint of "
                                                         "the strongest exploiter on this "
                                                         "seat")] = None) -> None:
    """Exploit runs side by side: each one's margin over the target's own rate on its
    seat, and the best a target and seat (the lower bound on its exploitability)."""
    from experiments import exploiters as ex

    try:
        found = ex.load(runs)
        if best is not None:
            top = ex.best(found, best.value)
            if not top.checkpoint.is_dir():
                fail(f"{top.path}: the strongest {best.value} exploiter, but no checkpoint at "
                     f"{top.checkpoint} (a copy of a result, not its run folder)")
            print(top.checkpoint)
            return
    except ValueError as exc:
        fail(str(exc))
    if not found:
        fail("no finished exploit run (exploit.json) among the folders given")
    table = Table(title="Exploiters (win rate on the seat over fresh seeds, 95% CI)")
    for col in ("target", "seat", "seed", "exploiter", "target's own", "margin", "run"):
        table.add_column(col, overflow="fold")
    for r in sorted(found, key=lambda r: (r.key, r.seat, r.seed or 0)):
        margin = "-" if r.baseline is None else f"{100 * (r.rate - r.baseline):+.1f}"
        table.add_row(r.target, r.seat, str(r.seed), f"{r.wins}/{r.games} = {r.rate:.1%} "
                      f"[{r.ci95[0]:.1%}, {r.ci95[1]:.1%}]",
                      "-" if r.baseline is None else f"{r.baseline:.1%}", margin, r.name)
    console.print(table)
    for b in ex.lower_bounds(found):
        bound = "no baseline" if b["margin"] is None else f"{100 * b['margin']:+.1f} points"
        weights = f" (weights {b['weights']})" if b["weights"] else ""
        console.print(f"{escape(b['target'])}{weights} as {b['seat']}: best of "
                      f"{b['exploiters']}: {bound} ({escape(b['best'])})", highlight=False,
                      soft_wrap=True)


@command
def play(side: Annotated[Side, typer.Option("--as", help="your side")] = Side.usa,
         opponent: Annotated[str, typer.Option(help=AGENT_SPECS)] = "heuristic",
         seed: Annotated[int, typer.Option(min=0, max=MAX_SEED, help="game seed (shown when "
                                           "the game ends: it fixes the hidden cards)")] = 0,
         save: Annotated[Path, typer.Option(help="where the game record is saved")] =
         Path("evenstar_game.json"), content: ContentOption = "shipped") -> None:
    """Play a game against an agent in the terminal."""
    from experiments.files import OutputDirError, ensure_output_dir
    from experiments.play import PlaySession

    _check_agents([opponent], "--opponent")
    _file_target(save, "--save")
    try:
        ensure_output_dir(save.parent)
    except OutputDirError as exc:
        raise typer.BadParameter(str(exc), param_hint="--save") from None
    _check_content(content)
    PlaySession(side.value, opponent, seed, save, console=console, content=content).run()


@command
def serve(host: Annotated[str, typer.Option(help="address to listen on (127.0.0.1: this "
                                            "machine only)")] = "127.0.0.1",
          port: Annotated[int, typer.Option(min=1, max=65535, help="port")] = 8765,
          db: Annotated[Path, typer.Option(help="the SQLite game store (created if missing)")]
          = Path("evenstar_games.sqlite"),
          records: Annotated[Path | None, typer.Option(help="folder of game records the "
                                                       "replay page may open")] = None,
          workers: Annotated[int, typer.Option(min=1, max=64, help="agent processes")] = 2,
          content: ContentOption = "shipped") -> None:
    """Serve the browser board (docs/web.md): play, watch and replay games."""
    try:
        import uvicorn

        from experiments.web import create_app
    except ImportError as exc:
        fail(f"the web extra is not installed ({exc.name}): pip install -e '.[web]'")
    if db.is_dir():
        raise typer.BadParameter(f"{db} is a folder; name a file", param_hint="--db")
    if records is not None and not records.is_dir():
        raise typer.BadParameter(f"{records} is not a folder", param_hint="--records")
    _check_content(content)
    loopback = host in ("127.0.0.1", "localhost", "::1")
    try:
        app = create_app(db, records, workers, allowed_hosts=(
            ["127.0.0.1", "localhost", "[::1]"] if loopback else None), content=content)
    except Exception as exc:  # sqlite3.Error, OSError: one line
        fail(f"cannot open the game store {db}: {exc}")
    console.print(f"Evenstar board at http://{host}:{port}/ (games in {escape(str(db))})")
    uvicorn.run(app, host=host, port=port, log_level="warning")


def _load_record(path: Path, content: Path | None = None):
    """The one loader of `replay` and `render`: the record and the content it was played
    with; a bad file is one line, exit 1."""
    from experiments import records

    _check_content(content)
    try:
        return records.load_played(path, content)
    except records.RecordError as exc:
        fail(str(exc))


@command
def replay(file: Annotated[Path, typer.Argument(help="a game record (.json)")],
           pause: Annotated[bool, typer.Option(help="wait for Enter after each action "
                                               "(q to stop)")] = True,
           content: RecordContent = None) -> None:
    """Step through a recorded game in the terminal."""
    from evenstar_env.events import render
    from experiments import records

    rec, played = _load_record(file, content)
    console.print(f"Replaying seed {rec.seed}: {escape(str(rec.agents))}")
    shown = 0
    g = None

    def news(g: Any) -> int:
        """Print the full event stream since the last call (a finished game shows all)."""
        new = g.events("all", shown)
        for r in new:
            if r["type"] != "decision":  # each decision is printed with its prompt
                console.print(f"  [dim]T{r['turn']} {escape(render(r, g.content))}[/]")
        return shown + len(new)

    try:
        for g, action in records.replay(rec, log=True, content=played):
            shown = news(g)  # what the previous decision did, before the next prompt
            console.print(f"[bold cyan]{g.decision}[/] -> {g.describe_action(action)}")
            if pause:
                try:
                    if console.input("").strip().lower() == "q":
                        return
                except EOFError:
                    return
    except records.RecordError as exc:
        fail(str(exc))
    if g is not None:
        news(g)
        result = g.result
        console.print(f"[bold]Result:[/] {result.reason if result else 'unfinished'}; "
                      f"VP {g.vp}")


@command
def render(file: Annotated[Path, typer.Argument(help="a game record (.json)")],
           turn: Annotated[int, typer.Option(min=0, max=1000, help="show the board at the "
                                             "start of this turn (0: the end)")] = 0,
           out: Annotated[Path, typer.Option(help="PNG file")] = Path("map.png"),
           content: RecordContent = None) -> None:
    """Write the map picture of a recorded game at the start of a turn, or at its end."""
    import matplotlib.image

    from evenstar_env.env.render import render_rgb
    from experiments import records

    _file_target(out, "--out")
    rec, played = _load_record(file, content)
    g = None
    for g, _ in records.replay(rec, content=played):  # noqa: B007  (to the end, or `turn`)
        if turn and g.turn >= turn:
            break
    if g is None:  # a record without actions
        g = records.final_game(rec, content=played)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        matplotlib.image.imsave(out, render_rgb(g), format="png")
    except OSError as exc:
        fail(f"{out}: cannot write the picture: {exc.strerror or exc}")
    console.print(f"wrote {escape(str(out))} (turn {g.turn}, {g.phase})")


@command
def balance(variants: Annotated[Path, typer.Option(help=escape(
                "TOML file of [[variant]] tables (the first is the baseline)"))] =
            VARIANTS_FILE,
            only: Annotated[list[str] | None, typer.Option("--variant", help="run only these "
                                                           "variants (repeatable)")] = None,
            usa: Annotated[str, typer.Option(help="US agent: " + AGENT_SPECS)] = "heuristic",
            china: Annotated[str, typer.Option(help="China agent")] = "heuristic",
            games: Annotated[int, typer.Option(min=1, max=MAX_GAMES, help="seeds per "
                                               "variant")] = 100,
            seed: FirstSeed = 0, workers: Workers = 2,
            backend: BackendOption = Backend.process, ray_address: RayAddress = None,
            sprt: Annotated[bool, typer.Option(help="stop a variant once the SPRT decides "
                                               "which side it favours")] = False,
            forbid: Annotated[list[str] | None, typer.Option(help="card id: add a causal "
                                                             "run with its event banned "
                                                             "(repeatable)")] = None,
            out: Annotated[Path, typer.Option(help="results folder (resumed if it has "
                                              "games)")] = Path("results/balance"),
            content: Annotated[str | None, typer.Option(
                "--content", help="content folder or overlay of the variants that name "
                "none (default: the shipped edition)")] = None) -> None:
    """Side balance of rule variants by self-play, with intervals, plots and a report."""
    from evenstar_env.content import ContentError
    from experiments.balance import Study, check_forbid, load_study_variants, run_study

    _check_run(seed, games, workers, ray_address)
    _check_content(content)
    try:
        chosen = load_study_variants(variants, only, content)
    except (ContentError, ValueError) as exc:
        raise typer.BadParameter(str(exc), param_hint="--variants/--variant") from None
    _check_agents([usa], "--usa")
    _check_agents([china], "--china")
    try:
        check_forbid(forbid or [], chosen[0])
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--forbid") from None
    _output_dir(out)
    study = Study(chosen, usa=usa, china=china, games=games, seed0=seed, workers=workers,
                  backend=backend.value, ray_address=ray_address, sprt=sprt,
                  forbid=forbid or [])
    try:
        summary = run_study(study, out)
    except ValueError as exc:  # games of changed data or weights
        fail(str(exc))
    from experiments.balance_report import conclusion, pct, signed

    table = Table(title=f"Balance: {usa} (US) vs {china} (China), {games} seeds per variant")
    for col in ("variant", "games", "US win rate % [95%]", "US − baseline, points [95%]",
                "SPRT"):
        table.add_column(col)
    base = summary["config"]["baseline"]
    for name, v in summary["variants"].items():
        d = v["diff_vs_baseline"]
        table.add_row(name, str(v["games"]),
                      f"{pct(v['usa']['rate'])} [{pct(v['usa']['ci95'][0])}, "
                      f"{pct(v['usa']['ci95'][1])}]",
                      "–" if name == base else
                      f"{signed(d['mean'])} [{signed(d['ci95'][0])}, {signed(d['ci95'][1])}]",
                      v.get("sprt", {}).get("meaning", ""))
    console.print(table)
    for name, v in summary["variants"].items():
        console.print(escape(conclusion(name, v, base)), highlight=False, soft_wrap=True)
    console.print(f"wrote {escape(str(out))}/report.md, conclusions.txt, summary.json, "
                  "games.csv, games.jsonl, cards.html, cards.csv and plots "
                  f"({summary['config'].get('seconds', 0) / 60:.1f} minutes)")


@command
def skill_curve(agents: Annotated[list[str], typer.Argument(help="each plays itself; "
                                                            + AGENT_SPECS)],
                games: Annotated[int, typer.Option(min=1, max=MAX_GAMES, help="seeds per "
                                                   "agent (the same seeds for every agent)")]
                = 400,
                seed: FirstSeed = 0, workers: Workers = 2,
                runs: Annotated[Path, typer.Option(help="where the games are kept (resumed)")]
                = Path("results/skill_curve"),
                out: Annotated[Path | None, typer.Option(
                    help="folder for skill_curve.json/.md/.png (default: the docs: "
                    "docs/data, docs/balance.md, docs/img/balance)")] = None,
                content: Annotated[str | None, typer.Option(
                    "--content", help="content folder or overlay (needs --out: the docs "
                    "describe the shipped edition)")] = None) -> None:
    """US win rate in self-play per agent: adds or replaces each agent's row in
    docs/data/skill_curve.json, the table in docs/balance.md and the plot (or in --out)."""
    from experiments import skill_curve as sc

    _check_run(seed, games, workers, None)
    _check_agents(agents, "AGENTS")
    _check_content(content)
    if content is not None and out is None:
        raise typer.BadParameter("a curve of other content goes to a folder of its own: "
                                 "name --out", param_hint="--content")
    _output_dir(runs)
    if out is not None:
        _output_dir(out)
    data, doc, png = sc.outputs(out)
    try:
        rows = sc.run(agents, games, seed0=seed, workers=workers, runs=runs, data=data,
                      doc=doc, png=png, content=content)
    except ValueError as exc:  # no table markers in docs/balance.md, or stale games
        fail(str(exc))
    console.print(sc.table(rows), highlight=False, soft_wrap=True)
    console.print(f"wrote {escape(str(data))}, {escape(str(doc))} and {escape(str(png))}")


content_app = typer.Typer(no_args_is_help=True, help="Check and compare content folders "
                          "and overlays (docs/content.md).")
app.add_typer(content_app, name="content")
ContentArg = Annotated[str, typer.Argument(help="content folder, overlay, or 'shipped'")]


def _content(spec: str):
    from evenstar_env.content import ContentError, load_content

    try:
        return load_content(spec)
    except ContentError as exc:
        fail(str(exc))


@content_app.command("check")
def content_check(folder: ContentArg) -> None:
    """Validate a content folder or overlay; print its cards per era and side, ops totals
    and map counts."""
    from evenstar_env.content.report import summary

    for line in summary(_content(folder)):
        console.print(escape(line), highlight=False, soft_wrap=True)


@content_app.command("diff")
def content_diff(a: ContentArg, b: ContentArg) -> None:
    """What differs from content A to content B, one line each, in words."""
    from evenstar_env.content.report import diff

    lines = diff(_content(a), _content(b))
    for line in lines:
        console.print(escape(line), highlight=False, soft_wrap=True)
    console.print(f"{len(lines)} difference(s)" if lines else "no difference")


@command
def cards(html: Annotated[Path, typer.Option("--html", help="HTML file of printable cards "
                                             "(print it from a browser)")],
          content: ContentOption = "shipped") -> None:
    """The deck as printable cards (name, side, ops, era, both texts) for paper playtests."""
    from evenstar_env.content.printable import deck_html

    _file_target(html, "--html")
    c = _content(content)
    try:
        html.parent.mkdir(parents=True, exist_ok=True)
        html.write_text(deck_html(c), encoding="utf-8")
    except OSError as exc:
        fail(f"{html}: cannot write the cards: {exc.strerror or exc}")
    console.print(f"wrote {escape(str(html))} ({len(c.cards)} cards, {c.nh} history cards)")


if __name__ == "__main__":
    app()
