"""Content health of the deck from self-play: writes docs/card_health.md (issue 19).

    python scripts/card_health.py --games 200                  # heuristic self-play + screen
    python scripts/card_health.py --ismcts ismcts:10 --ismcts-games 16
    python scripts/card_health.py --confirm western_development --confirm-games 100
    python scripts/card_health.py --render                     # redraw from the stored results

For every base card, from heuristic self-play: how often its event could happen when a
player who may play it as an event held it (at that player's card choices), and how often
the event, when it happened, changed the game (influence, tracks, VP, reserves, card
locations other than its own, revealed hands, next-card benefits); optionally the same
from a few ISMCTS games.  Flags against the deck targets of issue 19: no event that
changes nothing in more than 80% of its plays; none playable less than 30% of the time
it is held unless its card data says why (``rarely_playable``); no two cards with the
same effect list; no card whose causal swing exceeds 15 points.

The causal swing is measured in two stages (docs/balance.md, *Card swing*).  The
**screen** (free, observational): the owner's win rate in the self-play games where the
card's event happened minus in those where it did not.  The **confirmation** (paired,
causal) for the candidate cards: every seed is played with and without the card's event
(experiments/balance.py ``forbid`` runs: same seeds, same agents, sides as dealt), and
the swing is the owner's mean paired win difference with a 95% interval.  A neutral
card is seen from the US side.

Games are played through the balance-study runner into ``results/`` (resumable, not
committed); their actions are replayed here under instrumentation.  What the report
needs is stored in ``docs/data/card_health.json`` with the play fingerprint of the data
it was made from: tests/test_card_health.py checks that the report is what that file
renders to and that the fingerprint is current, without playing a game.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from evenstar_env import Game  # noqa: E402
from evenstar_env.content import (  # noqa: E402
    Content,
    ContentError,
    fingerprint,
    load_content,
    play_fingerprint,
)
from evenstar_env.engine import machine, play  # noqa: E402
from evenstar_env.engine.constants import (  # noqa: E402
    HAND,
    M_NEXT_BOTH,
    M_NEXT_NO_EVENT,
    M_NEXT_OPS,
    M_RW_STATE,
)

OUT = ROOT / "docs" / "card_health.md"
DATA = ROOT / "docs" / "data" / "card_health.json"
EMPTY_MAX, PLAYABLE_MIN, SWING_MAX = 0.80, 0.30, 0.15
SCREEN_MIN = 0.10  # |screen| from which a card is a candidate for confirmation
MIN_PLAYS, MIN_HELD = 5, 20  # fewer observations: reported, not flagged
# An event chosen in under 1% of the card choices where it could happen: held, almost never
# played (e.g. Darfur Crisis: playable at every hold, 10 events in 1,549).
UNCHOSEN_MAX = 0.01
MIN_SCREEN_GAMES = 10  # a screen needs this many games on each side of the split
# Data fields that do not change play (the report re-renders them without new games).
STATS = ("held", "playable", "fired", "changed")


# ---------------------------------------------------------------- instrumentation

_ACTIVE: list[tuple[int, int, tuple, machine.Machine]] = []  # (card, depth, snapshot, m)
_REAL: list[machine.Machine] = []  # the game being measured (not the agents' look-ahead copies)
_STATS: dict[str, Counter] = {"held": Counter(), "playable": Counter(), "fired": Counter(),
                              "changed": Counter()}


def _snapshot(m: machine.Machine, card: int) -> tuple:
    s = m.s
    loc = s.card_loc.copy()
    loc[card] = 0  # its own move (discard, removal, in play) is not a change
    flags = tuple(s.misc[k + p] for k in (M_NEXT_OPS, M_NEXT_NO_EVENT, M_NEXT_BOTH)
                  for p in (0, 1)) + (s.misc[M_RW_STATE],)
    return (s.inf_us.tobytes(), s.inf_cn.tobytes(), s.tracks.tobytes(), s.vp.tobytes(),
            s.reserves.tobytes(), s.non_realignable.tobytes(), loc.tobytes(),
            s.revealed.tobytes(), s.hist_loc.tobytes(), flags)


_fire = play.fire_event


def _fire_counted(m: machine.Machine, card: int, executor: int) -> None:
    if not _REAL or m is not _REAL[0]:
        _fire(m, card, executor)
        return
    depth = len(m.s.stack)
    snap = _snapshot(m, card)
    _fire(m, card, executor)
    _ACTIVE.append((card, depth, snap, m))
    _settle(m)


def _settle(m: machine.Machine) -> None:
    """Close every event whose frames have all run: did it change the game?"""
    s = m.s
    while _ACTIVE and _ACTIVE[-1][3] is m and (
            s.over or (s.pending is None and len(s.stack) <= _ACTIVE[-1][1])):
        card, _depth, snap, _ = _ACTIVE.pop()
        cid = m.c.cards[card].id
        _STATS["fired"][cid] += 1
        _STATS["changed"][cid] += _snapshot(m, card) != snap


def _wrap(table: dict) -> None:
    for name, fn in list(table.items()):
        def wrapped(m, *args, _fn=fn):
            _fn(m, *args)
            if _ACTIVE and _REAL and m is _REAL[0]:
                _settle(m)
        table[name] = wrapped


def instrument() -> None:
    """Count events and their board changes (patches this process's engine only, once)."""
    if play.fire_event is _fire_counted:
        return
    play.fire_event = _fire_counted
    _wrap(machine.HANDLERS)
    _wrap(machine.RESUMES)


def _count_held(g: Game) -> None:
    """At a card choice: the cards the chooser could play as events, and which can happen."""
    m = g._m
    p = m.s.pending[1]
    c = m.c
    for i in np.flatnonzero(m.s.card_loc == HAND[p]):
        i = int(i)
        if c.card_scoring[i] or int(c.card_side[i]) not in (p, 2):
            continue
        cid = c.cards[i].id
        _STATS["held"][cid] += 1
        _STATS["playable"][cid] += m.can_happen(i, play.executor_of(m, i, p))


def replay(rec: dict, c: Content | None = None) -> tuple[dict[str, Counter], set[str]]:
    """Replay one stored game (on `c`, default the shipped content) under instrumentation:
    its counters and the cards whose event happened in it."""
    for k in _STATS.values():
        k.clear()
    g = Game(rec["seed"], backend="python", content=c)  # instrumented: the Python engine
    _REAL[:] = [g._m]
    for a in rec["actions"]:
        if g.decision.kind == "card":
            _count_held(g)
        g.step(a)
    _ACTIVE.clear()
    if not g.is_over or g.result.winner != rec["winner"]:
        raise RuntimeError(f"seed {rec['seed']}: the replay does not end as the stored game "
                           "(was it played under other rules?)")
    return {k: Counter(v) for k, v in _STATS.items()}, {c for c, n in _STATS["fired"].items()
                                                        if n}


def owner(c: Content, cid: str) -> str:
    """Whose win rate a card's figures speak of: its side; the US for a neutral card."""
    side = c.cards[c.card_by_id[cid]].side
    return side if side in ("usa", "china") else "usa"


def measure(c: Content, recs: list[dict]) -> dict[str, Any]:
    """Counters over the games, and per card the screen's four counts: games where its
    event happened (and the owner won), games where it did not (and the owner won)."""
    instrument()
    total = {k: Counter() for k in STATS}
    split: dict[str, list[int]] = {cd.id: [0, 0, 0, 0] for cd in c.cards if cd.kind == "base"}
    for rec in recs:
        stats, fired = replay(rec, c)
        for k in STATS:
            total[k].update(stats[k])
        for cid, cnt in split.items():
            won = rec["winner"] == owner(c, cid)
            at = 0 if cid in fired else 2
            cnt[at] += 1
            cnt[at + 1] += won
    return {"games": len(recs), "seeds": [recs[0]["seed"], recs[-1]["seed"]] if recs else [],
            "stats": {k: dict(sorted(v.items())) for k, v in total.items()}, "screen": split}


def screen(counts: list[int]) -> dict[str, float] | None:
    """Owner's win rate with the event minus without (normal 95% interval); None when
    either side of the split has fewer than MIN_SCREEN_GAMES games."""
    n1, w1, n0, w0 = counts
    if min(n1, n0) < MIN_SCREEN_GAMES:
        return None
    p1, p0 = w1 / n1, w0 / n0
    half = 1.959964 * math.sqrt(p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0)
    return {"mean": p1 - p0, "ci95": [p1 - p0 - half, p1 - p0 + half]}


def candidates(c: Content, measured: dict[str, Any], top: int) -> list[str]:
    """The cards to confirm: |screen| >= SCREEN_MIN, the strongest evidence first (the
    screen over its standard error, so that a large figure from a handful of games does
    not crowd out a well-measured one), at most `top`."""
    figs = []
    for cid, cnt in measured["screen"].items():
        f = screen(cnt)
        if f is not None and abs(f["mean"]) >= SCREEN_MIN:
            se = (f["ci95"][1] - f["ci95"][0]) / (2 * 1.959964)
            figs.append((abs(f["mean"]) / se if se else math.inf, cid))
    return [cid for _, cid in sorted(figs, reverse=True)[:top]]


# ---------------------------------------------------------------- confirmation


def confirm(c: Content, cards: list[str], games: int, seed0: int, workers: int,
            study_dir: Path, baseline_dir: Path) -> dict[str, Any]:
    """Paired forbid runs (each seed with and without the card's event, heuristic self-play,
    sides as dealt) for `cards`; the baseline games are taken from `baseline_dir` (not
    replayed).  Per card, the owner's paired win difference with a 95% interval."""
    from evenstar_env.content.schema import Variant
    from experiments.balance import Study, check_data_stamp, read_games, run_study
    from experiments.files import append_line

    base = Variant(name="baseline", content=None if c.source == "shipped" else c.source)
    study = Study([base], games=games, seed0=seed0, workers=workers, forbid=cards)
    study_dir.mkdir(parents=True, exist_ok=True)
    have = {r["key"] for r in read_games(study_dir / "games.jsonl", repair=True)}
    check_data_stamp(study_dir, bool(have), variants=study.all_variants())
    check_data_stamp(baseline_dir, True, variants=[base])
    for rec in read_games(baseline_dir / "games.jsonl"):
        if (rec["variant"] == "baseline" and rec["usa"] == rec["china"] == "heuristic"
                and seed0 <= rec["seed"] < seed0 + games and rec["key"] not in have):
            append_line(study_dir / "games.jsonl", json.dumps(rec))
    summary = run_study(study, study_dir, progress=True)
    return swings(c, summary)


def swings(c: Content, summary: dict[str, Any]) -> dict[str, Any]:
    """Owner's swing per card from a balance study's ``forbid`` rows (any study whose
    baseline is the shipped rules in heuristic self-play)."""
    out = {}
    for name, row in summary["variants"].items():
        if not name.startswith("forbid "):
            continue
        cid = name.removeprefix("forbid ")
        d = row["diff_vs_baseline"]  # US score (forbidden - baseline), paired by seed
        sign = -1.0 if owner(c, cid) == "usa" else 1.0  # the owner's gain from the event
        lo, hi = sorted((sign * d["ci95"][0], sign * d["ci95"][1]))
        out[cid] = {"mean": sign * d["mean"], "ci95": [lo, hi], "n": d["n"]}
    return out


# ---------------------------------------------------------------- static checks


def effect_key(c: Content, i: int) -> str:
    cd = c.cards[i]
    return repr(([e.model_dump() for e in cd.effects],
                 cd.persistent.model_dump() if cd.persistent else None))


def duplicates(c: Content) -> list[tuple[str, str]]:
    """Pairs of cards (base and history) with the same effect list."""
    seen: dict[str, str] = {}
    out = []
    keys = [(cd.name, effect_key(c, i)) for i, cd in enumerate(c.cards)]
    keys += [(h.name, repr([[e.model_dump() for e in o.effects] for o in h.outcomes]))
             for h in c.history]
    for name, key in keys:
        if key in seen:
            out.append((seen[key], name))
        else:
            seen[key] = name
    return out


# ---------------------------------------------------------------- report


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.0f}%" if b else "–"


def _pts(f: dict[str, Any] | None) -> str:
    if f is None:
        return "–"
    return f"{100 * f['mean']:+.0f} [{100 * f['ci95'][0]:+.0f}, {100 * f['ci95'][1]:+.0f}]"


def _seeds(part: dict[str, Any]) -> str:
    return f"seeds {part['seeds'][0]}–{part['seeds'][1]}" if part.get("seeds") else "no games"


def report(c: Content, results: dict[str, Any], data: Path = DATA) -> str:
    """docs/card_health.md from the results stored in `data` (no game is played)."""
    heur = results["heuristic"]
    st = {k: Counter(heur["stats"][k]) for k in STATS}
    held, playable, fired, changed = (st[k] for k in STATS)
    ism = results.get("ismcts")
    ist = {k: Counter(ism["stats"][k]) for k in STATS} if ism else None
    conf = results.get("confirm") or {}
    swing = conf.get("swing", {})
    lines = ["# Card health", "",
             f"Generated by `python scripts/card_health.py` from `{_shown(data)}` "
             "(do not edit by hand; `--render` redraws it after a text-only change)"
             + ("." if c.source == "shipped" else f", on the content `{c.source}`."), "",
             f"Content fingerprint: `{results['fingerprint']}` (the data that can change "
             f"play); layout fingerprint `{fingerprint(c)}` (names and ids, as in saved games "
             "and policies).", "",
             f"**Heuristic self-play: {heur['games']} games** (heuristic vs heuristic, "
             f"{_seeds(heur)}). *Held*: card choices at which a player who may play the "
             "card as an event held it; *playable*: of those, how often its event could "
             "happen. *Events*: times its event happened (own plays, opponent plays for "
             "ops, headlines); *no change*: of those, how often the game state was the same "
             "afterwards (influence, tracks, VP, reserves, other cards' places, revealed "
             "hands, next-card benefits).", ""]
    if ism:
        lines += [f"**ISMCTS self-play: {ism['games']} games only** (`{ism['spec']}` vs "
                  f"itself, {_seeds(ism)}): a cheap search setting and few games, so its "
                  "columns are indications, never flags.", ""]
    lines += ["**Causal swing, two stages.** *Screen* (observational, every card): the "
              "owner's win rate in the heuristic games where the card's event happened "
              "minus in those where it did not, in points with a 95% interval (– when "
              f"either group has fewer than {MIN_SCREEN_GAMES} games); it mixes the card's "
              "effect with when agents play it. *Swing* (causal; every base card after a "
              "full sweep, else the candidates): the "
              "owner's paired win-rate change from the card's event, each seed played with "
              "and without it (`forbid` runs, same seeds and agents, sides as dealt), mean "
              "and 95% interval, in points. A neutral card is seen from the US side.", "",
              f"Targets (issue 19): no change in at most {EMPTY_MAX:.0%} of an event's plays "
              f"(flag `empty`, from {MIN_PLAYS} plays); playable at least {PLAYABLE_MIN:.0%} "
              f"of the time held (flag `rare`, from {MIN_HELD} holds) unless the card's data "
              "says why (`rarely_playable`, listed below); no two cards with the same effect "
              f"list (flag `dup`); an event playable at least {MIN_HELD} times but chosen "
              f"in under {UNCHOSEN_MAX:.0%} of them (almost never played as an event) is "
              f"flagged `unchosen`; confirmed swing at most {100 * SWING_MAX:.0f} points "
              "(flag `swing`) "
              "unless docs/balance.md discusses it; a screen beyond "
              f"{100 * SWING_MAX:.0f} points whose interval excludes 0 and that was not "
              "confirmed is flagged `screen`.", ""]
    dups = duplicates(c)
    dup_names = {n for pair in dups for n in pair}
    header = "| card | era | side | held | playable | events | no change |"
    rule = "| --- | --- | --- | ---: | ---: | ---: | ---: |"
    if ist:
        header += " ISMCTS playable | ISMCTS events (no change) |"
        rule += " ---: | ---: |"
    header += " screen | swing | flags |"
    rule += " ---: | ---: | --- |"
    lines += [header, rule]
    flagged: Counter = Counter()
    explained = 0
    for cd in c.cards:
        if cd.kind != "base":
            continue
        cid = cd.id
        flags = []
        if fired[cid] >= MIN_PLAYS and (fired[cid] - changed[cid]) / fired[cid] > EMPTY_MAX:
            flags.append("empty")
        if held[cid] >= MIN_HELD and playable[cid] / held[cid] < PLAYABLE_MIN:
            flags.append("rare (explained)" if cd.rarely_playable else "rare")
            explained += bool(cd.rarely_playable)
        if cd.name in dup_names:
            flags.append("dup")
        if playable[cid] >= MIN_HELD and fired[cid] < UNCHOSEN_MAX * playable[cid]:
            flags.append("unchosen")
        scr = screen(heur["screen"][cid]) if cid in heur["screen"] else None
        sw = swing.get(cid)
        if sw is not None and abs(sw["mean"]) > SWING_MAX:
            flags.append("swing")
        elif sw is None and scr is not None and abs(scr["mean"]) > SWING_MAX and (
                scr["ci95"][0] > 0 or scr["ci95"][1] < 0):
            flags.append("screen")
        row = (f"| {cd.name} | {cd.era} | {cd.side} | {held[cid]} | "
               f"{_pct(playable[cid], held[cid])} | {fired[cid]} | "
               f"{_pct(fired[cid] - changed[cid], fired[cid])} |")
        if ist:
            row += (f" {_pct(ist['playable'][cid], ist['held'][cid])} | {ist['fired'][cid]} "
                    f"({_pct(ist['fired'][cid] - ist['changed'][cid], ist['fired'][cid])}) |")
        row += f" {_pts(scr)} | {_pts(sw)} ({sw['n']}) |" if sw else f" {_pts(scr)} | – |"
        for f in flags:
            flagged[f.split(" ")[0]] += 1
        lines.append(row + f" {', '.join(flags)} |")
    lines += ["", "## Summary", "",
              f"- cards flagged `empty`: {flagged['empty']}",
              f"- cards flagged `rare`: {flagged['rare']} (of which explained: {explained})",
              f"- cards flagged `unchosen` (playable, almost never chosen as an event): "
              f"{flagged['unchosen']}",
              f"- duplicate effect lists: {len(dups)}"
              + "".join(f"\n  - {a} = {b}" for a, b in dups),
              f"- causal swing confirmed for {len(swing)} card(s) over {conf.get('games', 0)} "
              f"paired seeds each ({conf.get('how', 'not run')}); flagged `swing`: "
              f"{flagged['swing']}; screens beyond {100 * SWING_MAX:.0f} points not confirmed "
              f"(`screen`): {flagged['screen']}"]
    lines += ["", "## Rarely playable by design (`rarely_playable` in the card data)", ""]
    lines += [f"- {cd.name}: {cd.rarely_playable}" for cd in c.cards if cd.rarely_playable]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- main


def _shown(path: Path) -> str:
    """A path as the report names it: relative to the repository when inside it."""
    path = Path(path).resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def load_results(path: Path = DATA) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def dumps(results: dict[str, Any]) -> str:
    """JSON with one line per card (lists of numbers kept on one line)."""
    text = json.dumps(results, indent=1, sort_keys=True)
    return re.sub(r"\[\s+([-0-9.,\s]*?)\s+\]",
                  lambda m: "[" + " ".join(m.group(1).split()) + "]", text) + "\n"


def main() -> int:
    from experiments.skill_curve import RUNS, run_dir, selfplay

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=0,
                    help="heuristic self-play games to measure (0: keep the stored figures)")
    ap.add_argument("--seed0", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--runs", type=Path, default=RUNS, help="where self-play games are kept")
    ap.add_argument("--ismcts", default=None, help="an ismcts spec, e.g. ismcts:10")
    ap.add_argument("--ismcts-games", type=int, default=0)
    ap.add_argument("--confirm", action="append", default=[],
                    help="card id to confirm with paired forbid runs (repeatable); 'top:K' "
                         "adds the K largest screens beyond 10 points; 'all' every base card")
    ap.add_argument("--confirm-games", type=int, default=100, help="paired seeds per card")
    ap.add_argument("--confirm-study", type=Path, default=Path("results/card_health_forbid"),
                    help="balance-study folder of the forbid runs (resumed)")
    ap.add_argument("--render", action="store_true", help="only redraw the report")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--content", default="shipped",
                    help="content folder or overlay to measure (default: the shipped edition)")
    args = ap.parse_args()
    try:
        c = load_content(args.content)
    except ContentError as exc:
        ap.error(str(exc))
    content = None if c.source == "shipped" else c.source
    res = load_results(args.data)
    fp = play_fingerprint(c)
    if not args.render:
        if res.get("fingerprint") != fp and not args.games:
            ap.error("the stored results are from other data: pass --games N")
        if res.get("fingerprint") != fp:
            res = {}
        res["fingerprint"] = fp
        if args.games:
            recs = selfplay("heuristic", args.games, args.seed0, args.workers, args.runs,
                            content=content)
            res["heuristic"] = measure(c, recs)
        if args.ismcts and args.ismcts_games:
            recs = selfplay(args.ismcts, args.ismcts_games, args.seed0, args.workers,
                            args.runs, content=content)
            res["ismcts"] = {"spec": args.ismcts, **measure(c, recs)}
            del res["ismcts"]["screen"]
        cards: list[str] = []
        for want in args.confirm:
            if want == "all":
                cards += [cd.id for cd in c.cards if cd.kind == "base"]
            elif want.startswith("top:"):
                cards += candidates(c, res["heuristic"], int(want[4:]))
            else:
                cards.append(want)
        cards = list(dict.fromkeys(cards))
        if cards:
            sw = confirm(c, cards, args.confirm_games, args.seed0, args.workers,
                         args.confirm_study, run_dir(args.runs, "heuristic"))
            old = res.get("confirm", {})
            kept = old.get("swing", {}) if old.get("games") == args.confirm_games else {}
            res["confirm"] = {"games": args.confirm_games, "seed0": args.seed0,
                              "how": f"paired heuristic seeds {args.seed0}–"
                                     f"{args.seed0 + args.confirm_games - 1}",
                              "swing": {**kept, **sw}}
        args.data.parent.mkdir(parents=True, exist_ok=True)
        args.data.write_text(dumps(res), encoding="utf-8")
    if res.get("fingerprint") != fp:
        print("warning: the stored results are from other data (rerun with --games N)")
    args.out.write_text(report(c, res, args.data), encoding="utf-8")
    print(f"wrote {args.out}" + ("" if args.render else f" and {args.data}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
