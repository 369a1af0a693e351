"""Derived board values (control, costs, targets, scoring), computed vectorised."""

from __future__ import annotations

import numpy as np

from ..content import Content
from ..content.schema import Selector
from .constants import (
    C_ANTI_US,
    C_CHINA,
    C_USA,
    CHINA,
    M_RW_ADDED,
    M_RW_STATE,
    NOBODY,
    RW_ACTIVE,
    USA,
)
from .state import State

CONTROLLER_CODES = {"none": (NOBODY,), "usa": (C_USA,), "china": (C_CHINA,),
                    "anti_us": (C_ANTI_US,), "china_or_anti_us": (C_CHINA, C_ANTI_US)}


def control_masks(c: Content, s: State) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Boolean masks of the countries controlled by the US, China and anti-US (R2, 2.1.8)."""
    us = np.maximum(s.inf_us, 0)
    cn = s.inf_cn
    st = c.ctrl_stab
    usa = (us >= st) & (us - cn >= st)
    chn = (cn >= st) & (cn - us >= st)
    au = (s.inf_us < 0) & ~chn & c.au_controllable  # 2.1.8.4: never Taiwan
    return usa, chn, au


def controllers(c: Content, s: State) -> np.ndarray:
    """Controller code of every country (R2, 2.1.8)."""
    usa, chn, au = control_masks(c, s)
    # The three are exclusive, so the codes add up (C_USA 1, C_CHINA 2, C_ANTI_US 3).
    return usa.view(np.int8) + chn.view(np.int8) * np.int8(C_CHINA) + \
        au.view(np.int8) * np.int8(C_ANTI_US)


def controller_of(c: Content, s: State, i: int) -> int:
    """Controller code of one country (scalar version of `controllers`)."""
    v, cn, st = int(s.inf_us[i]), int(s.inf_cn[i]), int(c.ctrl_stab[i])
    if v >= st and v - cn >= st:
        return C_USA
    if cn >= st and cn - max(v, 0) >= st:
        return C_CHINA
    if v < 0 and i != c.taiwan:
        return C_ANTI_US
    return NOBODY


def own_influence(s: State, p: int) -> np.ndarray:
    """Influence a player counts as its own markers (6.1.1: AU is not China's)."""
    return np.maximum(s.inf_us, 0) if p == USA else s.inf_cn


def placement_eligible(c: Content, s: State, p: int) -> np.ndarray:
    """Countries where `p` may place with ops, fixed at the start of the placement (R3)."""
    own = own_influence(s, p) > 0
    near = (c.adj_i8 @ own.astype(np.int8)) > 0
    return own | near | c.adj_sp[p]


def placement_costs(c: Content, s: State, p: int) -> np.ndarray:
    """Ops cost of one point of influence for `p` in every country (6.1.2, 6.1.2.1)."""
    ctrl = controllers(c, s)
    enemy = (ctrl == C_USA) if p == CHINA else (ctrl == C_CHINA) | (ctrl == C_ANTI_US)
    cost = 1 + enemy.astype(np.int16)
    if c.india >= 0:
        cost[c.india] = 2
    return cost


def placement_cost(c: Content, s: State, p: int, i: int) -> int:
    if i == c.india:
        return 2
    ctrl = controller_of(c, s, i)
    if p == USA:
        return 2 if ctrl in (C_CHINA, C_ANTI_US) else 1
    return 2 if ctrl == C_USA else 1


def realign_targets(c: Content, s: State, p: int) -> np.ndarray:
    """Countries `p` may realign (6.2.1, 6.2.7, R6)."""
    has_other = (s.inf_us < 0) | (s.inf_cn > 0) if p == USA else s.inf_us > 0
    return has_other & ~s.non_realignable & c.has_stab


def trade_targets(c: Content, s: State, p: int, ops: int) -> np.ndarray:
    """Countries `p` may target with a trade contest using a card of `ops` (6.6.2, R10)."""
    ok = c.trade_reach[min(max(ops, 0), 4)]
    return ok & (s.inf_us >= 0) if p == USA else ok.copy()


def kind_code(kind: str, executor: int) -> str:
    """Resolve "own"/"other" against the executing side (5.6)."""
    if kind == "own":
        return "usa" if executor == USA else "china"
    if kind == "other":
        return "china" if executor == USA else "usa"
    return kind


def kind_owner(kind: str) -> int:
    return USA if kind == "usa" else CHINA


def amount(s: State, i: int, kind: str) -> int:
    if kind == "usa":
        return max(int(s.inf_us[i]), 0)
    if kind == "anti_us":
        return max(-int(s.inf_us[i]), 0)
    return int(s.inf_cn[i])


def has_kind(s: State, kind: str) -> np.ndarray:
    if kind == "usa":
        return s.inf_us > 0
    if kind == "anti_us":
        return s.inf_us < 0
    return s.inf_cn > 0


def add(c: Content, s: State, i: int, kind: str, points: int) -> None:
    """Add influence (R1: US removes AU first and AU removes US first)."""
    if kind == "china":
        s.inf_cn[i] += points
        return
    before = int(s.inf_us[i])
    after = before + points if kind == "usa" else before - points
    s.inf_us[i] = after
    if kind == "usa" and i == c.ukraine and s.misc[M_RW_STATE] == RW_ACTIVE:
        s.misc[M_RW_ADDED] += points  # R19: every US point added counts, AU removal too


def reduce(s: State, i: int, kind: str, points: int) -> None:
    """Reduce influence; a US shortfall is placed as AU (R1), CN and AU stop at 0."""
    if kind == "china":
        s.inf_cn[i] = max(int(s.inf_cn[i]) - points, 0)
    elif kind == "usa":
        s.inf_us[i] -= points
    else:
        s.inf_us[i] = min(int(s.inf_us[i]) + points, 0) if s.inf_us[i] < 0 else s.inf_us[i]


def remove_all(s: State, i: int, kind: str) -> None:
    """Remove every point of a kind; removing all US places no AU (R1)."""
    if kind == "china":
        s.inf_cn[i] = 0
    elif (kind == "usa" and s.inf_us[i] > 0) or (kind == "anti_us" and s.inf_us[i] < 0):
        s.inf_us[i] = 0


def select(c: Content, s: State, sel: Selector, executor: int) -> np.ndarray:
    """Countries matching a selector now (static part cached, dynamic part vectorised)."""
    mask = c.static_mask(sel)
    if sel.controlled_by is not None or sel.not_controlled_by is not None:
        ctrl = controllers(c, s)
        if sel.controlled_by is not None:
            mask = mask & np.isin(ctrl, [k for n in sel.controlled_by for k in CONTROLLER_CODES[n]])
        if sel.not_controlled_by is not None:
            bad = [k for n in sel.not_controlled_by for k in CONTROLLER_CODES[n]]
            mask = mask & ~np.isin(ctrl, bad)
    for kind in sel.has or ():
        mask = mask & has_kind(s, kind_code(kind, executor))
    for kind in sel.lacks or ():
        mask = mask & ~has_kind(s, kind_code(kind, executor))
    return mask


def score_all(c: Content, s: State, ctrl: np.ndarray | None = None) -> np.ndarray:
    """VP each side would score now for every region and sub-region (10.1, R18).

    Rows follow ``c.region_names + c.subregion_names``; columns are US, China.
    """
    if ctrl is None:
        ctrl = controllers(c, s)
    us, cn, au = ctrl == C_USA, ctrl == C_CHINA, ctrl == C_ANTI_US
    P = c.region_matrix  # (regions, countries)
    bg, nbg = c.bg, ~c.bg
    us_bg = np.maximum(P @ (us & bg) - P @ (au & bg), 0)  # R18: AU lowers the US counts
    us_nbg = np.maximum(P @ (us & nbg) - P @ (au & nbg), 0)
    cn_bg, cn_nbg = P @ (cn & bg), P @ (cn & nbg)
    box = c.region_values  # (regions, 3): presence, domination, control
    out = np.zeros((len(c.region_names) + len(c.subregion_names), 2), dtype=np.int64)
    for p, (mb, mn, ob, on, mine, enemy_sp) in enumerate(
            ((us_bg, us_nbg, cn_bg, cn_nbg, us, 1), (cn_bg, cn_nbg, us_bg, us_nbg, cn, 0))):
        control = (mb > ob) & (mn > on)
        domination = (mb > ob) & ((mn >= 1) | ((mn == 0) & (on == 0)))
        presence = (mb + mn) >= 1
        level = np.where(control, box[:, 2], np.where(domination, box[:, 1],
                                                      np.where(presence, box[:, 0], 0)))
        out[: len(P), p] = level + mb + P @ (mine & c.adj_sp[enemy_sp])
        # R18: sub-regions score 1 per controlled country, 2 per controlled BG, no AU effect.
        out[len(P):, p] = c.subregion_matrix @ (mine * np.where(bg, 2, 1))
    return out


def score_region(c: Content, s: State, region: str) -> tuple[int, int]:
    """VP each side would score for one region or sub-region now (10.1, R18)."""
    names = c.region_names + c.subregion_names
    row = score_all(c, s)[names.index(region)]
    return int(row[0]), int(row[1])


def score_detail(c: Content, s: State, row: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The arithmetic of one region's or sub-region's scoring now, per side (US, China):
    (level 0-3 none/presence/domination/control, its VP, battlegrounds, other countries,
    countries adjacent to the enemy superpower, total); the totals are `score_all`'s."""
    usa, chn, au = control_masks(c, s)
    if row >= len(c.region_names):  # R18: 1 per controlled country, 2 per controlled BG
        place = c.subregion_matrix[row - len(c.region_names)].astype(bool)
        out = []
        for mine in (usa, chn):
            bg, other = int((mine & place & c.bg).sum()), int((mine & place & ~c.bg).sum())
            out.append((0, 0, bg, other, 0, 2 * bg + other))
        return out[0], out[1]
    place = c.region_matrix[row].astype(bool)
    bg = c.bg

    def counts(mine: np.ndarray, minus: np.ndarray | None) -> tuple[int, int]:
        b, o = int((mine & place & bg).sum()), int((mine & place & ~bg).sum())
        if minus is not None:  # R18: AU lowers the US counts
            b = max(b - int((minus & place & bg).sum()), 0)
            o = max(o - int((minus & place & ~bg).sum()), 0)
        return b, o
    us_b, us_o = counts(usa, au)
    cn_b, cn_o = counts(chn, None)
    box = c.region_values[row]
    out = []
    for mine, mb, mn, ob, on, enemy_sp in ((usa, us_b, us_o, cn_b, cn_o, 1),
                                           (chn, cn_b, cn_o, us_b, us_o, 0)):
        if mb > ob and mn > on:
            level = 3
        elif mb > ob and (mn >= 1 or on == 0):
            level = 2
        else:
            level = 1 if mb + mn >= 1 else 0
        level_vp = int(box[level - 1]) if level else 0
        adj = int((mine & place & c.adj_sp[enemy_sp]).sum())
        out.append((level, level_vp, mb, mn, adj, level_vp + mb + adj))
    return out[0], out[1]
