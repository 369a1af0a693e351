"""Live games: seats and tokens, the agents that play, persistence after every decision.

Every change to a game happens on the event loop's thread (so a game needs no lock); an
agent thinks in a worker process (thinking.py) on a copy of the game's state, and its move
is applied only if the game is still where it was when it started thinking (an undo may
have intervened).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
import sqlite3
import time
from collections import defaultdict, deque
from concurrent.futures import BrokenExecutor, Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from evenstar_env import Game
from evenstar_env.content import (
    Content,
    ContentError,
    content_from_files,
    content_id,
    fingerprint,
    load_content,
)

from .store import Store, StoredGame
from .thinking import make_pool, think
from .view import SEATS, log_entries, log_size

log = logging.getLogger("evenstar.web")
HUMAN = "human"
AGENT_TRIES = 3
MAX_RUNNING = 1000  # games in progress at once (idle ones not counted)
IDLE_S = 3600.0  # an unfinished game untouched this long is idle (abandoned)
MAX_LOADED = 2000  # games kept in memory (finished ones beyond are dropped, then rebuilt)
LOGS_KEPT = 200  # games whose rendered logs are kept (about 1 MB a game and viewer at most)
SEED_BITS = 62
MAX_SPEED = 60.0  # seconds per agent move, the slowest watch speed


class ApiError(Exception):
    """A refused request: an HTTP status and one line saying why; nothing changed."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def new_game(seed: int, content: Content | None = None) -> Game:
    """A game of `content` (default: the shipped edition) on the Python engine recording
    its event stream (the log, docs/events.md) and its chance trace (for undo, as the
    terminal game's)."""
    g = Game(seed, events=True, backend="python", content=content)
    g._m.trace = []
    return g


@dataclass
class LiveGame:
    """One game being played: its game, actions, who took each, and its seats."""

    stored: StoredGame
    game: Game
    actors: list[str] = field(default_factory=list)
    chance_marks: list[int] = field(default_factory=list)  # chance trace length before each
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    driver: asyncio.Task | None = None
    agent_error: str | None = None  # why the agent to move could not move
    log_cache: dict[str | None, list[dict]] = field(default_factory=dict)  # per viewer
    touched: float = field(default_factory=time.monotonic)  # last asked for or moved

    def idle(self, now: float) -> bool:
        """Unfinished but untouched for IDLE_S, with no agent thinking: an abandoned game
        (it stays in the store, and comes back when asked for)."""
        return (not self.game.is_over and now - self.touched > IDLE_S
                and (self.driver is None or self.driver.done()))

    @property
    def id(self) -> str:
        return self.stored.id

    @property
    def actions(self) -> list[int]:
        return self.stored.actions

    @property
    def mode(self) -> str:
        humans = [s for s in SEATS if self.stored.players[s] == HUMAN]
        if len(humans) == 2:
            return "hotseat" if self.stored.options.get("hotseat") else "remote"
        return "agent" if humans else "watch"

    def step(self, action: int) -> None:
        g = self.game
        self.chance_marks.append(len(g._m.trace))
        self.actors.append(g.current_player)
        g.step(action)
        self.actions.append(action)

    def log(self, viewer: str | None, start: int) -> tuple[list[dict], int]:
        """The log from record `start` on for `viewer` (view.log_entries), each record
        filtered and rendered once and kept."""
        cache = self.log_cache.setdefault(viewer, [])
        total = log_size(self.game)
        if len(cache) < total:
            cache.extend(log_entries(self.game, viewer, len(cache))[0])
        return cache[start:], total

    def notify(self) -> None:
        """Wake every long-poll waiting on this game."""
        self.changed.set()
        self.changed = asyncio.Event()


def rebuild(stored: StoredGame, content: Content | None = None) -> LiveGame:
    """A live game from its seed, content and actions (the engine is deterministic)."""
    actions, stored.actions = stored.actions, []
    live = LiveGame(stored, new_game(stored.seed, content))
    for a in actions:
        live.step(a)
    return live


class Sessions:
    """All live games of a server, their store and the agents' worker threads."""

    def __init__(self, store: Store, workers: int = 2, processes: bool = True,
                 content: Content | None = None) -> None:
        self.store = store
        # New games play `content`; each game keeps the id of the content it was started
        # with (its snapshot in the store), so it resumes and replays after any edit.
        self.content = content or load_content()
        self.content_id = content_id(self.content)
        store.keep_content(self.content_id, self.content.files)
        self.workers, self.processes = workers, processes
        self.games: dict[str, LiveGame] = {}  # loaded games, least recently used first
        self._loading: dict[str, asyncio.Future] = {}
        self._logs: dict[str, LiveGame] = {}  # games whose rendered log is kept, LRU order
        self.resuming: asyncio.Task | None = None  # resume_all, run in the background
        self._drivers: set[asyncio.Task] = set()  # the agents' drivers running
        self.closing = False
        # The agents: quick ones (heuristic, learned, random, cautious) and searching ones
        # (ismcts, alphaism: up to seconds a move) in pools of their own, so that a search
        # never delays a quick agent's move; the search pool starts at its first use.
        self.pools: dict[str, Executor] = {"quick": make_pool(workers, processes)}
        self.threads = ThreadPoolExecutor(2, thread_name_prefix="rebuild")  # rebuilds, analysis
        # Seconds from an agent's turn to its move applied, per spec (the last 10,000).
        self.move_seconds: dict[str, deque[float]] = defaultdict(lambda: deque(maxlen=10_000))
        self.move_counts: dict[str, int] = defaultdict(int)

    # ------------------------------------------------------------ lifecycle
    async def resume_all(self) -> None:
        """Start the agents' workers, then rebuild every unfinished game with an agent (in a
        worker thread, one at a time: the server answers meanwhile; a game asked for is
        rebuilt first) and restart its agents.  Games of two people wait for them."""
        for _ in range(self.workers):  # started now, not at the first game's first move
            self.pools["quick"].submit(int)
        for gid in self.store.unfinished():
            stored = self.store.load(gid)
            if stored is None or set(stored.players.values()) == {HUMAN}:
                continue
            with contextlib.suppress(ApiError):
                await self.get(gid)

    async def close(self) -> None:
        """Stop every agent driver (no new one starts), then the workers."""
        self.closing = True
        if self.resuming is not None:
            self.resuming.cancel()
        for task in list(self._drivers):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for pool in self.pools.values():
            pool.shutdown(wait=False, cancel_futures=True)
        self.threads.shutdown(wait=False, cancel_futures=True)

    def log(self, live: LiveGame, viewer: str | None, start: int) -> tuple[list[dict], int]:
        """`live.log`, with the rendered logs of at most LOGS_KEPT games kept in memory
        (least recently viewed first dropped; they are rendered again when asked for)."""
        self._logs.pop(live.id, None)
        self._logs[live.id] = live
        while len(self._logs) > LOGS_KEPT:
            self._logs.pop(next(iter(self._logs))).log_cache = {}
        return live.log(viewer, start)

    def stats(self, last: int = 10_000) -> dict[str, Any]:
        """Games loaded and in progress; per agent spec, its moves so far (total) and the
        times of its `last` moves (seconds from its turn to its move applied, thinking and
        waiting for a worker included)."""
        moves = {}
        for spec, times in list(self.move_seconds.items()):
            xs = sorted(list(times)[-last:])
            if xs:
                moves[spec] = {"total": self.move_counts[spec], "moves": len(xs),
                               "p50": xs[len(xs) // 2],
                               "p95": xs[min(len(xs) - 1, int(0.95 * len(xs)))], "max": xs[-1]}
        running = sum(not live.game.is_over for live in self.games.values())
        return {"games_loaded": len(self.games), "games_in_progress": running,
                "agent_moves": moves}

    # ------------------------------------------------------------ games
    def create(self, players: dict[str, str], options: dict[str, Any]) -> LiveGame:
        """A new game; agent specs are checked first (ApiError 400 on a bad one), and the
        number of games in progress is bounded (429)."""
        now = time.monotonic()
        if sum(not live.game.is_over and not live.idle(now)
               for live in self.games.values()) >= MAX_RUNNING:
            raise ApiError(429, f"{MAX_RUNNING} games are in progress on this server; "
                                "finish one or try later")
        for seat in SEATS:
            if players[seat] != HUMAN:
                check_spec(players[seat], seat, self.content)
        humans = [s for s in SEATS if players[s] == HUMAN]
        if options.get("hotseat") and len(humans) != 2:
            raise ApiError(400, "hotseat needs both seats human")
        tokens: dict[str, str | None] = {s: None for s in SEATS}
        if options.get("hotseat"):
            shared = secrets.token_urlsafe(24)
            tokens = {s: shared for s in SEATS}
        else:
            tokens.update({s: secrets.token_urlsafe(24) for s in humans})
        stored = StoredGame(secrets.token_urlsafe(9), secrets.randbits(SEED_BITS), players,
                            options, tokens, False, content=self.content_id)
        live = LiveGame(stored, new_game(stored.seed, self.content))
        self.store.create(stored)
        self._evict(1)
        self.games[stored.id] = live
        self.kick(live)
        return live

    async def get(self, game_id: str) -> LiveGame:
        """A game by id, rebuilt from the store (in a worker thread) if it is not loaded."""
        live = self.games.get(game_id)
        if live is not None:
            self.games[game_id] = self.games.pop(game_id)  # most recently used last
            live.touched = time.monotonic()
            return live
        if game_id not in self._loading:
            stored = self.store.load(game_id) if _plausible_id(game_id) else None
            if stored is None:
                raise ApiError(404, f"no game {game_id[:40]!r}")
            loop = asyncio.get_running_loop()
            content = self.content_of(stored.content)
            self._loading[game_id] = loop.run_in_executor(self.threads, rebuild, stored,
                                                          content)
        try:
            live = await asyncio.shield(self._loading[game_id])
        finally:
            done = self._loading.get(game_id)
            if done is not None and done.done():
                del self._loading[game_id]
        if game_id not in self.games:
            self._evict(1)
            self.games[game_id] = live
            self.kick(live)
        return self.games[game_id]

    def content_of(self, cid: str | None) -> Content:
        """The content a content id names: this server's, a snapshot kept in the store, or
        (None: a game stored before games kept their content) the shipped edition; 404 for
        an id the store does not hold."""
        if cid is None:
            return load_content()
        if cid == self.content_id:
            return self.content
        files = self.store.content(cid) if cid.isalnum() and len(cid) <= 64 else None
        if files is None:
            raise ApiError(404, f"no content {cid[:40]!r} on this server")
        try:
            return content_from_files(files, cid)
        except ContentError as exc:  # a damaged store: one line, nothing played
            raise ApiError(500, f"content {cid} cannot be loaded: {exc}"[:300]) from None

    def _evict(self, room: int) -> None:
        """Make room for `room` more games within MAX_LOADED in memory: finished and idle
        ones, least recently used first, are dropped (the store keeps them; they are rebuilt
        when asked for)."""
        extra = len(self.games) + room - MAX_LOADED
        if extra <= 0:
            return
        now = time.monotonic()
        for gid in [g for g, live in self.games.items()
                    if live.game.is_over or live.idle(now)][:extra]:
            self._logs.pop(gid, None)
            del self.games[gid]

    def seats_of(self, live: LiveGame, token: str | None) -> list[str]:
        """The seats a token may act for (both for a hot-seat token)."""
        if not token:
            return []
        return [s for s in SEATS if live.stored.tokens.get(s)
                and secrets.compare_digest(live.stored.tokens[s].encode(), token.encode())]

    def apply(self, live: LiveGame, decision: int, action: int) -> None:
        """Take a legal action at decision `decision` and persist it (then notify)."""
        if decision != len(live.actions):
            raise ApiError(409, f"stale decision {decision}: the game is at decision "
                                f"{len(live.actions)}")
        g = live.game
        if g.is_over:
            raise ApiError(409, "the game is over")
        if action not in g.decision.legal:
            raise ApiError(400, f"action {action} is not one of the legal actions of this "
                                f"decision ({len(g.decision.legal)} legal)")
        live.step(action)
        live.touched = time.monotonic()
        try:
            self.store.append(live.id, len(live.actions) - 1, action, g.is_over)
        except sqlite3.Error as exc:  # not stored: not taken (the game is replayed without it)
            fresh = rebuild(dataclasses.replace(live.stored, actions=live.actions[:-1]),
                            live.game.content)
            live.stored, live.game, live.log_cache = fresh.stored, fresh.game, {}
            live.actors, live.chance_marks = fresh.actors, fresh.chance_marks
            log.error("game %s: a move could not be stored: %s", live.id, exc)
            raise ApiError(503, f"the move could not be stored ({exc}); nothing changed, "
                                "try again") from None
        live.notify()
        self.kick(live)

    def undoable(self, live: LiveGame, seats: list[str]) -> int | str:
        """The decision an undo for `seats` would take back, or why there is none: the
        seats' last decision, if nobody else decided and nothing hidden came out since (as
        the terminal game's undo)."""
        mine = [i for i, who in enumerate(live.actors) if who in seats]
        if not mine:
            return "nothing of yours to undo"
        i = mine[-1]
        if any(who != live.actors[i] for who in live.actors[i + 1:]) or \
                len(live.game._m.trace) != live.chance_marks[i]:
            return "cannot undo: dice, a draw or the other side's move came after your last " \
                   "decision"
        if live.mode == "remote" and live.game.action_group(live.actions[i])[0] == "card":
            # The other player has seen the card chosen (it is on the table): taking it back
            # would let a hand card be shown and hidden again.
            return "cannot undo: the other player has seen the card you chose"
        return i

    async def undo(self, live: LiveGame, seats: list[str]) -> None:
        """Take back the last decision of one of `seats` where `undoable` allows it (409);
        the game is replayed without it in a worker thread."""
        i = self.undoable(live, seats)
        if isinstance(i, str):
            raise ApiError(409, i)
        at = len(live.actions)
        shorter = dataclasses.replace(live.stored, actions=live.actions[:i])
        fresh = await asyncio.get_running_loop().run_in_executor(self.threads, rebuild, shorter,
                                                                 live.game.content)
        if len(live.actions) != at:
            raise ApiError(409, "the game moved on while undoing; nothing was undone")
        self.store.truncate(live.id, i)
        live.stored, live.game, live.log_cache = fresh.stored, fresh.game, {}
        live.actors, live.chance_marks = fresh.actors, fresh.chance_marks
        live.notify()

    # ------------------------------------------------------------ agents
    def kick(self, live: LiveGame) -> None:
        """Start the game's agent driver if an agent is to move and none runs."""
        if self.closing or (live.driver is not None and not live.driver.done()):
            return
        if self._agent_to_move(live) is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (a rebuild outside the server): resume_all kicks it later
        live.driver = loop.create_task(self._drive(live))
        self._drivers.add(live.driver)
        live.driver.add_done_callback(self._drivers.discard)

    def _agent_to_move(self, live: LiveGame) -> str | None:
        g = live.game
        if g.is_over:
            return None
        spec = live.stored.players[g.current_player]
        return None if spec == HUMAN else spec

    def pool_for(self, spec: str) -> Executor:
        kind = pool_kind(spec)
        if kind not in self.pools:
            self.pools[kind] = make_pool(self.workers, self.processes)
        return self.pools[kind]

    async def _drive(self, live: LiveGame) -> None:
        """Play the agents' moves while an agent is to move (at the game's speed).  A failed
        move is tried again (a worker that died is replaced); after AGENT_TRIES failures the
        game waits with `agent_error` set, which its view shows."""
        loop = asyncio.get_running_loop()
        speed = float(live.stored.options.get("speed", 0) or 0)
        failures = 0
        while (spec := self._agent_to_move(live)) is not None:
            if speed:
                await asyncio.sleep(speed)
            t0 = time.perf_counter()
            at = len(live.actions)
            state = live.game.state.to_dict()
            c = live.game.content
            files = None if content_id(c) == shipped_id() else c.files  # workers know that
            try:
                action = await loop.run_in_executor(self.pool_for(spec), think, spec, state,
                                                    files, content_id(c))
                if len(live.actions) != at or live.game.is_over:
                    continue  # the game moved on meanwhile (an undo): think again
                self.apply(live, at, action)
            except BrokenExecutor:
                log.warning("agent workers died; starting new ones")
                self.pools[pool_kind(spec)] = make_pool(self.workers, self.processes)
                failures += 1
            except Exception as exc:  # an agent's bug must not end the server's driving
                log.exception("agent %s failed in game %s", spec, live.id)
                failures += 1
                if failures >= AGENT_TRIES:
                    live.agent_error = f"{spec} failed: {type(exc).__name__}: {exc}"[:300]
                    live.notify()
                    return
            else:
                failures = 0
                live.agent_error = None
                self.move_seconds[spec].append(time.perf_counter() - t0)
                self.move_counts[spec] += 1


OFFERED = ("heuristic", "learned", "rollout:64,depth=100", "alphaism:200", "ismcts:300",
           "cautious", "random")
# iterations (simulations, play-outs) and seconds a move; rollout has no time budget: its
# play-outs are bounded in count, width and depth instead (a move stays under ~10 s).
MAX_SEARCH = {"ismcts": (20000, 10.0), "alphaism": (5000, 10.0), "rollout": (256, 0.0)}
ROLLOUT_BOUNDS = {"width": 16, "depth": 400}
# alphaism whose leaves are played out costs a play-out a simulation: rollout's bounds
PLAYOUT_BOUNDS = {"simulations": MAX_SEARCH["rollout"][0], "width": 16, "playout": 400}


def pool_kind(spec: str) -> str:
    """The worker pool an agent thinks in: "search" for the searching agents, else "quick"."""
    return "search" if spec.partition(":")[0] in MAX_SEARCH else "quick"


NETWORKS = ("learned", "alphaism", "rollout")  # the shipped network's agents (its board only)


def shipped_id() -> str:
    """The shipped edition's content id (the workers load it themselves)."""
    return content_id(load_content())


def offered(content: Content | None = None) -> list[str]:
    """The agent specs offered for games of `content`: the shipped network's agents only
    where it can read the content (any deck on the shipped board: it reads cards by their
    data, agents/networks.py)."""
    return [a for a in OFFERED if a.partition(":")[0] not in NETWORKS or network_plays(content)]


def network_plays(content: Content | None) -> bool:
    """Whether the shipped network plays `content` (kept per layout)."""
    if content is None:
        return True
    fp = fingerprint(content)
    if fp not in _PLAYS:
        from agents.learned_agent import DEFAULT_PATH
        from agents.networks import plays

        _PLAYS[fp] = plays(DEFAULT_PATH, content)
    return _PLAYS[fp]


_PLAYS: dict[str, bool] = {}


def check_spec(spec: str, seat: str, content: Content | None = None) -> None:
    """An agent spec a web client may ask for: the shipped networks only (no paths on the
    server's disk; on content of the shipped layout) and search budgets within bounds
    (ApiError 400 otherwise)."""
    from agents.specs import alphaism_options, rollout_options

    kind, _, arg = spec.partition(":")

    def refuse(why: str) -> ApiError:
        return ApiError(400, f"{seat}: agent {spec[:60]!r} refused: {why}; offered: "
                             f"human, {', '.join(offered(content))}")

    if kind in NETWORKS and kind not in {a.partition(":")[0] for a in offered(content)}:
        raise refuse(f"{kind} was trained on the shipped board and cannot read this "
                     f"server's content ({content.source if content else 'shipped'})")

    if kind in ("heuristic", "learned", "cautious", "random"):
        if arg:
            raise refuse(f"{kind} takes no argument here")
        return
    if kind not in MAX_SEARCH:
        raise refuse("unknown agent")
    most, secs = MAX_SEARCH[kind]
    if kind == "ismcts":
        iters, _, seconds = arg.partition(":")
        ok = (not iters or (iters.isdigit() and 1 <= int(iters) <= most)) and (
            not seconds or _number(seconds, secs))
        if not ok:
            raise refuse(f"ismcts:ITER[:SECONDS] with ITER 1..{most}, SECONDS up to {secs}")
        return
    budget, _, path = arg.partition(":")
    if path:
        raise refuse(f"{kind} plays the shipped network only (no PATH)")
    try:
        kw = (rollout_options if kind == "rollout" else alphaism_options)(budget)
    except ValueError as exc:
        raise refuse(str(exc)) from None
    if kind == "rollout":
        too_big = [k for k, most_k in ROLLOUT_BOUNDS.items() if (kw.get(k) or 0) > most_k]
        if (kw.get("simulations") or 0) > most or too_big:
            raise refuse(f"rollout[:SIMS[,depth=D]] with SIMS 1..{most}, D 1..400 (and "
                         f"width up to 16)")
        return
    if (kw.get("simulations") or 0) > most or (kw.get("seconds") or 0) > secs:
        raise refuse(f"at most {most} simulations or {secs} s a move")
    if "playout" in kw and any((kw.get(k) or 0) > v for k, v in PLAYOUT_BOUNDS.items()):
        raise refuse("with playout=N: N up to 400, at most 256 simulations, width up to 16")


def _number(text: str, most: float) -> bool:
    try:
        return 0 < float(text) <= most
    except ValueError:
        return False


def _plausible_id(game_id: str) -> bool:
    return 0 < len(game_id) <= 64 and game_id.replace("-", "").replace("_", "").isalnum()
