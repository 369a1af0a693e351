"""Flatten a compiled :class:`Content` into integer tables for the native core.

Python keeps loading, validating and compiling the content (TOML, variants); this
module turns the result into named int32 arrays once per content, so the native
core interprets the same effect records (same effect ids, same static selector
masks) and never parses TOML.  Field orders are in :mod:`.names`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..content import Content
from ..content.schema import Condition, Selector
from ..engine import validity
from ..engine.constants import (
    M_NEXT_BOTH,
    M_NEXT_NO_EVENT,
    M_NEXT_OPS,
    MODE_PLACE,
    MODE_REALIGN,
    MODE_TRADE,
    MODIFIERS,
    SPENDS,
    VP_SOURCES,
)
from ..engine.machine import Machine
from ..engine.state import State
from . import names

I32_MIN, I32_MAX = -(2**31), 2**31 - 1
REL = {"self": 0, "executor": 0, "opponent": 1, "usa": 2, "china": 3}
KIND = {"usa": 0, "china": 1, "anti_us": 2, "own": 3, "other": 4}
CTRL = {"none": (0,), "usa": (1,), "china": (2,), "anti_us": (3,), "china_or_anti_us": (2, 3)}
TRACK = {"social": 0, "economy": 1, "diplomacy": 2, "regional_security": 3, "russia": 4,
         "tech": 5}
MODE = {"place": MODE_PLACE, "realign": MODE_REALIGN, "trade": MODE_TRADE}
NEXT_SLOT = {"ops_plus_1": M_NEXT_OPS, "no_event": M_NEXT_NO_EVENT,
             "event_and_ops": M_NEXT_BOTH}
SPECIAL = {None: 0, "turn1": 1, "putin": 2}


def _opt(x: Any) -> int:
    return -1 if x is None else int(x)


class _Builder:
    def __init__(self, c: Content) -> None:
        self.c = c
        self.pool: list[int] = []
        self.selectors: dict[int, int] = {}
        self.sel_rows: list[list[int]] = []
        self.sel_static: list[np.ndarray] = []
        self.conds: list[list[int]] = []
        self.options: list[list[int]] = []
        self.outcomes: list[list[int]] = []

    def span(self, values: list[int]) -> tuple[int, int]:
        start = len(self.pool)
        self.pool.extend(int(v) for v in values)
        return start, len(values)

    def eids(self, effects: list[Any]) -> tuple[int, int]:
        return self.span(list(self.c.eids(effects)))

    def sel(self, sel: Selector | None) -> int:
        if sel is None:
            return -1
        key = id(sel)
        if key not in self.selectors:

            def bits(codes: Any, table: dict) -> int:
                if codes is None:
                    return -1
                out = 0
                for name in codes:
                    for k in (table[name] if isinstance(table[name], tuple) else (table[name],)):
                        out |= 1 << k
                return out

            self.selectors[key] = len(self.sel_rows)
            self.sel_rows.append([bits(sel.controlled_by, CTRL), bits(sel.not_controlled_by, CTRL),
                                  max(bits(sel.has, KIND), 0), max(bits(sel.lacks, KIND), 0)])
            self.sel_static.append(np.asarray(self.c.static_mask(sel), dtype=np.uint8))
        return self.selectors[key]

    def cond_span(self, conds: list[Condition]) -> tuple[int, int]:
        ids = []
        c = self.c
        for cond in conds:
            card = lambda x: -1 if x is None else c.card_by_id[x]  # noqa: E731
            ids.append(len(self.conds))
            self.conds.append([
                card(cond.in_play), card(cond.not_in_play), card(cond.event_played),
                card(cond.event_not_played), -1 if cond.track is None else TRACK[cond.track],
                -1 if cond.side is None else REL[cond.side],
                I32_MIN if cond.min is None else cond.min,
                I32_MAX if cond.max is None else cond.max,
                -1 if cond.controls is None else c.index[cond.controls], self.sel(cond.count),
                I32_MIN if cond.turn_min is None else cond.turn_min,
                I32_MAX if cond.turn_max is None else cond.turn_max,
                _opt(cond.hand_card_min_ops)])
        return self.span(ids)

    def effect(self, eff: Any, ops: dict[str, int]) -> list[int]:
        c = self.c
        r = dict.fromkeys(names.EFFECT_FIELDS, -1)
        r["op"] = ops[eff.op]
        g = lambda k: getattr(eff, k, None)  # noqa: E731
        if g("kind") is not None:
            r["kind"] = KIND[eff.kind]
        for k in ("points", "per_country", "max_countries", "amount", "delta", "count",
                  "min_ops", "ops", "modifier", "win_on", "security_loss"):
            if g(k) is not None:
                r[k] = int(g(k))
        for k in ("lump", "random", "value"):
            if g(k) is not None:
                r[k] = int(bool(g(k)))
        if eff.op != "if" and g("where") is not None:
            r["where"] = self.sel(eff.where)
        if g("chooser") is not None:
            r["chooser"] = REL[eff.chooser]
        if g("side") is not None:
            r["side"] = REL[eff.side]
        if eff.op == "track":
            r["track"] = TRACK[eff.track]
        if eff.op == "ops_action":
            r["modes_start"], r["modes_len"] = self.span([MODE[x] for x in eff.modes])
        if eff.op == "choice":
            rows = []
            for o in eff.options:
                rows.append(len(self.options))
                self.options.append([*self.cond_span(o.requires), *self.eids(o.effects)])
            r["options_start"], r["options_len"] = rows[0], len(rows)
        if eff.op == "roll":
            r["modifier_per"] = self.sel(eff.modifier_per)
            rows = []
            for o in eff.outcomes:
                rows.append(len(self.outcomes))
                self.outcomes.append([o.max, *self.eids(o.effects)])
            r["outcomes_start"], r["outcomes_len"] = rows[0], len(rows)
        if eff.op == "if":
            r["cond_start"], r["cond_len"] = self.cond_span(eff.conditions)
            r["then_start"], r["then_len"] = self.eids(eff.then)
            r["else_start"], r["else_len"] = self.eids(eff.otherwise)
        if eff.op == "cancel":
            r["card"] = c.card_by_id[eff.card]
        if eff.op == "history_event":
            r["card"] = c.hist_by_id[eff.card]
        if eff.op == "score":
            r["row"] = (c.region_names + c.subregion_names).index(eff.region)
        if eff.op == "next_card":
            r["slot"] = NEXT_SLOT[eff.effect]
        if eff.op == "replace_influence":
            r["remove_start"], r["remove_len"] = self.span([KIND[k] for k in eff.remove])
            r["add"] = KIND[eff.add]
        if eff.op == "war":
            r["target"] = c.index[eff.target]
            r["succ_start"], r["succ_len"] = self.eids(eff.success)
            r["fail_start"], r["fail_len"] = self.eids(eff.failure)
        return [r[k] for k in names.EFFECT_FIELDS]


def initial_state(c: Content) -> State:
    """The state after setup (3.1-3.7), before the first frame runs: Game's own setup."""
    from ..game import Game

    g = object.__new__(Game)
    g.content = c
    s = State(c.n, c.nc, c.nh, len(c.rules.spare_scoring),
              len(c.region_names) + len(c.subregion_names) + len(VP_SOURCES))
    g._m = Machine(c, s)
    g._setup()
    return s


def export(c: Content) -> dict[str, np.ndarray]:
    """The named int32 tables of a content (see names.py for the field orders)."""
    b = _Builder(c)
    eff_ops = {name: i for i, name in enumerate(names.effect_names())}
    effects = [b.effect(e, eff_ops) for e in c.effects]
    cards = []
    for i, cd in enumerate(c.cards):
        p = cd.persistent
        cards.append([int(c.card_ops[i]), int(c.card_side[i]), int(c.card_era[i]),
                      int(c.card_scoring[i]), int(c.card_diplomacy_threat[i]),
                      int(cd.event_banned), int(p is not None), int(cd.removed), int(cd.russia),
                      int(cd.out_of_game), *b.cond_span(cd.requires), *b.eids(cd.effects),
                      *b.span(list(c.prevented_by[i])),
                      *b.eids(p.each_turn if p else []), *b.eids(p.economy if p else []),
                      int(cd.pay_discard or 0)])
    hist = []
    for i, h in enumerate(c.history):
        spans = [x for o in h.outcomes for x in b.eids(o.effects)]
        hist.append([int(c.hist_side[i]), int(c.hist_era[i]), SPECIAL[h.special], *spans])
    russia = [[bx.price, *b.eids(bx.effects)] for bx in c.russia_boxes]
    tech = [[[bx.price, *b.eids(bx.effects)] for bx in boxes] for boxes in c.tech_boxes]
    zone_ids: dict[int, int] = {}

    def zid(z: Any) -> int:
        return -1 if z is None else zone_ids.setdefault(id(z), len(zone_ids))

    r = c.rules
    social = [[z.hand, int(z.discard), int(z.opponent_round8), zid(z)] if z else [0, 0, 0, -1]
              for z in c.social_zone]
    economy = [[z.income, z.price, *b.eids(z.effects), zid(z)] if z else [0, 0, 0, 0, -1]
               for z in c.economy_zone]
    ukr = b.eids(c.raw.tracks.ukraine_war_failure)
    n_vp = len(c.region_names) + len(c.subregion_names) + len(VP_SOURCES)
    scal = dict(n=c.n, nc=c.nc, nh=c.nh, n_regions=len(c.region_names),
                n_subregions=len(c.subregion_names), n_spare=len(r.spare_scoring), n_vp=n_vp,
                taiwan=c.taiwan, india=c.india, ukraine=c.ukraine, turns=r.turns,
                action_rounds=r.action_rounds, social_max=r.social_max,
                economy_max=r.economy_max, dip_price=r.diplomacy_spend_price,
                russia_price=r.russia_spend_price, n_russia=len(c.russia_boxes),
                n_tech_usa=len(c.tech_boxes[0]), n_tech_china=len(c.tech_boxes[1]),
                ukr_start=ukr[0], ukr_len=ukr[1], n_persistent=len(c.persistent_cards),
                n_ops_mod=len(c.ops_mod_cards))
    regions = c.region_names + c.subregion_names
    s0 = initial_state(c)
    i32 = lambda x: np.ascontiguousarray(np.asarray(x, dtype=np.int64).astype(np.int32))  # noqa: E731
    nsel = len(b.sel_rows)
    out = {
        "scalars": i32([scal[k] for k in names.SCALARS]),
        "effects": i32(effects).reshape(len(effects), len(names.EFFECT_FIELDS)),
        "conds": i32(b.conds).reshape(len(b.conds), len(names.COND_FIELDS)),
        "selectors": i32(b.sel_rows).reshape(nsel, len(names.SEL_FIELDS)),
        "sel_static": i32(np.array(b.sel_static).reshape(nsel, c.n)),
        "options": i32(b.options).reshape(len(b.options), len(names.OPTION_FIELDS)),
        "outcomes": i32(b.outcomes).reshape(len(b.outcomes), len(names.OUTCOME_FIELDS)),
        "cards": i32(cards),
        "hist": i32(hist),
        "russia_boxes": i32(russia).reshape(len(russia), len(names.BOX_FIELDS)),
        "tech_usa": i32(tech[0]).reshape(len(tech[0]), len(names.BOX_FIELDS)),
        "tech_china": i32(tech[1]).reshape(len(tech[1]), len(names.BOX_FIELDS)),
        "social_zone": i32(social),
        "economy_zone": i32(economy),
        "improve_attempts": i32(c.improve_attempts),
        "improve_success": i32([r.improve_success.get(k, -1) for k in range(5)]),
        "modifier_costs": i32([r.modifier_costs[k] for k, _ in MODIFIERS]),
        "modifier_values": i32([v for _, v in MODIFIERS]),
        "era_turns": i32([r.era_turns[e] for e in ("early", "mid", "late")]),
        "spare_turns": i32(r.spare_scoring_turns),
        "spare_rows": i32([regions.index(x) for x in r.spare_scoring]),
        "persistent": i32(c.persistent_cards),
        "ops_mod": i32([[i, u, ch] for i, (u, ch) in c.ops_mod_cards]).reshape(-1, 3),
        "ctrl_stab": i32(c.ctrl_stab), "stab": i32(c.stab), "has_stab": i32(c.has_stab),
        "bg": i32(c.bg), "au_ok": i32(c.au_controllable), "adj": i32(c.adj),
        "adj_sp": i32(c.adj_sp), "trade_reach": i32(c.trade_reach),
        "region_matrix": i32(c.region_matrix), "subregion_matrix": i32(c.subregion_matrix),
        "region_values": i32(c.region_values).reshape(len(c.region_names), 3),
        "pool": i32(b.pool),
        "init_inf_us": i32(s0.inf_us), "init_inf_cn": i32(s0.inf_cn),
        "init_non_realignable": i32(s0.non_realignable), "init_tracks": i32(s0.tracks),
        "init_reserves": i32(s0.reserves), "init_card_loc": i32(s0.card_loc),
        "init_hist_loc": i32(s0.hist_loc), "init_misc": i32(s0.misc),
        "init_stack": i32([names.frame_names().index(f[0]) for f in s0.stack]),
        **validity.tables(c, names.frame_names(), names.decision_kinds()),
    }
    assert len(SPENDS) == 3
    return out
