"""Play against an agent in the terminal (rich): `evenstar play --as usa --opponent heuristic`.

At every decision the legal actions are listed; answer with a number or a
unique prefix of an action's text.  Commands: help, board, hand, log, undo,
save [FILE], load FILE, quit.  Nothing ends the session without saving: end of
input, quit, Ctrl-C and an unexpected error all save the game first (to a
rescue file if the save path cannot be written), and a failed ``save`` says why
and play goes on.  After every decision the game's event stream since the last one
is printed, filtered for the player's seat (docs/events.md): the opponent's draws,
hand and secret choices (its modifier card and its headline) never appear before
they are revealed.  While choosing a modifier card the history card's four outcomes
are shown; a card whose event can lose the game by total war (10.2, R21) asks for
confirmation.  The game's seed (from which the hidden cards and dice follow) is shown
only when the game ends, and kept in the saved record.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from evenstar_env import Game
from evenstar_env.content import ContentSpec, as_content
from evenstar_env.env.render import render_ansi
from evenstar_env.events import render
from experiments import records
from experiments.arena import make_agent
from experiments.selfplay import GameRecord

HELP = """Answer with the number of an action or a unique start of its text.
Commands: help, board, hand, log [N], undo (your last decision, if nothing was
revealed since), save [FILE], load FILE, quit.  End of input saves and exits."""

# Decisions both players take without seeing the other's (R14, R16): the opponent's
# choice is secret until the game reveals both.
SECRET_KINDS = {"modifier": "its modifier card", "headline": "its headline card"}
MAX_NUMBER_DIGITS = 9  # longer "numbers" are no action number (and no int() overflow)


def small_int(text: str) -> int | None:
    """`text` as a number if it is plain ASCII digits of a sensible length, else None."""
    if text.isascii() and text.isdigit() and len(text) <= MAX_NUMBER_DIGITS:
        return int(text)
    return None


class PlaySession:
    """One human-vs-agent game; input and output are injectable for tests."""

    def __init__(self, human: str, opponent: str, seed: int, save_path: Path,
                 console: Console | None = None,
                 input_fn: Callable[[str], str] | None = None,
                 content: ContentSpec = None) -> None:
        if human not in ("usa", "china"):
            raise ValueError("--as must be usa or china")
        self.content = as_content(content)  # a content folder or overlay (default: shipped)
        self.human, self.seed, self.save_path = human, seed, Path(save_path)
        self.opponent_spec = opponent
        self.opponent = make_agent(opponent, seed + 1)
        self.console = console or Console()
        self.input = input_fn or self.console.input
        self.actions: list[int] = []
        self.actors: list[str] = []
        self.chance_marks: list[int] = []  # chance outcomes seen before each action
        self.game = self._new_game(seed)
        self.shown = 0  # records of the event stream printed so far

    def _new_game(self, seed: int) -> Game:
        g = Game(seed, log=True, content=self.content)
        g._m.trace = []
        return g

    def lines(self, records: list[dict] | None = None) -> list[str]:
        """Event records (default: the whole stream as the human's seat sees it) as text
        (the decisions themselves are listed by the session)."""
        g = self.game
        recs = g.events(self.human) if records is None else records
        return [f"T{r['turn']} {render(r, g.content)}" for r in recs if r["type"] != "decision"]

    # ------------------------------------------------------------ loop
    def run(self) -> GameRecord:
        """Play to the end or until the player leaves; the game is saved in every case."""
        c = self.console
        try:
            c.print(f"[bold]Dawn of the Evenstar[/] — you play {self.human.upper()}, "
                    f"the opponent is {self.opponent_spec}. Type 'help'.")  # no seed: it
            # fixes the hidden cards and dice (shown when the game ends)
            self._show_board()
            self._news()
            while not self.game.is_over:
                if self.game.current_player != self.human:
                    self._step(self.opponent.act(None, self.game.action_mask(), self.game),
                               "them")
                    continue
                if not self._human_turn():
                    c.print(f"Saved to {escape(str(self._final_save()))}. Goodbye.")
                    return self.record()
        except KeyboardInterrupt:
            c.print(f"Interrupted: saved to {escape(str(self._final_save()))}.")
            return self.record()
        except Exception as exc:
            c.print(f"[red]Unexpected error ({type(exc).__name__}: {escape(str(exc))}); the game "
                    f"so far is saved to {escape(str(self._final_save()))}.[/]")
            raise
        self._news()
        r = self.game.result
        verdict = "a draw" if r.winner is None else ("you win" if r.winner == self.human
                                                   else "you lose")
        c.print(f"[bold]Game over[/]: {r.reason} — {verdict}. VP {self.game.vp}; the game's "
                f"seed was {self.seed}")
        c.print(f"Saved to {escape(str(self._final_save()))}.")
        return self.record()

    def _human_turn(self) -> bool:
        """Ask until one action is taken (True) or the player leaves (False)."""
        g, c = self.game, self.console
        legal = [int(a) for a in g.legal_actions()]
        texts = [g.describe_action(a) for a in legal]
        c.print(f"\n[bold cyan]{g.decision}[/]")
        if g.decision.kind == "modifier":
            self._show_history(g.decision.context["history"])
        for k, text in enumerate(texts, 1):
            c.print(f"  {k:2d}. {text}")
        while True:
            try:
                answer = self.input("> ").strip()
            except EOFError:
                return False
            if not answer:
                continue
            word, _, rest = answer.partition(" ")
            word = word.lower()
            if word == "quit":
                return False
            if word in ("help", "board", "hand", "log", "undo", "save", "load"):
                if self._command(word, rest.strip()):
                    return True  # the position changed (undo, load): list the actions anew
                continue
            choice = self._parse(answer, legal, texts)
            if choice is None or not self._confirm(choice):
                continue
            self._step(choice, "you")
            return True

    def _parse(self, answer: str, legal: list[int], texts: list[str]) -> int | None:
        if answer.isdigit():  # also "²" or a thousand digits: never an action number
            k = small_int(answer)
            if k is not None and 1 <= k <= len(legal):
                return legal[k - 1]
            shown = answer if len(answer) <= 12 else answer[:9] + "..."
            self.console.print(f"[red]No action {shown}: choose 1 to {len(legal)}.[/]")
            return None
        hits = [a for a, t in zip(legal, texts, strict=True)
                if t.lower().startswith(answer.lower())]
        if len(hits) == 1:
            return hits[0]
        self.console.print("[red]" + ("No action starts with that." if not hits else
                                      f"{len(hits)} actions start with that; be more "
                                      "precise or use the number.") + "[/]")
        return None

    def _step(self, action: int, who: str) -> None:
        g = self.game
        self.chance_marks.append(len(g._m.trace))
        self.actors.append(g.current_player)
        if who == "them":
            kind = g.decision.kind
            what = (f"chooses {SECRET_KINDS[kind]} (secret until both are revealed)"
                    if kind in SECRET_KINDS else g.describe_action(action))
            self.console.print(f"[magenta]{self.opponent_spec} ({g.current_player}):[/] "
                               f"{what}")
        g.step(action)
        self.actions.append(action)
        self._news()

    def _news(self) -> None:
        """What happened since last time: the seat's event stream (dice included)."""
        new = self.game.events(self.human, self.shown)
        for line in self.lines(new):
            self.console.print(f"  [dim]{escape(line)}[/]")
        self.shown += len(new)

    def _show_history(self, h: int) -> None:
        """A history card's four outcomes (R16: die + modifiers; 1, 2-3, 4-5, 6+)."""
        hist = self.game.content.history[h]
        self.console.print(f"  History card [bold]{escape(hist.name)}[/] ({hist.side}): die + "
                           f"both modifier cards (a counter cancels the other's card)")
        for rolls, outcome in zip(("≤1", "2-3", "4-5", "≥6"), hist.outcomes, strict=True):
            self.console.print(f"    {rolls:>3}: {escape(outcome.text)}")

    def _confirm(self, action: int) -> bool:
        """Before playing (or headlining) a card whose event can lose by total war, warn
        and ask (10.2, R21; Game.event_risks_total_war)."""
        g = self.game
        if g.decision.kind not in ("card", "headline") or g.action_group(action)[0] != "card":
            return True
        name = g.content.cards[g.action_group(action)[1]].name
        if not g.event_risks_total_war(name, self.human):
            return True
        self.console.print(f"[bold red]Warning:[/] playing '{escape(name)}' can lose the game "
                           "by total war (10.2): its event can bring diplomacy to 1, and you "
                           "would have caused it (R21).")
        try:
            answer = self.input("Play it anyway? [Y/n] ").strip().lower()
        except EOFError:
            return False
        return answer not in ("n", "no")

    # ------------------------------------------------------------ commands
    def _command(self, word: str, arg: str) -> bool:
        c = self.console
        if word == "help":
            c.print(HELP)
        elif word == "board":
            self._show_board()
        elif word == "hand":
            self._show_hand()
        elif word == "log":
            n = small_int(arg) or 20
            for line in self.lines()[-n:]:
                c.print(f"  {escape(line)}")
        elif word == "undo":
            return self._undo()
        elif word == "save":
            path = Path(arg).expanduser() if arg else self.save_path
            try:
                self.save(path)
            except OSError as exc:
                c.print(f"[red]Could not save to {escape(str(path))}: "
                        f"{escape(str(exc.strerror or exc))}. The game "
                        "goes on; try another file.[/]")
            else:
                c.print(f"Saved to {escape(str(path))}.")
        elif word == "load":
            if arg:
                return self._load(Path(arg))
            c.print("[red]Usage: load FILE[/]")
        return False

    def _undo(self) -> bool:
        """Take back the human's last decision if nothing hidden came out after it."""
        mine = [i for i, who in enumerate(self.actors) if who == self.human]
        if not mine:
            self.console.print("[red]Nothing of yours to undo.[/]")
            return False
        i = mine[-1]
        later = self.actors[i + 1:]
        if any(who != self.human for who in later) or \
                len(self.game._m.trace) != self.chance_marks[i]:
            self.console.print("[red]Cannot undo: dice, a draw or the opponent's move came "
                               "after your last decision.[/]")
            return False
        self._rebuild(self.actions[:i])
        self.console.print("Undone.")
        return True

    def _rebuild(self, actions: list[int], seed: int | None = None) -> None:
        """Replay `actions` from the start (of game `seed`, default the session's); the
        session changes only once the whole replay succeeded."""
        seed = self.seed if seed is None else seed
        game = self._new_game(seed)
        marks, actors = [], []
        for a in actions:
            marks.append(len(game._m.trace))
            actors.append(game.current_player)
            game.step(a)
        self.seed, self.game = seed, game
        self.actions, self.actors, self.chance_marks = list(actions), actors, marks
        self.shown = len(game.events())

    def _load(self, path: Path) -> bool:
        try:
            rec, content = records.load_played(path.expanduser())
            self.content = content
            self._rebuild(rec.actions, rec.seed)
        except (records.RecordError, ValueError) as exc:
            self.console.print(f"[red]{escape(str(exc))}[/]")
            return False
        self.console.print(f"Loaded {escape(str(path))}: turn {self.game.turn}.")
        return True

    def _show_board(self) -> None:
        self.console.print(render_ansi(self.game))

    def _show_hand(self) -> None:
        g = self.game
        table = Table(title=f"Your hand ({self.human})")
        for col in ("card", "side", "ops", "event"):
            table.add_column(col)
        for name in g.hand(self.human):
            card = g.content.cards[g.content.card_by_name[name]]
            table.add_row(card.name, card.side, str(card.ops), card.text)
        self.console.print(table)

    # ------------------------------------------------------------ records
    def record(self) -> GameRecord:
        g = self.game
        rec = GameRecord(self.seed, {self.human: "human",
                                     ("china" if self.human == "usa" else "usa"):
                                     self.opponent_spec}, list(self.actions))
        if g.is_over:
            rec.winner, rec.reason = g.result
        rec.turn, rec.vp = g.turn, g.vp
        return rec

    def save(self, path: Path | None = None) -> None:
        """Save the record to `path` (default: the session's save path); OSError if not."""
        records.save(self.record(), path or self.save_path, self.content)

    def _final_save(self) -> Path:
        """Save before leaving: to the save path, else to a rescue file; return where."""
        try:
            self.save()
            return self.save_path
        except OSError as exc:
            self.console.print(f"[red]Could not save to {escape(str(self.save_path))}: "
                               f"{escape(str(exc.strerror or exc))}.[/]")
        for folder in (Path.cwd(), Path(tempfile.gettempdir())):
            try:
                fd, name = tempfile.mkstemp(dir=folder, prefix="evenstar_game_rescue_",
                                            suffix=".json")
                os.close(fd)
                self.save(Path(name))
                return Path(name)
            except OSError:
                continue
        raise OSError(f"the game could not be saved anywhere (tried {self.save_path}, the "
                      "current folder and the temporary folder)")
