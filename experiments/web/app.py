"""The web server: FastAPI routes over the live games, the store and the replays.

``create_app(db_path, records_dir=None, content=None)`` builds the app; ``evenstar serve``
runs it under uvicorn.  Every refused request is a 4xx ``{"error": "one line"}`` and
changes nothing.  The API is documented by FastAPI's own OpenAPI (``/openapi.json``,
``/api/docs``) and in docs/web.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import sqlite3
from collections import OrderedDict
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import Body, FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, field_validator
from starlette.exceptions import HTTPException as StarletteHTTPException

from evenstar_env.content import Content, ContentSpec, as_content, content_id
from evenstar_env.engine.actions import ActionSpace
from experiments import records
from experiments.selfplay import GameRecord

from .analysis import analyse
from .replays import Replay, record_from_data, record_from_file
from .sessions import HUMAN, MAX_SPEED, ApiError, LiveGame, Sessions, offered
from .store import Store
from .view import SEATS, content_json, game_view

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 1024 * 1024  # a record with its content snapshot is ~0.25 MB; larger: refused (413)
MAX_WAIT = 25.0  # seconds a long-poll waits at most
REPLAY_CACHE = 16
TOKEN_HEADER = "X-Seat-Token"


# ------------------------------------------------------------------ request bodies
class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewGame(Strict):
    usa: str = Field(HUMAN, max_length=80, description="human or an agent spec")
    china: str = Field("heuristic", max_length=80, description="human or an agent spec")
    hotseat: StrictBool = Field(False, description="both seats human, one screen")
    analysis: StrictBool = Field(False, description="the learned policy's advice, on request")
    speed: float = Field(0.0, ge=0, le=MAX_SPEED, description="seconds per agent move")

    @field_validator("speed", mode="before")
    @classmethod
    def _number(cls, v: Any) -> Any:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError("speed must be a number of seconds")
        return v


class Act(Strict):
    decision: StrictInt = Field(description="the view's decision_index (stale guard)")
    action: StrictInt = Field(description="an action id of the decision's options")


class Created(BaseModel):
    id: str
    seats: dict[str, str | None]
    links: dict[str, str | None]


class Guard:
    """ASGI middleware: a Host header not among `hosts` (when given) is refused with 400;
    a request body over `limit` bytes with 413 before the app sees it (declared by
    Content-Length or sent in chunks): the body is read here, bounded, and handed on."""

    def __init__(self, app: Any, limit: int, hosts: list[str] | None = None) -> None:
        self.app, self.limit, self.hosts = app, limit, hosts

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope["headers"])
        if self.hosts is not None:
            host = headers.get(b"host", b"").decode("latin-1")
            name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            if name not in self.hosts:
                resp = JSONResponse({"error": f"unknown host {host[:60]!r}"}, status_code=400)
                return await resp(scope, receive, send)
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            return await _too_large(scope, receive, send, self.limit)
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client left
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.limit:
                return await _too_large(scope, receive, send, self.limit)
            more = message.get("more_body", False)
        body, sent = b"".join(chunks), False

        async def replay() -> dict:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: wait for the disconnect

        await self.app(scope, replay, send)


async def _too_large(scope: dict, receive: Any, send: Any, limit: int) -> None:
    resp = JSONResponse({"error": f"request body over {limit} bytes"}, status_code=413)
    await resp(scope, receive, send)


# ------------------------------------------------------------------ the app
def create_app(db_path: str | Path = ":memory:", records_dir: str | Path | None = None,
               workers: int = 2, max_wait: float = MAX_WAIT, processes: bool = True,
               allowed_hosts: list[str] | None = None, content: ContentSpec = None
               ) -> FastAPI:
    """The web app over the SQLite store at `db_path` (records for replays under
    `records_dir`), new games playing `content` (a content folder or overlay; default the
    shipped edition); the agents think in `workers` processes (threads if not `processes`);
    requests naming another Host than `allowed_hosts` (when given) are refused (400), so a
    web page cannot reach a server on this machine by DNS rebinding."""
    store = Store(db_path)
    sessions = Sessions(store, workers, processes, as_content(content))
    folder = Path(records_dir) if records_dir is not None else None
    replays: OrderedDict[str, Replay] = OrderedDict()
    drawn: OrderedDict[str, bytes] = OrderedDict()  # content id -> its /api/content JSON

    def content_bytes(c: Content) -> bytes:
        """A content's static data for the client (kept for the last few contents)."""
        cid = content_id(c)
        if cid not in drawn:
            drawn[cid] = json.dumps(content_json(c, ["human", *offered(c)],
                                                 ActionSpace.for_content(c)),
                                    ensure_ascii=False).encode()
            while len(drawn) > REPLAY_CACHE:
                drawn.popitem(last=False)
        drawn.move_to_end(cid)
        return drawn[cid]

    content_bytes(sessions.content)

    @asynccontextmanager
    async def lifespan(app: FastAPI):  # noqa: ANN202
        sessions.resuming = asyncio.create_task(sessions.resume_all())
        yield
        await sessions.close()
        store.close()

    app = FastAPI(title="Evenstar", version="1", lifespan=lifespan, docs_url="/api/docs",
                  description="Dawn of the Evenstar in the browser (docs/web.md).")
    app.state.sessions = sessions
    app.add_middleware(Guard, limit=MAX_BODY, hosts=allowed_hosts)

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        e = exc.errors()[0] if exc.errors() else {"msg": "invalid request", "loc": ()}
        where = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
        return JSONResponse({"error": f"{where + ': ' if where else ''}{e['msg']}"[:300]},
                            status_code=400)

    @app.exception_handler(sqlite3.Error)
    async def _store_failed(request: Request, exc: sqlite3.Error) -> JSONResponse:
        message = f"the game store failed ({exc}); nothing was saved, try again"
        return JSONResponse({"error": message[:300]}, status_code=503)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)

    # -------------------------------------------------------------- helpers
    def seat_for(live: LiveGame, token: str | None, as_: str | None) -> str | None:
        """The seat a request sees the game as (None: a spectator); 403 for a bad token."""
        if token is None:
            if as_ is not None:
                raise ApiError(403, "?as= needs the seat's token (X-Seat-Token)")
            return None
        seats = sessions.seats_of(live, token)
        if not seats:
            raise ApiError(403, "this token is no seat's of this game")
        if as_ is not None:
            if as_ not in seats:
                raise ApiError(403, f"this token does not hold the {as_} seat")
            return as_
        if len(seats) == 1:
            return seats[0]
        current = live.game.current_player
        return current if current in seats else seats[0]

    def view_of(live: LiveGame, seat: str | None, log_from: int) -> JSONResponse:
        reveal = live.game.is_over
        v = game_view(live.game, seat=seat, reveal=reveal,
                      log=sessions.log(live, "all" if reveal else seat, log_from))
        v.update(id=live.id, mode=live.mode, players=dict(live.stored.players),
                 decision_index=len(live.actions),
                 analysis=bool(live.stored.options.get("analysis")),
                 agent_error=live.agent_error,
                 can_undo=(seat is not None and not live.game.is_over and isinstance(
                     sessions.undoable(live, _undo_seats(live, seat)), int)),
                 speed=float(live.stored.options.get("speed", 0) or 0))
        return JSONResponse(v)  # plain JSON already: no jsonable_encoder walk (ms a view)

    def replay(replay_id: str) -> Replay:
        r = replays.get(replay_id)
        if r is None:
            data = store.replay(replay_id) if len(replay_id) <= 64 else None
            if data is None:
                raise ApiError(404, f"no replay {replay_id[:40]!r}")
            r = Replay.build(*played(data))
            replays[replay_id] = r
            while len(replays) > REPLAY_CACHE:
                replays.popitem(last=False)
        replays.move_to_end(replay_id)
        return r

    def played(data: Any) -> tuple[GameRecord, Content]:
        """A posted or stored record and its content: a content id this server keeps
        (its own, or that of a game or replay here), else as records.content_of finds it."""
        cid = data.get("content_id") if isinstance(data, dict) else None
        known = None
        if isinstance(cid, str) and "content_snapshot" not in data:
            with contextlib.suppress(ApiError):
                known = sessions.content_of(cid)
        if known is not None:
            try:
                records.check_layout(Path("record"), data, known)
            except records.RecordError as exc:
                raise ApiError(400, str(exc)[:300]) from None
        return record_from_data(data, content=known)

    # -------------------------------------------------------------- routes
    @app.get("/", include_in_schema=False)
    async def index() -> Any:
        page = STATIC / "index.html"
        if not page.is_file():
            raise ApiError(404, "the browser client is not installed (experiments/web/static)")
        return FileResponse(page)

    if STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/api/content", summary="Static data for drawing the board",
             response_class=JSONResponse)
    async def get_content() -> Response:
        return Response(content_bytes(sessions.content), media_type="application/json")

    @app.get("/api/content/{cid}", summary="Static data of the content a game or replay "
             "was played with (its view's content_id)", response_class=JSONResponse)
    async def get_content_of(cid: str) -> Response:
        # every game's and replay's content is in the store (a replay keeps it on loading)
        data = drawn.get(cid) or content_bytes(sessions.content_of(cid))
        return Response(data, media_type="application/json")

    @app.get("/api/agents", summary="The agent specs a game may name")
    async def get_agents() -> dict[str, Any]:
        forms = ["human", "heuristic", "learned", "random", "cautious",
                 "rollout[:SIMS[,depth=D]]", "alphaism[:SIMS|SECONDSs]",
                 "ismcts[:ITER[:SECONDS]]"]
        mine = offered(sessions.content)
        return {"agents": mine, "forms": [f for f in forms if f.partition("[")[0] in
                                          {"human", *(a.partition(":")[0] for a in mine)}]}

    @app.get("/api/stats", summary="Games in progress and the agents' move times")
    async def stats(last: Annotated[int, Query(ge=1, le=10_000)] = 10_000) -> dict[str, Any]:
        return sessions.stats(last)

    @app.post("/api/games", summary="Start a game", response_model=Created)
    async def create_game(req: NewGame) -> dict[str, Any]:
        players = {"usa": req.usa, "china": req.china}
        live = sessions.create(players, {"hotseat": req.hotseat, "analysis": req.analysis,
                                         "speed": req.speed})
        tokens = live.stored.tokens
        links = {s: (f"/#game={live.id}&token={tokens[s]}" if tokens[s] else None)
                 for s in SEATS}
        links["watch"] = f"/#game={live.id}"
        return {"id": live.id, "seats": dict(tokens), "links": links}

    @app.get("/api/games/{game_id}", summary="The game as the caller's seat sees it")
    async def get_game(game_id: str,
                       x_seat_token: Annotated[str | None, Header(max_length=200)] = None,
                       as_: Annotated[str | None, Query(alias="as", pattern="^(usa|china)$")]
                       = None,
                       wait: Annotated[int | None, Query(ge=0, le=100000)] = None,
                       log_from: Annotated[int, Query(ge=0, le=10**6)] = 0) -> JSONResponse:
        live = await sessions.get(game_id)
        seat = seat_for(live, x_seat_token, as_)
        if wait is not None:
            deadline = asyncio.get_running_loop().time() + max_wait
            while len(live.actions) == wait and not live.game.is_over and not live.agent_error:
                left = deadline - asyncio.get_running_loop().time()
                if left <= 0:
                    break
                try:
                    await asyncio.wait_for(live.changed.wait(), left)
                except TimeoutError:
                    break
        return view_of(live, seat, log_from)

    @app.post("/api/games/{game_id}/act", summary="Take an action for the caller's seat")
    async def act(game_id: str, req: Act,
                  x_seat_token: Annotated[str | None, Header(max_length=200)] = None,
                  log_from: Annotated[int, Query(ge=0, le=10**6)] = 0) -> JSONResponse:
        live = await sessions.get(game_id)
        seats = sessions.seats_of(live, x_seat_token)
        if not seats:
            raise ApiError(403, "acting needs the seat's token (X-Seat-Token)")
        g = live.game
        if not g.is_over and g.current_player not in seats:
            raise ApiError(403 if req.decision == len(live.actions) else 409,
                           f"{g.current_player} is to move, not your seat")
        sessions.apply(live, req.decision, req.action)
        seat = g.current_player if g.current_player in seats else seats[0]
        return view_of(live, seat if len(seats) > 1 else seats[0], log_from)

    @app.post("/api/games/{game_id}/undo", summary="Take back the seat's last decision")
    async def undo(game_id: str,
                   x_seat_token: Annotated[str | None, Header(max_length=200)] = None
                   ) -> JSONResponse:
        live = await sessions.get(game_id)
        seats = sessions.seats_of(live, x_seat_token)
        if not seats:
            raise ApiError(403, "undo needs the seat's token (X-Seat-Token)")
        await sessions.undo(live, seats)
        current = live.game.current_player
        return view_of(live, current if current in seats else seats[0], 0)

    @app.get("/api/games/{game_id}/analysis", summary="The learned policy's advice")
    async def analysis(game_id: str,
                       x_seat_token: Annotated[str | None, Header(max_length=200)] = None,
                       as_: Annotated[str | None, Query(alias="as", pattern="^(usa|china)$")]
                       = None) -> dict[str, Any]:
        live = await sessions.get(game_id)
        seat = seat_for(live, x_seat_token, as_)
        if seat is None:
            raise ApiError(403, "analysis needs the seat's token (X-Seat-Token)")
        if not live.stored.options.get("analysis"):
            raise ApiError(403, "this game was created without analysis")
        return await analyse(live.game, seat, sessions.threads)

    @app.get("/api/games/{game_id}/record", summary="A finished game's record")
    async def record(game_id: str) -> dict[str, Any]:
        live = await sessions.get(game_id)
        if not live.game.is_over:
            raise ApiError(403, "the record (and its seed) is shown once the game is over")
        return _record_json(live)

    @app.post("/api/replays", summary="Load a record for replay")
    async def new_replay(body: Annotated[Any, Body()]) -> dict[str, Any]:
        if isinstance(body, dict) and set(body) <= {"path", "line"} and "path" in body:
            rec, c = record_from_file(folder, body["path"], body.get("line", 0))
        elif isinstance(body, dict) and set(body) == {"game"}:
            live = await sessions.get(str(body["game"]))
            if not live.game.is_over:
                raise ApiError(403, "a game is replayed once it is over")
            rec, c = played(_record_json(live))
        else:
            rec, c = played(body)
        rid = secrets.token_urlsafe(9)
        store.keep_content(content_id(c), c.files)  # the replay survives a restart
        store.add_replay(rid, records.to_json(rec, c))
        r = replays[rid] = Replay.build(rec, c)
        return {"id": rid, "decisions": r.decisions, "marks": r.marks}

    @app.get("/api/replays/{replay_id}", summary="The full view after K decisions")
    async def get_replay(replay_id: str, at: Annotated[int, Query(ge=0, le=10**6)] = 0,
                         log_from: Annotated[int, Query(ge=0, le=10**6)] = 0
                         ) -> JSONResponse:
        v = replay(replay_id).view(at, log_from)
        v["id"] = replay_id
        return JSONResponse(v)

    return app


def _undo_seats(live: LiveGame, seat: str) -> list[str]:
    """The seats an undo by this viewer may take back: both at a hot-seat screen."""
    return list(SEATS) if live.mode == "hotseat" else [seat]


def _record_json(live: LiveGame) -> dict[str, Any]:
    """A finished game's record, carrying its content's snapshot where it is not the
    shipped edition (the record replays anywhere, after any edit)."""
    g = live.game
    rec = GameRecord(live.stored.seed, dict(live.stored.players), list(live.actions))
    if g.result is not None:
        rec.winner, rec.reason = g.result
    rec.turn, rec.vp = g.turn, g.vp
    return records.to_json(rec, g.content, inline=True)
