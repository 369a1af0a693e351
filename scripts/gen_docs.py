"""Generate docs/observation.md, docs/actions.md and docs/cards.md from the code and data.

    python scripts/gen_docs.py          # write the files
    python scripts/gen_docs.py --check  # exit 1 if a file is out of date (CI)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # document this checkout's code, not an installed one

from evenstar_env import Game  # noqa: E402
from evenstar_env.content import load_content  # noqa: E402
from evenstar_env.engine.actions import ActionSpace  # noqa: E402
from evenstar_env.engine.constants import MODES, MODIFIERS, N_OPTIONS, PHASES, SPENDS  # noqa: E402
from evenstar_env.env.observation import DECISION_KINDS, ObservationEncoder  # noqa: E402

DOCS = ROOT / "docs"

OBS_NOTES = {
    "inf_usa": "US influence per country / 5 (map order)",
    "inf_china": "CN influence per country / 5",
    "inf_anti_us": "AU influence per country / 5",
    "ctrl_usa": "1 where the US controls (R2)", "ctrl_china": "1 where China controls",
    "ctrl_anti_us": "1 where AU-controlled", "non_realignable": "1 where ⊗ (2.1.5)",
    "hand": "own hand (card order)", "discard": "discard pile",
    "removed": "removed from the game", "in_play": "persistent events in effect",
    "own_headline": "own chosen headline card, not yet resolved",
    "playing": "the card being played now (its event or ops are resolving)",
    "opponent_headline": "the opponent's headline card, once both are chosen and shown (4.6.F); "
                         "0 while this player is still choosing",
    "event_played": "events that have happened this game (prerequisites, 5.2)",
    "history_done": "history cards already resolved (history card order)",
    "revealed_opponent_hand": ("the opponent's hand as revealed to this player (R20 "
                               "snapshot; a card loses its mark when the discards are "
                               "reshuffled into the draw pile, 4.4)"),
    "tracks": "social US/CN, economy US/CN, diplomacy, security, Russia, tech US/CN, each / max",
    "vp": "VP US, China / 20", "reserves": "reserves US, China / 10",
    "hand_size": "hand size of the turn US, China / 10",
    "improve_left": "improve attempts left US, China / 3",
    "tech_done": "sabotage (US) / tech race (China) used this turn",
    "trade_done": "trade contest used this turn US, China",
    "discard_right": "may discard at the end of the turn US, China (social 9-8)",
    "round8": "may take an 8th round US, China", "next_card": "US tech next-card benefits: "
    "ops+1 US/CN, no event US/CN, event and ops US/CN",
    "russia_ukraine_need": "US influence required in Ukraine this turn / 10",
    "russia_ukraine_added": "US influence added to Ukraine this turn / 10",
    "turn": "turn / 11", "round": "action round / 8",
    "opponent_hand_size": "cards in the opponent's hand / 10",
    "own_hand_size": "cards in own hand / 10",
    "phase": "one-hot: " + ", ".join(PHASES), "phasing": "one-hot phasing player US, China",
    "me": "one-hot: this observation is for US, China", "to_move": "1 if this player decides now",
    "russia_ukraine": "one-hot war state: none, waiting, active",
    "spare_scoring_used": "spare scoring cards already drawn (rules.toml order)",
    "decision_kind": "one-hot: " + ", ".join(DECISION_KINDS),
    "decision_card": "the card of a mode or order decision (one-hot)",
    "decision_ops": "ops of the decision / 4 (mode, granted, place: ops left, realign, trade)",
    "decision_countries": "countries legal for this player's pending country choice "
                          "(place, realign, trade, influence)",
    "decision_history": "the history card of a modifier decision (one-hot)",
    "hand_war_risk": "own hand cards whose event, if it fired now, could bring diplomacy to 1 "
                     "(total war, lost by whoever played the card; 9.2.3, R7, R21)",
    "decision_card_war_risk": "1 if the card of the current decision carries that risk",
    "realign_war_risk": "1 if diplomacy is 2 or less: one realignment attempt could end "
                        "the game in total war (R7, R21)",
    "russia_deferred": "Russia boxes (box 1 first) whose effect waits until the current card "
                       "play is over after China's reserve spend; they resolve in box order (R22)",
    "tech_paid": "US, China: tech boxes already paid / boxes (a box pays once per game, "
                 "also when the marker re-enters it after a setback)",
    "history_turn": "the history cards drawn this turn, face up from phase D on: the US's and "
                    "China's (one-hot each; R23)",
    "responsible": "one-hot US, China: who loses if diplomacy reaches 1 now (R21: the phasing "
                   "player, the headline's or history card's owner)",
    "result": "one-hot at the end: US won, China won, draw",
    "scoring_held": "scoring cards in one's own hand / 4",
    "scoring_due": "1 if those scoring cards fill the action rounds left in the turn (this "
                   "one included, at least 1): one must be played now, or one is still held "
                   "at the end of the turn, which loses (2.2.1.1)",
    "russia_steps_pending": "Russia-track steps of Russia cards still to resolve (7.6, R5) "
                            "/ Russia boxes (a spend's box effect: `russia_deferred`, R22)",
    "own_modifier": "own modifier card (MOD order) while the opponent chooses its own (R16; "
                    "the US, during China's choice)",
    "action_mode": "the ops action of the card play (MODES order): in an order decision the "
                   "action to be ordered (R5), afterwards the action still to come",
    "action_ops": "that action's ops / 4 (improve: printed ops)",
    "event_to_come": "1 if the played card's event is still to come (action first, R5)",
    "legal_choices": "this player's legal actions among the MODE, ORDER, MOD, SPEND, YES, NO, "
                     "OPTION, DONE groups (action order, docs/actions.md), when it decides",
    "decision_executor": "one-hot US, China: who carries out the effect or event asking",
    "decision_candidates": "countries the choice draws from: an influence effect's candidates, "
                           "the placement's eligible countries fixed at its start (R3), the "
                           "countries a granting event allows (all 1 when unrestricted: realign, "
                           "trade)",
    "decision_chosen": "influence picks already made in this effect, per country / max points",
    "source_card": "the card whose event (or persistent effect) asks this pick, option or "
                   "discard (one-hot)",
    "source_history": "the history card whose outcome asks this pick (one-hot)",
    "source_history_outcome": "its outcome: die ≤1, 2–3, 4–5, ≥6 (one-hot)",
    "source_track": "the track box, zone or rule asking this pick (one-hot; see below)",
    "source_rank": "the rank of the asking effect among those of its source, in data order "
                   "(one-hot)",
    "influence_verb": "one-hot: add, reduce",
    "influence_kind": "one-hot: US, China, anti-US influence (own/other resolved)",
    "influence_left": "points still to place or take / max points",
    "influence_points": "the effect's total points / max points",
    "influence_cap": "points allowed per country / max cap (0: no cap)",
    "influence_max_countries": "countries allowed / max (0: no limit)",
    "influence_lump": "1 if each pick moves the whole per-country amount",
    "discard_side": "one-hot US, China: whose hand a discard comes from",
    "discard_left": "cards still to discard / max",
    "discard_min_ops": "lowest printed ops of a card that may be discarded / 4",
    "granted_modes": "modes an event's granted action allows: place, realign, trade (7.3.3)",
    "option_effects": "per event option (slot after slot), what its effects do for the "
                      "executor at hand; entries below, each / its largest magnitude",
    "option_places": "per event option (slot after slot), the countries it names "
                     "(war targets, named places; map order)",
}


def _range(lo: float, hi: float) -> str:
    def fmt(x: float) -> str:
        return "∞" if x == float("inf") else "−∞" if x == -float("inf") else f"{x:g}"
    return f"{fmt(lo)}…{fmt(hi)}"


def observation_md() -> str:
    enc = ObservationEncoder(load_content())
    rows = []
    for k, s in enc.layout.items():
        lo, hi = enc.low[s], enc.high[s]
        span = (_range(lo[0], hi[0]) if (lo == lo[0]).all() and (hi == hi[0]).all()
                else f"{_range(lo.min(), hi.max())} (per entry)")
        rows.append(f"| `{k}` | {s.start}–{s.stop - 1} | {s.stop - s.start} | {span} | "
                    f"{OBS_NOTES[k]} |")
    fx = enc.effects
    return "\n".join([
        "# Observation", "",
        "<!-- generated by scripts/gen_docs.py; do not edit -->", "",
        f"Each agent observes `{{\"observation\": float32[{enc.size}], "
        f"\"action_mask\": int8[{Game(0).num_actions}]}}`.",
        "The vector is built from what that player may know: it never depends on the",
        "opponent's hand, the draw pile, the opponent's headline card before both are shown",
        "(4.6.F), the opponent's modifier card, or future dice (tested by resampling them,",
        "`tests/test_env.py`, `tests/test_observation.py`). Country order is",
        "`Game.countries()`, card order `Game.cards()` (base and scoring cards), history",
        "card order the history part of `Game.cards()`.",
        "At run time: `ObservationEncoder(content).layout` (name → slice), `.low` / `.high`",
        "(the range of every entry, also the `Box` bounds of the environments; counters that no",
        "rule caps, such as influence, VP and reserves, are bounded by the integer type the",
        "engine stores them in).", "",
        "Every pending decision comes with its whole context: the frame asking it (influence",
        "picks: verb, kind, points left, caps, candidates, picks made; options: what each",
        "option does; discards; the order decision's action; granted actions; placement",
        "eligibility) and where it comes from (card, history card and outcome, track box).",
        "`tests/test_observation.py` checks over 20,000 observations of whole games that two",
        "positions whose player-visible state differs never share an observation vector.", "",
        "The mask is all zero for an AEC agent that is not to move, also once the game has",
        "ended (finished agents step `None`); the single-agent and vector envs instead give",
        "an all-True mask once an episode has ended, for Gymnasium's autoreset step (README,",
        "\"Using Evenstar from …\").", "",
        "The seed is the experimenter's, not the player's: `info[\"seed\"]` (single-agent and",
        "AEC infos), the vector envs' `.seeds` and `Game.seed` name the game, and the game's",
        "seed determines all of its hidden information: with the public actions, `Game(seed)`",
        "gives the opponent's hand, the draw order and every future die. It is there to",
        "reproduce and log games, never to be fed to an agent (an agent that reads it sees",
        "through the fog); `evenstar play` shows it only when the game ends.", "",
        "| name | indices | size | range | meaning |", "| --- | --- | --- | --- | --- |", *rows,
        "",
        "## Constant features (not in the vector)", "",
        "The map features that never change during a game are not sent at every step; they",
        "are `env.unwrapped.static_features` (PettingZoo and Gymnasium environments) and",
        "`ObservationEncoder.static_features`: a dict name → float32 array, one entry per",
        "country in map order.", "",
        "| name | meaning |", "| --- | --- |",
        "| `battleground` | 1 for battlegrounds |",
        "| `stability` | stability / 5 (India 0) |",
        "| `adjacent_usa` | 1 if linked to the USA |",
        "| `adjacent_china` | 1 if linked to China |", "",
        "Some entries are constant by the content while their field is not: the `phase`",
        "entry `setup` (no decision is asked then), one-hot entries of cards or history",
        "cards that never ask a pick (`source_card`, `source_history`).", "",
        f"## `option_effects` entries ({fx.option_slots} option slots × "
        f"{len(fx.option_features)})", "",
        "Summed over the option's effects, nested ones included, with sides made absolute",
        "for the executor: " + ", ".join(f"`{x}`" for x in fx.option_features) + ". `vp_*`,",
        "`reserves_*`, `track_*`: amounts; `add_*`, `reduce_*`: influence points;",
        "`each_country_*`: points per matching country; `war_*`: wars waged by that side;",
        "`replace_influence`: replacements; `conditions`: the option's requirements. Entries",
        "that are the same for every option of the content are left out.", "",
        "## `source_track` entries", "",
        ", ".join(f"`{x}`" for x in fx.track_names) + ".", ""])


def actions_md() -> str:
    c = load_content()
    sp = ActionSpace.for_content(c)
    groups = [("CARD", sp.card0, c.nc, "a card: play, headline, discard (card order)"),
              ("COUNTRY", sp.country0, c.n, "a country: place, realign, trade, event target"),
              ("MODE", sp.mode0, len(MODES), ", ".join(MODES)),
              ("ORDER", sp.order0, 2, "event first, action first (R5, R25)"),
              ("MOD", sp.mod0, len(MODIFIERS), ", ".join(k for k, _ in MODIFIERS) + " (R16)"),
              ("SPEND", sp.spend0, len(SPENDS), ", ".join(SPENDS) + " (R11)"),
              ("YES", sp.yes, 1, "economy upgrade, 8th round"),
              ("NO", sp.no, 1, "decline (also General AI's other half, R25)"),
              ("OPTION", sp.option0, N_OPTIONS, "event branch options"),
              ("DONE", sp.done, 1, "stop spending and play a card / pass the end-of-turn discard")]
    rows = [f"| {g} | {a}–{a + n - 1} | {n} | {t} |" for g, a, n, t in groups]
    return "\n".join([
        "# Actions", "",
        "<!-- generated by scripts/gen_docs.py; do not edit -->", "",
        f"One flat `Discrete({sp.n})` space; the pending decision's legal actions are given",
        "by `Game.legal_actions()` / the `action_mask`. A stepped action that is not legal",
        "(also one that is not an integer or lies outside the space) raises",
        "`IllegalActionError`, in `Game.step` and in the environment alike (the wrapped",
        "`evenstar_env.env()` needs no out-of-bounds wrapper). `Game.action_id(group, name)` and",
        "`Game.describe_action(a)` translate both ways. Decision kinds and the groups they",
        "use: modifier (MOD), headline / card / discard (CARD), end_discard (CARD, DONE),",
        "spend (SPEND, DONE), mode / granted (MODE), order (ORDER), place / realign / trade /",
        "influence (COUNTRY), option (OPTION), upgrade / round8 (YES, NO); General AI (R25):",
        "ai_event (ORDER, NO: the event of the card played for an action, before or after it, or",
        "not) and ai_action (MODE, NO: an action with the card played as event, or not).",
        "A mode that could change nothing is not offered (R5): event after Super Materials",
        "(R27), and improve_social / improve_economy while that track is at the leftmost box",
        "(R28: improving at the top of a track is not offered).", "",
        "| group | ids | size | meaning |", "| --- | --- | --- | --- |", *rows, ""])


def cards_md() -> str:
    c = load_content()
    out = ["# Cards", "", "<!-- generated by scripts/gen_docs.py from evenstar_env/data; "
           "do not edit -->", "",
           "Evenstar 1991, project edition (RULINGS E). Marks: `*` removed after its event,"
           " `∞` persistent, `R` a Russia card (7.6).", ""]
    for era in ("early", "mid", "late"):
        cards = [x for x in c.cards if x.era == era]
        if not cards:
            continue
        out += [f"## {era.capitalize()} era ({len(cards)} cards)", "",
                "| card | 中文 | side | ops | marks | event |",
                "| --- | --- | --- | --- | --- | --- |"]
        for x in cards:
            marks = "".join(m for m, on in (("*", x.removed), ("∞", x.persistent is not None),
                                            ("R", x.russia)) if on)
            out.append(f"| **{x.name}** | {x.zh} | {x.side} | {x.ops} | {marks} | "
                       f"{x.text.replace('|', '/')} |")
        out.append("")
        hist = [h for h in c.history if h.era == era]
        if hist:
            out += [f"### {era.capitalize()} history cards ({len(hist)})", ""]
            for h in hist:
                special = f" ({h.special})" if h.special else ""
                out.append(f"- **{h.name}** / {h.zh} — {h.side}{special}: " + "; ".join(
                    f"{band}: {o.text}" for band, o in zip(("≤1", "2–3", "4–5", "≥6"),
                                                          h.outcomes, strict=True)))
            out.append("")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="fail if a file is out of date")
    args = ap.parse_args()
    stale = []
    for name, text in (("observation.md", observation_md()), ("actions.md", actions_md()),
                       ("cards.md", cards_md())):
        path = DOCS / name
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
    if stale:
        print(f"out of date: {', '.join(stale)}; run python scripts/gen_docs.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
