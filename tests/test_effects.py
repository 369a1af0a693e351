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
