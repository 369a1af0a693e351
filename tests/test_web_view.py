"""The per-seat view's content (experiments/web/view.py): region panels, the total-war flag,
the history card with its outcomes while modifiers are chosen, secret headlines and
modifiers (4.6.F, R16), cards shown by the opponent (R20), the log's countries."""

from __future__ import annotations

import pytest

from evenstar_env import Game
from experiments.web.sessions import new_game
from experiments.web.view import game_view, log_entries


def _until(g: Game, kind: str, player: str | None = None) -> Game:
    """Step the first legal action until `player`'s decision of `kind`."""
    for _ in range(400):
        d = g.decision
        if d.kind == kind and player in (None, d.player):
            return g
        g.step(d.legal[0])
    raise AssertionError(f"no {kind} decision")


def _view(g: Game, seat: str | None, **kw) -> dict:
    return game_view(g, seat=seat, **kw)


@pytest.mark.parametrize("seed", [1, 7])
def test_region_panels_score_as_the_engine_does(seed: int) -> None:
    g = _until(new_game(seed), "card")
    panels = _view(g, "usa")["regions"]
    names = [p["name"] for p in panels]
    assert names == g.content.region_names + g.content.subregion_names
    for p in panels:
        assert p["score_now"] == g.score_region(p["name"])
    europe = next(p for p in panels if p["name"] == "Europe")
    for side in ("usa", "china"):
        s = europe[side]
        assert s["presence"] == (s["battlegrounds"] + s["others"] >= 1)
        assert not s["control"] or s["domination"]


def test_control_and_influence_follow_the_board() -> None:
    g = _until(new_game(2), "card")
    g.set_influence("Poland", usa=5)
    g.set_influence("Iran", china=4)
    v = _view(g, None)
    i, j = g.content.index["Poland"], g.content.index["Iran"]
    assert v["influence"]["usa"][i] == 5 and v["influence"]["china"][j] == 4
    assert v["control"][i] == g.controller("Poland") == "usa"
    assert v["control"][j] == g.controller("Iran")


def test_total_war_flag_is_the_engine_s_for_every_card_play() -> None:
    g = _until(new_game(3), "card", "usa")
    threats = ["Clinton Doctrine", "Taiwan Strait Crisis", "Gulf War",
               "Wolf Warrior Diplomacy", "Smart Power"]
    g.set_hand("usa", threats)
    g.set_track("diplomacy", 2)
    options = _view(g, "usa")["decision"]["options"]
    flags = {g.content.cards[o["index"]].name: o["total_war"] for o in options}
    assert flags == {n: g.event_risks_total_war(n, "usa") for n in threats}
    assert flags["Clinton Doctrine"]  # threat 2 from diplomacy 2 reaches 1 (9.2.3, R21)
    g.set_track("diplomacy", 3)
    calm = _view(g, "usa")["decision"]["options"]
    assert not any(o["total_war"] for o in calm if o["index"] != g.content.card_by_name[
        "Clinton Doctrine"])
    g.set_track("diplomacy", 2)
    g.step(g.action_id("card", "Clinton Doctrine"))
    modes = _view(g, "usa")["decision"]["options"]
    event = [o for o in modes if o["group"] == "mode" and o["index"] == 0]
    assert event and event[0]["total_war"]


def test_history_outcomes_shown_and_the_us_modifier_kept_from_china() -> None:
    g = _until(new_game(4), "modifier", "usa")
    us = _view(g, "usa")["history"]["pending"]
    h = g.decision.context["history"]
    assert us["id"] == h and len(us["outcomes"]) == 4
    assert [o["text"] for o in us["outcomes"]] == [o.text for o in g.content.history[h].outcomes]
    assert us["picks"] == {} and len(us["modifiers"]) == 6
    plus1 = g.action_id("mod", "plus1")
    zero = g.action_id("mod", "zero")
    g.step(plus1 if plus1 in g.decision.legal else zero)
    assert g.decision.kind == "modifier" and g.decision.player == "china"
    assert _view(g, "china")["history"]["pending"]["picks"] == {}
    assert _view(g, None)["history"]["pending"]["picks"] == {}
    assert _view(g, "usa")["history"]["pending"]["picks"]["usa"] in ("plus1", "zero")


def test_the_us_headline_stays_secret_until_china_has_chosen() -> None:
    g = _until(new_game(5), "headline", "usa")
    card = g.decision.legal[0]
    g.step(card)
    assert g.decision.kind == "headline" and g.decision.player == "china"
    assert _view(g, "usa")["headlines"]["usa"] == card
    assert _view(g, "china")["headlines"]["usa"] is None
    assert _view(g, None)["headlines"]["usa"] is None
    assert card not in _view(g, "china")["hand"]


def test_only_cards_the_opponent_showed_are_known() -> None:
    g = _until(new_game(6), "card")
    hand = g.hand("china")
    g.state.revealed[1, g.content.card_by_name[hand[0]]] = True  # as a reveal_hand event does
    v = _view(g, "usa")
    assert v["opponent_known"] == [g.content.card_by_name[hand[0]]]
    assert _view(g, None)["opponent_known"] == []


def test_options_only_for_the_seat_to_move_and_everything_once_over() -> None:
    g = _until(new_game(8), "card")
    mover = g.decision.player
    other = "china" if mover == "usa" else "usa"
    assert _view(g, mover)["decision"]["options"]
    assert _view(g, other)["decision"]["options"] == []
    assert _view(g, other)["hands"] is None
    full = _view(g, None, reveal=True)
    assert set(full["hands"]) == {"usa", "china"} and full["decision"]["options"]


def test_the_log_is_the_event_stream_filtered_for_the_seat_and_rendered() -> None:
    g = _until(new_game(9), "card")
    entries, total = log_entries(g, "usa")
    assert total == len(entries) > 0 and [e["seq"] for e in entries] == list(range(total))
    later, same = log_entries(g, "usa", 2)
    assert same == total and later == entries[2:]
    assert all(e["text"] and e["text_zh"] for e in entries)
    for e in entries:
        if e["type"] == "influence":
            assert e["countries"] == [e["country"]]
            assert g.content.countries[e["country"]].name in e["text"]
    usa_draws = [e["card"] for e in entries if e["type"] == "draw" and e["side"] == 0]
    assert usa_draws and all(c >= 0 for c in usa_draws)  # its own draws, named
    china_sees = log_entries(g, "china")[0]
    assert all(e["card"] == -1 for e in china_sees if e["type"] == "draw" and e["side"] == 0)
    assert {e["seq"] for e in china_sees} == {e["seq"] for e in entries}
    spectator = log_entries(g, None)[0]
    assert all(e["card"] == -1 for e in spectator if e["type"] == "draw")
    assert _view(g, "china")["log"] == china_sees


def test_every_prompt_and_option_has_its_chinese_text() -> None:
    import random

    kinds = set()
    for seed in range(6):
        g, rng = new_game(seed), random.Random(seed)
        for _ in range(250):
            if g.is_over:
                break
            d = _view(g, g.decision.player, log=([], 0))["decision"]
            kinds.add(d["kind"])
            texts = [d["prompt_zh"]] + [o["label_zh"] for o in d["options"]]
            assert all(t and "{" not in t and not t.isascii() for t in texts), texts
            g.step(rng.choice(g.decision.legal))
    assert {"card", "mode", "headline", "modifier", "influence", "place"} <= kinds
