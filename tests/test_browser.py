"""The browser board in a real browser: Debian's Chromium driven by Playwright (issue 33, §4).

A server runs in a thread on a free loopback port; every test plays through clicks on the
page (the API is used only to read what a seat may know, to build a position, or to load
a record).  Screenshots of the board land in results/screenshots/.
"""

from __future__ import annotations

import functools
import html
import json
import random
import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "results" / "screenshots"
INSTALL = ("chromium not found: install it with `sudo apt-get install -y chromium` "
           "(or `make browser` as root); tests/test_browser.py needs Debian's Chromium")

# Everything on the page one may click to decide: [data-action] elements and their kinds.
CLICKABLES = """() => ({
  decision: document.body.dataset.decision ?? null, over: !!document.body.dataset.over,
  turn: Number(document.body.dataset.turn),
  acts: [...document.querySelectorAll('#decision [data-action], #hand [data-action], '
                                      + 'svg.map [data-action]')]
        .map(e => ({a: Number(e.dataset.action), war: e.classList.contains('war'),
                    scoring: e.classList.contains('scoring'),
                    label: e.getAttribute('title') || e.textContent}))})"""


# ------------------------------------------------------------------ fixtures
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    import uvicorn

    from experiments.web import create_app

    app = create_app(tmp_path_factory.mktemp("web") / "games.sqlite")
    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.fail(INSTALL, pytrace=False)
    SHOTS.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture()
def page(browser: Any, server: str) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1600, "height": 1000}, base_url=server)
    ctx.set_default_timeout(60_000)  # an agent's move on a loaded 2-core machine can take seconds
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    ctx.close()
    assert not errors, errors


# ------------------------------------------------------------------ helpers
def _state(page: Any) -> dict[str, Any]:
    return page.evaluate(CLICKABLES)


def _wait_decision(page: Any, after: str | None, timeout: float = 90_000) -> None:
    """Wait until the page shows a decision index other than `after`, or the end."""
    page.wait_for_function(
        "d => document.body.dataset.decision !== undefined && "
        "(document.body.dataset.decision !== d || !!document.body.dataset.over)",
        arg=after, timeout=timeout)


def _wait_choice(page: Any, timeout: float = 90_000) -> None:
    """Wait until something may be clicked or the game is over."""
    page.wait_for_function(
        "() => !!document.body.dataset.over || document.querySelector("
        "'#decision [data-action], #hand [data-action], svg.map [data-action], #pass-ok')",
        timeout=timeout)


def _click(page: Any, action: int) -> None:
    page.locator(f'[data-action="{action}"]').first.click()


def _pick(acts: list[dict], rng: random.Random) -> dict:
    """The scripted player: a scoring card first; never a total-war risk nor a realignment
    (each can lower diplomacy toward total war, R7) if avoidable; else a random choice."""
    safe = [a for a in acts if not a["war"] and "realign" not in a["label"]] or acts
    scoring = [a for a in safe if a["scoring"]]
    if scoring:
        return scoring[0]
    # Fewer clicks per card (a game in under a minute): ops spent on influence take one
    # click per point, so other modes are preferred where offered.
    return rng.choice([a for a in safe if "place influence" not in a["label"]] or safe)


def _play(page: Any, rng: random.Random, decisions: int | None = None,
          shots: dict[int, str] | None = None) -> int:
    """Click scripted choices until the game ends (or `decisions` were taken); returns how
    many were taken.  `shots` maps a turn to a screenshot name taken when it starts."""
    taken = 0
    while decisions is None or taken < decisions:
        _wait_choice(page)
        st = _state(page)
        if st["over"]:
            break
        if not st["acts"]:
            page.wait_for_timeout(50)
            continue
        turn = st["turn"]
        if shots and turn in shots:
            page.evaluate("() => window.scrollTo(0, 0)")
            page.screenshot(path=str(SHOTS / shots.pop(turn)))
        _click(page, _pick(st["acts"], rng)["a"])
        _wait_decision(page, st["decision"])
        taken += 1
    return taken


def _api(server: str, method: str, path: str, token: str | None = None, **kw: Any) -> Any:
    headers = {"X-Seat-Token": token} if token else {}
    r = httpx.request(method, server + path, headers=headers, timeout=30, **kw)
    assert r.status_code < 400, r.text
    return r.json()


@functools.lru_cache(maxsize=2)
def _cards(server: str) -> list[dict[str, Any]]:
    return _api(server, "GET", "/api/content")["cards"]


def _card_names(server: str) -> list[str]:
    return [c["name"] for c in _cards(server)]


def _hand_names(server: str, game: str, token: str, seat: str | None = None) -> set[str]:
    """The names of the cards in a seat's hand that the other seat may not know: not those
    it was shown (R20), nor the card the seat is playing (face up once played; it stays in
    the hand until its mode is chosen)."""
    q = f"?as={seat}" if seat else ""
    v = _api(server, "GET", f"/api/games/{game}{q}", token)
    names = _card_names(server)
    public = set(v.get("opponent_known") or [])
    d = v.get("decision")
    if d and d["player"] == v["seat"] and d["kind"] != "headline":
        public.add(d["ctx"].get("card"))
    return {names[i] for i in v["hand"] if i not in public}


def _hidden_from(page: Any, names: set[str], server: str) -> None:
    """No name of `names` on the page, outside the printed texts of cards (a card's text
    may name another card)."""
    page_html = page.content()
    texts = {t for c in _cards(server) for t in (c["text"], c["text_zh"]) if t}
    for text in sorted(texts, key=len, reverse=True):  # longest first: texts contain texts
        page_html = page_html.replace(html.escape(text, quote=False), "")
    leaked = sorted(n for n in names if html.escape(n, quote=False) in page_html)
    where = [page_html[max(0, page_html.index(html.escape(n, quote=False)) - 200):][:300]
             for n in leaked]
    assert not leaked, f"the page shows the other seat's cards {leaked}: {where}"


# ------------------------------------------------------------------ tests
def test_full_game_against_heuristic_through_clicks(page: Any, server: str) -> None:
    # The server deals each game from a fresh seed, and about one game in 300 ends in its
    # first headline phase (both headlines lower diplomacy: total war, 10.2).  Such a game
    # is played to its end too, then a new one is started: a full game is the aim.
    for attempt in range(4):
        page.goto("/")
        page.select_option("#agent-side", "usa")
        page.select_option("#agent-spec", "heuristic")
        page.click("#start-agent")
        _wait_choice(page)
        assert re.match(r"#game=[^&]+&token=.+", page.evaluate("() => location.hash"))
        if attempt == 0:
            # An illegal choice cannot be made: a country with no option is not clickable.
            before = _state(page)["decision"]
            page.locator("svg.map .country:not(.legal)").first.click(force=True)
            page.wait_for_timeout(200)
            assert _state(page)["decision"] == before
        started = time.monotonic()
        taken = _play(page, random.Random(5 + attempt),
                      shots={1: "board_start.png", 5: "board_midgame.png"})
        elapsed = time.monotonic() - started
        assert page.locator("#result").is_visible()
        assert "wins" in page.locator("#result").inner_text() or \
            "Draw" in page.locator("#result").inner_text()
        if _state(page)["turn"] > 1:
            break
    page.screenshot(path=str(SHOTS / "board_end.png"), full_page=True)
    assert taken > 20, taken
    print(f"full game: {taken} decisions clicked in {elapsed:.1f} s")
    # After the game: its record downloads (and replays), and the game replays on the board.
    from experiments import records

    with page.expect_download() as got:
        page.click("#download-record")
    rec = json.loads(Path(got.value.path()).read_text(encoding="utf-8"))
    final = records.final_game(records.from_data(rec))
    assert final.is_over and final.vp == _api(server, "GET", "/api/games/" + re.search(
        r"game=([^&]+)", page.evaluate("() => location.hash")).group(1))["vp"]
    page.click("#replay-game")
    page.wait_for_selector("#timeline")
    page.wait_for_function("n => document.body.dataset.decision === String(n)",
                           arg=len(rec["actions"]))
    assert page.locator("#result").is_visible()
    assert page.locator("#after-game").count() == 0  # a replay offers no new record


def test_hot_seat_hides_each_hand_between_turns(page: Any, server: str) -> None:
    page.goto("/")
    page.click("#start-hotseat")
    page.wait_for_function("() => location.hash.includes('token=')")
    token = re.search(r"token=([^&]+)", page.evaluate("() => location.hash")).group(1)
    game = re.search(r"game=([^&]+)", page.evaluate("() => location.hash")).group(1)
    page.wait_for_selector("#pass-ok")
    assert page.locator("#hand .card").count() == 0  # nobody's hand before the handover
    seen = {"usa": 0, "china": 0}  # handovers with cards in both hands
    rng = random.Random(2)
    for _ in range(80):
        page.wait_for_selector("#pass-ok, #decision [data-action], #hand [data-action], "
                               "svg.map [data-action]")
        if page.locator("#pass-ok").is_visible():
            seat = page.evaluate("() => document.body.dataset.toMove")
            other = "china" if seat == "usa" else "usa"
            mine, theirs = (_hand_names(server, game, token, s) for s in (seat, other))
            assert page.locator("#hand .card").count() == 0
            _hidden_from(page, mine | theirs, server)  # the screen between turns shows no hand
            page.click("#pass-ok")
            page.wait_for_selector("#overlay.hidden", state="attached")
            page.wait_for_function("n => document.querySelectorAll('#hand .card').length === n",
                                   arg=len(mine))
            _hidden_from(page, theirs, server)
            if mine and theirs:
                seen[seat] += 1
            if min(seen.values()) >= 2:
                break
            continue
        st = _state(page)
        _click(page, _pick(st["acts"], rng)["a"])
        _wait_decision(page, st["decision"])
    assert min(seen.values()) >= 2, seen


def test_two_browsers_play_each_other_with_their_own_links(browser: Any, server: str) -> None:
    ctx_a = browser.new_context(viewport={"width": 1400, "height": 900}, base_url=server)
    ctx_b = browser.new_context(viewport={"width": 1400, "height": 900}, base_url=server)
    for ctx in (ctx_a, ctx_b):
        ctx.set_default_timeout(60_000)
    try:
        a = ctx_a.new_page()
        a.goto("/")
        a.click("#start-remote")
        a.wait_for_selector('#links input[data-link="china"]')
        links = {s: a.locator(f'#links input[data-link="{s}"]').input_value()
                 for s in ("usa", "china")}
        assert links["usa"] != links["china"]
        tokens = {s: re.search(r"token=([^&]+)", u).group(1) for s, u in links.items()}
        game = re.search(r"game=([^&]+)", links["usa"]).group(1)
        a.goto(links["usa"])
        b = ctx_b.new_page()
        b.goto(links["china"])
        pages = {"usa": a, "china": b}
        rng = random.Random(3)
        moves = {"usa": 0, "china": 0}
        for _ in range(30):
            a.wait_for_function("() => document.body.dataset.decision !== undefined")
            now = a.evaluate("() => document.body.dataset.decision")
            b.wait_for_function("d => document.body.dataset.decision === d", arg=now)
            for seat, pg in pages.items():
                other = "china" if seat == "usa" else "usa"
                _hidden_from(pg, _hand_names(server, game, tokens[other]), server)
            mover = a.evaluate("() => document.body.dataset.toMove")
            pg = pages[mover]
            pg.wait_for_selector("#decision [data-action], #hand [data-action], "
                                 "svg.map [data-action]")
            st = _state(pg)
            _click(pg, _pick(st["acts"], rng)["a"])
            _wait_decision(pg, st["decision"])
            moves[mover] += 1
            # The other browser sees the move by itself (long poll), without a reload.
            _wait_decision(pages["china" if mover == "usa" else "usa"], st["decision"])
        assert moves["usa"] and moves["china"], moves
        # Neither link acts for the other seat: the waiting page offers nothing to click.
        waiting = pages["china" if a.evaluate("() => document.body.dataset.toMove") == "usa"
                        else "usa"]
        assert _state(waiting)["acts"] == []
        assert waiting.locator("#waiting").is_visible()
    finally:
        ctx_a.close()
        ctx_b.close()


def _finished_record(seed: int = 11) -> dict[str, Any]:
    """A heuristic-vs-heuristic game's record (several turns long)."""
    from agents.specs import make_agent
    from experiments import records
    from experiments.selfplay import play_game

    rec = play_game(seed, {"usa": make_agent("heuristic", seed),
                           "china": make_agent("heuristic", seed + 1)})
    return records.to_json(rec)


def test_replay_timeline_jumps(page: Any, server: str, tmp_path: Path) -> None:
    rec = _finished_record(2**62 + 11)  # a seed no JavaScript number holds: sent as it is
    path = tmp_path / "record.json"
    path.write_text(json.dumps(rec), encoding="utf-8")
    n = len(rec["actions"])
    page.goto("/")
    page.set_input_files("#replay-file", str(path))
    page.click("#start-replay")
    page.wait_for_selector("#timeline")
    assert page.evaluate("() => document.body.dataset.decision") == "0"
    page.click("#replay-next")
    _wait_decision(page, "0")
    assert page.evaluate("() => document.body.dataset.decision") == "1"
    # The slider: to the end, the result is shown.
    page.locator("#timeline").evaluate(
        "(el, n) => { el.value = n; el.dispatchEvent(new Event('change')); }", n)
    _wait_decision(page, "1")
    assert page.evaluate("() => document.body.dataset.decision") == str(n)
    assert page.locator(f"text=/{n} of {n}|{n} \\/ {n}/").count() >= 1
    # Jump to a turn: the first decision of that turn's first mark.
    turns = page.locator("#jump-turn option").all_inner_texts()
    assert len(turns) >= 2
    target = turns[1].split()[-1]
    page.select_option("#jump-turn", target)
    page.wait_for_function("t => document.body.dataset.turn === t", arg=target)
    at = int(page.evaluate("() => document.body.dataset.decision"))
    assert 0 < at < n
    assert f"at={at}" in page.evaluate("() => location.hash")
    # A decision number; reloading keeps the position.
    page.screenshot(path=str(SHOTS / "board_replay.png"))
    page.fill("#jump-decision", "7")
    page.press("#jump-decision", "Enter")
    page.wait_for_function("() => document.body.dataset.decision === '7'")
    page.reload()
    page.wait_for_function("() => document.body.dataset.decision === '7'")
    # Both hands of a finished record are face up in a replay.
    assert page.locator('#hand [data-hand="usa"]').count() == 1


def test_a_replay_of_another_deck_is_drawn_with_its_own_cards(page: Any, server: str,
                                                               tmp_path: Path) -> None:
    """A record of an overlay deck (a card added, one removed: every later card id moves)
    carries its content; the board draws its hands with that deck's cards."""
    from test_content_folders import make_overlay

    from agents.specs import make_agent
    from evenstar_env.content import load_content
    from experiments import records
    from experiments.selfplay import play_game

    deck = load_content(make_overlay(tmp_path / "deck"))
    rec = records.to_json(play_game(5, {"usa": make_agent("random", 5),
                                        "china": make_agent("random", 6)}, content=deck),
                          deck, inline=True)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(rec, ensure_ascii=False), encoding="utf-8")
    page.goto("/")
    page.set_input_files("#replay-file", str(path))
    page.click("#start-replay")
    page.wait_for_selector("#timeline")
    rid = re.search(r"replay=([^&]+)", page.evaluate("() => location.hash")).group(1)
    at = next(m["decision"] for m in _api(server, "GET", f"/api/replays/{rid}")["marks"]
              if m["phase"] == "action")  # the hands are dealt
    page.fill("#jump-decision", str(at))
    page.press("#jump-decision", "Enter")
    page.wait_for_function("k => document.body.dataset.decision === k", arg=str(at))
    hands = _api(server, "GET", f"/api/replays/{rid}?at={at}")["hands"]
    ids = hands["usa"] + hands["china"]
    shown = page.locator("#hand").inner_text()
    mine = [deck.cards[i].name for i in ids]
    shipped = [load_content().cards[i].name for i in ids]
    assert mine != shipped  # the check tells the two decks apart
    assert all(name in shown for name in mine), (mine, shown)


def _position_with_total_war_risk(server: str) -> tuple[dict, dict]:
    """A hot-seat game played by random API actions until an option risks total war
    (realignments preferred: each lowers diplomacy, R7, toward the risky positions)."""
    rng = random.Random(4)
    for _ in range(5):
        g = _api(server, "POST", "/api/games", json={"usa": "human", "china": "human",
                                                     "hotseat": True})
        token = g["seats"]["usa"]
        v = _api(server, "GET", f"/api/games/{g['id']}", token)
        while not v["over"]:
            opts = v["decision"]["options"]
            war = [o for o in opts if o["total_war"]]
            if war:
                return g, war[0]
            realign = [o for o in opts if "realign" in o["label"]]
            o = rng.choice(realign or opts)
            v = _api(server, "POST", f"/api/games/{g['id']}/act", token,
                     json={"decision": v["decision_index"], "action": o["action"]})
    pytest.fail("no decision with a total-war risk in 5 random games")


def test_total_war_needs_a_confirmation(page: Any, server: str) -> None:
    g, war = _position_with_total_war_risk(server)
    page.goto(g["links"]["usa"])
    page.click("#pass-ok")
    _wait_choice(page)
    at = _state(page)["decision"]
    target = page.locator(f'[data-action="{war["action"]}"]').first
    assert "war" in (target.get_attribute("class") or "")
    target.click()
    page.wait_for_selector("#war-text")
    assert "total war (10.2)" in page.locator("#war-text").inner_text()
    page.click("#war-cancel")
    page.wait_for_timeout(300)
    assert _state(page)["decision"] == at  # cancelled: nothing happened
    target.click()
    page.click("#war-confirm")
    _wait_decision(page, at)


def test_language_switch(page: Any, server: str) -> None:
    page.goto("/")
    page.click("#start-agent")
    _wait_choice(page)
    assert page.locator("#title").inner_text() == "Dawn of the Evenstar"
    canada = page.locator('svg.map [data-name="Canada"] .cname')
    assert canada.text_content() == "Canada"
    page.click("#lang-btn")
    assert page.locator("#title").inner_text() == "晨曦暮星"
    assert canada.text_content() == "加拿大"
    assert "区域" in page.locator("#regions-title").inner_text()
    card = page.locator("#hand .card .cn").first
    if card.count():
        assert re.search(r"[\u4e00-\u9fff]", card.inner_text())
    page.screenshot(path=str(SHOTS / "board_zh.png"))
    page.reload()  # the choice is remembered
    page.wait_for_function("() => document.getElementById('title').textContent === '晨曦暮星'")
    page.click("#lang-btn")
    assert canada.text_content() == "Canada"


def test_undo_and_log_hover(page: Any, server: str) -> None:
    page.goto("/")
    page.select_option("#agent-side", "usa")
    page.click("#start-agent")
    page.wait_for_selector("svg.map .country.legal")
    first = _state(page)["decision"]
    name = page.locator("svg.map .country.legal").first.get_attribute("data-name")
    country = page.locator(f'svg.map [data-name="{name}"]')
    before = country.locator(".inftext.usa").text_content()
    country.click()
    _wait_decision(page, first)
    assert country.locator(".inftext.usa").text_content() != before
    # Hovering the log line of that placement outlines the country it touched.
    line = page.locator("#log div.touches").last
    ids = line.get_attribute("data-countries").split(",")
    line.hover()
    touched = page.locator("svg.map .country.touched").evaluate_all(
        "els => els.map(e => e.dataset.country)")
    assert sorted(touched) == sorted(ids) and country.get_attribute("data-country") in ids
    page.click("#undo")
    page.wait_for_function("d => document.body.dataset.decision === d", arg=first)
    assert page.locator(f'svg.map [data-name="{name}"] .inftext.usa').text_content() == before


def test_reload_in_the_middle_of_a_game_restores_it(page: Any, server: str) -> None:
    page.goto("/")
    page.select_option("#agent-side", "china")
    page.click("#start-agent")
    _play(page, random.Random(9), decisions=6)
    _wait_choice(page)
    url = page.url
    hand = sorted(page.locator("#hand .card").evaluate_all("els => els.map(e => e.dataset.card)"))
    decision = _state(page)["decision"]
    log_lines = page.locator("#log div").count()
    page.reload()
    _wait_choice(page)
    assert page.url == url
    assert _state(page)["decision"] == decision
    assert sorted(page.locator("#hand .card").evaluate_all(
        "els => els.map(e => e.dataset.card)")) == hand
    assert page.locator("#log div").count() == log_lines
    # And from the start page: the last game is offered and resumes.
    page.goto("/")
    page.click("#resume")
    _wait_choice(page)
    assert _state(page)["decision"] == decision


def test_watching_two_agents(page: Any, server: str) -> None:
    page.goto("/")
    page.select_option("#watch-usa", "heuristic")
    page.select_option("#watch-china", "random")
    page.fill("#watch-speed", "0.05")
    page.click("#start-watch")
    page.wait_for_function("() => Number(document.body.dataset.decision) >= 8")
    assert page.locator("#seat-label").inner_text() == "Spectator"
    assert _state(page)["acts"] == []  # a spectator has nothing to click
    assert page.locator("#hand .card").count() == 0  # nor sees a hand while the game runs
    assert "token=" not in page.evaluate("() => location.hash")


def _recent(log: list[dict], seat: str) -> set[int]:
    """The countries the board marks as changed in the opponent's last turn: the influence
    records from the opponent's first decision after `seat`'s last decision that preceded
    one of the opponent's, up to `seat`'s next decision (docs/board.md)."""
    me = 0 if seat == "usa" else 1
    decisions = [(i, e["side"] == me) for i, e in enumerate(log) if e["type"] == "decision"]
    theirs = [i for i, mine in decisions if not mine]
    if not theirs:
        return set()
    before = [i for i, mine in decisions if mine and i < theirs[-1]]
    start = next(i for i in theirs if i > (before[-1] if before else -1))
    out = set()
    for e in log[start:]:
        if e["type"] == "decision" and e["side"] == me:
            break
        if e["type"] == "influence":
            out.add(e["country"])
    return out


HAND_IN_VIEW = """() => {
  const r = document.getElementById('hand-panel').getBoundingClientRect();
  const z = document.getElementById('zoom-in').getBoundingClientRect();
  const cards = [...document.querySelectorAll('#hand .card')];
  const hand = document.getElementById('hand');
  return {top: r.top, bottom: r.bottom, height: innerHeight, scroll: scrollY,
          wider: hand.scrollWidth > hand.clientWidth + 2,
          more: !document.getElementById('hand-more').classList.contains('hidden'),
          zoom: z.top >= 0 && z.bottom <= innerHeight,
          clipped: cards.filter(c => c.scrollHeight > c.clientHeight + 1 ||
                                     [...c.children].some(k => k.scrollHeight > k.clientHeight + 1))
                        .map(c => c.dataset.card),
          n: cards.length};
}"""

EVERY_CARD_IN_HAND = """async () => {
  // Each card of the game alone in the hand: its whole text shown, the hand on screen.
  const { cardFace } = await import('/static/js/cards.js');
  const content = await (await fetch('/api/content')).json();
  const hand = document.getElementById('hand'), saved = [...hand.childNodes];
  const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const bad = [];
  for (const c of content.cards) {
    const el = cardFace(c);
    hand.replaceChildren(el);
    await frame();
    const r = document.getElementById('hand-panel').getBoundingClientRect();
    if (r.bottom > innerHeight || el.scrollHeight > el.clientHeight + 1 ||
        [...el.children].some(k => k.scrollHeight > k.clientHeight + 1)) {
      bad.push([c.name, r.bottom]);
    }
  }
  hand.replaceChildren(...saved);
  await frame();
  return bad;
}"""

NAMES_FIT = """() => {
  const out = [];
  for (const g of document.querySelectorAll('svg.map .country[data-name]')) {
    const box = g.querySelector('.box').getBBox(), t = g.querySelector('.cname').getBBox();
    if (t.x < box.x + 1 || t.x + t.width > box.x + box.width - 1 || t.y < box.y)
      out.push([g.dataset.name, g.querySelector('.cname').textContent, t.x, t.y, t.width]);
  }
  return out;
}"""


def test_reading_the_board(page: Any, server: str) -> None:
    """What a player reads while deciding: the hand in view with every card's whole text
    (at 1600x1000 and 1366x768, from the top of the page, the map's zoom buttons too); every
    country's name inside its box in both languages; the countries the opponent's last turn
    changed marked, exactly those of the seat's own log; a log line naming a card shows that
    card; the sub-regions' rows say what their scoring counts."""
    page.goto("/")
    page.select_option("#agent-side", "usa")
    page.select_option("#agent-spec", "heuristic")
    page.click("#start-agent")
    _wait_choice(page)
    game = re.search(r"game=([^&]+)", page.evaluate("() => location.hash")).group(1)
    token = re.search(r"token=([^&]+)", page.evaluate("() => location.hash")).group(1)
    assert page.evaluate(NAMES_FIT) == []
    page.click("#lang-btn")
    assert page.evaluate(NAMES_FIT) == []
    page.click("#lang-btn")
    rng = random.Random(12)
    marked = 0
    for _ in range(40):
        _wait_choice(page)
        st = _state(page)
        if st["over"]:
            break
        v = _api(server, "GET", f"/api/games/{game}?log_from=0", token)
        if str(v["decision_index"]) == st["decision"] and v["decision"] and \
                v["decision"]["player"] == "usa":
            want = _recent(v["log"], "usa")
            got = page.locator("svg.map .country.recent[data-country]").evaluate_all(
                "els => els.map(e => Number(e.dataset.country))")
            assert set(got) == want, (got, want)
            marked += bool(want)
            if marked == 1 and want:
                page.screenshot(path=str(SHOTS / "board_last_move.png"))
            view = page.evaluate(HAND_IN_VIEW)
            assert view["scroll"] == 0 and view["zoom"], view
            assert view["n"] == len(v["hand"]) and view["clipped"] == [], view
            assert view["bottom"] <= view["height"], view  # the whole hand on screen
            assert view["more"] == view["wider"], view  # "more cards: scroll ..." when so
        if marked >= 3:
            break
        _click(page, _pick(st["acts"], rng)["a"])
        _wait_decision(page, st["decision"])
    assert marked >= 1, "no decision after an opponent's turn that changed influence"
    assert "last turn" in page.locator("#legend-recent").text_content()
    # A smaller screen: the hand is still on it, whole.
    page.set_viewport_size({"width": 1366, "height": 768})
    page.wait_for_timeout(300)
    view = page.evaluate(HAND_IN_VIEW)
    assert view["bottom"] <= view["height"] and view["zoom"] and view["clipped"] == [], view
    assert view["more"] == view["wider"], view
    page.screenshot(path=str(SHOTS / "board_1366.png"))
    assert page.evaluate(EVERY_CARD_IN_HAND) == []
    page.click("#lang-btn")
    assert page.evaluate(EVERY_CARD_IN_HAND) == []
    page.click("#lang-btn")
    page.click("#zoom-in")  # zoomed, the map scrolls in its own box: the hand stays on screen
    page.wait_for_timeout(200)
    view = page.evaluate(HAND_IN_VIEW)
    assert view["bottom"] <= view["height"] and view["zoom"], view
    page.click("#zoom-out")
    page.set_viewport_size({"width": 1600, "height": 1000})
    # Hovering a log line that names a card shows that card: name, ops and text.
    cards = _cards(server)
    line = page.locator("#log div[data-card]").last
    line.scroll_into_view_if_needed()
    c = cards[int(line.get_attribute("data-card"))]
    assert c["name"] in line.inner_text()
    line.hover()
    tip = page.locator("#card-tip")
    tip.wait_for(state="visible")
    assert c["name"] in tip.inner_text() and c["text"] in tip.inner_text()
    if not c["scoring"]:
        assert tip.locator(".ops").inner_text() == str(c["ops"])
    page.mouse.move(5, 5)
    tip.wait_for(state="hidden")
    # Sub-regions: the countries each side controls there, and why (a tooltip).
    row = page.locator('#regions tr[data-region="Southeast Asia"]')
    assert re.search(r"\d+ ctrl \(\d+ BG\)", row.locator("td.usa").first.inner_text())
    assert "10.3" in row.locator("td").first.get_attribute("title")


def test_modifier_cards_show_their_value_and_price(page: Any, server: str) -> None:
    """A history event's modifier choice (R16): each button says what the card adds to the
    roll and what it costs, beside the outcomes by roll (China's first decision)."""
    page.goto("/")
    page.select_option("#agent-side", "china")
    page.select_option("#agent-spec", "heuristic")
    page.click("#start-agent")
    page.wait_for_selector('#decision [data-group="mod"]')
    labels = page.locator('#decision [data-group="mod"]').all_inner_texts()
    content = _api(server, "GET", "/api/content")
    want = {f"{'+' if m['value'] > 0 else '−' if m['value'] < 0 else '±'}{abs(m['value'])}"
            f" · costs {m['cost']} reserve(s)" if m["name"] != "counter"
            else f"Counter · costs {m['cost']} reserve(s)" for m in content["modifiers"]}
    assert labels and set(labels) <= want, labels
    assert page.locator("#decision").inner_text().count("<=1") == 1  # the outcomes by roll
