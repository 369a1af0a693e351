"""Effect primitives where the rules fix the outcome (docs/content.md; R1, R16, R17, 2.1.8.6)."""

from __future__ import annotations

from helpers import action_round, wipe_region

from evenstar_env import Game
from evenstar_env.engine.constants import CHINA


def run_effects(g: Game, effects: list, executor: int) -> None:
    """Carry out content effects now, above the pending decision (test-only shortcut)."""
    s = g.state
    if s.pending is not None:
        s.stack.append(s.pending[0])
        s.pending = None
    s.stack.extend(("eff", e, executor) for e in reversed(g.content.eids(effects)))
    g._m.run()


def test_uncapped_us_reduction_past_zero_places_au() -> None:
    """R19 failure: China reduces 4 US in Europe; beyond the US present it becomes AU (R1)."""
    g = action_round(0, "usa")
    wipe_region(g, "Europe")
    g.set_influence("Poland", usa=1)
    run_effects(g, g.content.raw.tracks.ukraine_war_failure, CHINA)  # one candidate: automatic
    assert g.influence("Poland") == {"usa": 0, "china": 0, "anti_us": 3}


def test_reduction_candidates_are_fixed_when_the_effect_starts() -> None:
    g = action_round(0, "usa")
    wipe_region(g, "Europe")
    g.set_influence("Poland", usa=2)
    g.set_influence("Germany", usa=1)
    g.set_influence("France", china=3)  # no US: never a candidate for a US reduction
    run_effects(g, g.content.raw.tracks.ukraine_war_failure, CHINA)
    both = {g.action_id("country", "Poland"), g.action_id("country", "Germany")}
    assert g.decision.player == "china" and set(g.legal_actions()) == both
    for _ in range(3):
        g.step(g.action_id("country", "Germany"))  # 1 US, then 2 AU
    assert set(g.legal_actions()) == both  # Germany stays a candidate below zero
    g.step(g.action_id("country", "Poland"))
    assert g.influence("Germany") == {"usa": 0, "china": 0, "anti_us": 2}
    assert g.influence("Poland") == {"usa": 1, "china": 0, "anti_us": 0}


def test_lump_reduction_takes_the_whole_amount_at_once() -> None:
    """Wagner Group (8.1.2): 2 US in one country; a shortfall becomes AU (2.1.8.6)."""
    g = action_round(0, "usa")
    wipe_region(g, "Africa")
    g.set_influence("Syria", usa=0, anti_us=0)
    g.set_influence("Nigeria", usa=1)
    wagner = next(b for b in g.content.russia_boxes if b.name == "Wagner Group")
    run_effects(g, wagner.effects, CHINA)
    assert g.influence("Nigeria") == {"usa": 0, "china": 0, "anti_us": 1}


def test_china_reduction_stops_at_zero() -> None:
    """CN never goes below 0 (R1): 1 CN reduced where there is none left does nothing more."""
    g = action_round(0, "usa")
    h = g.content.history[g.content.hist_by_id["china_south_korea_relations"]]
    effect = next(e for o in h.outcomes for e in o.effects
                  if e.op == "reduce_influence" and e.kind == "china")
    target = effect.where.countries[0]
    g.set_influence(target, china=0)
    run_effects(g, [effect], 0)
    assert g.influence(target)["china"] == 0
    g.set_influence(target, china=2)
    run_effects(g, [effect], 0)
    assert g.influence(target)["china"] == 1


UPKEEP_CARD = '''
[[cards]]
id = "test_neutral_upkeep"
name = "Test Neutral Upkeep"
zh = "测试"
era = "early"
side = "neutral"
ops = 2
persistent = { each_turn = [
  { op = "add_influence", kind = "own", points = 1, where = { countries = ["Mongolia"] } },
] }
text = "While in play, the player who played it adds 1 own influence in Mongolia each turn."
text_zh = "此牌在场期间，打出者每回合在蒙古增加 1 点本方影响力。"
note = "A test card."
effects = [{ op = "reserves", side = "self", amount = 1 }]
'''


def test_neutral_persistent_upkeep_is_carried_out_by_the_player_who_played_it(tmp_path) -> None:
    """7.2, 5.2: a neutral event is the player's own; so are its persistent effects."""
    import shutil

    from helpers import advance_to, play, quiet_advance

    from evenstar_env.content import DATA_DIR, load_content

    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    with (data / "cards_early.toml").open("a", encoding="utf-8") as fh:
        fh.write(UPKEEP_CARD)
    g = advance_to(Game(7, content=load_content(data)), "card", "china")
    hand = g.hand("china")
    g.set_hand("china", ["Test Neutral Upkeep"] + [h for h in hand if "Scoring" not in h][:2])
    g.set_influence("Mongolia")
    play(g, "Test Neutral Upkeep", "event")
    quiet_advance(g, "modifier", turn=g.turn + 1)  # the next turn's phase D: phase A has run
    assert g.influence("Mongolia") == {"usa": 0, "china": 1, "anti_us": 0}


def test_controls_condition_counts_au_control_for_china() -> None:
    """2.1.8.3 (second paragraph), R2: "China-controlled" on a card includes AU control."""
    from evenstar_env.content.schema import Condition

    g = action_round(0, "usa")
    g.set_influence("Iran", anti_us=2)
    assert g.controller("Iran") == "anti_us"
    cond = Condition(controls="Iran", side="china")
    assert g._m.holds(cond, CHINA)
    assert not g._m.holds(Condition(controls="Iran", side="usa"), CHINA)
    g.set_influence("Iran", usa=5)
    assert not g._m.holds(cond, CHINA)
