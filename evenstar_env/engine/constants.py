"""Indices and codes shared by the engine modules."""

from __future__ import annotations

USA, CHINA = 0, 1
SIDES = ("usa", "china")
SIDE_LABEL = ("US", "China")
NEUTRAL = 2

# Card locations (State.card_loc).
(DRAW, HAND_USA, HAND_CHINA, DISCARD, REMOVED, IN_PLAY, OUT, HEADLINE_USA, HEADLINE_CHINA,
 PLAYING) = range(10)
HAND = (HAND_USA, HAND_CHINA)
HEADLINE = (HEADLINE_USA, HEADLINE_CHINA)
LOC_NAMES = ("draw", "hand_usa", "hand_china", "discard", "removed", "in_play", "out",
             "headline_usa", "headline_china", "playing")

# History card locations (State.hist_loc); H_DRAWN: drawn face up this turn, not resolved (R23).
H_OUT, H_DECK, H_DONE, H_DRAWN = range(4)

# Tracks (State.tracks).
SOCIAL, ECONOMY = 0, 2  # + side
DIPLOMACY, SECURITY, RUSSIA, TECH = 4, 5, 6, 7  # TECH + side
TRACK_NAMES = ("social_usa", "social_china", "economy_usa", "economy_china", "diplomacy",
               "regional_security", "russia", "tech_usa", "tech_china")

# Controllers.
NOBODY, C_USA, C_CHINA, C_ANTI_US = range(4)
CONTROLLER_NAMES = (None, "usa", "china", "anti_us")

# Per-turn counters and other small integers (State.misc); pairs are + side.
(M_TURN, M_PHASE, M_ROUND, M_PHASING, M_RESPONSIBLE,
 M_HAND_SIZE, _M1, M_IMPROVE_LEFT, _M2, M_TECH_DONE, _M3, M_TRADE_DONE, _M4,
 M_DISCARD_RIGHT, _M5, M_ROUND8, _M6, M_RW_STATE, M_RW_K, M_RW_ADDED,
 M_NEXT_OPS, _M7, M_NEXT_NO_EVENT, _M8, M_NEXT_BOTH, _M9, M_MOD, _M10, M_HEADLINE, _M11,
 M_END_FLAG, M_COLLAPSE, _M12, M_DIPLO_LOSER, M_DECISIONS, M_VP_SOURCE,
 M_RUSSIA_DEFERRED, M_RESOLVING, M_HIST_DRAWN, _M13, M_TECH_PAID, _M14) = range(42)
N_MISC = 42
# M_RUSSIA_DEFERRED: k > 0 when the effects of the top k Russia boxes (the marker's box and
#   the k - 1 below it) wait until the card play is over, lowest box first (R22).
# M_RESOLVING: 1 while an event, history outcome or phase step resolves; immediate ends are
#   checked when it has finished (R24).
# M_HIST_DRAWN + side: 1 + the history card that side drew this turn, 0 if none (R23).
# M_TECH_PAID + side: boxes 1..k of that side's tech track have paid (once per game).

RW_NONE, RW_WAITING, RW_ACTIVE = range(3)

PHASES = ("setup", "history", "deal", "headline", "action", "economy", "scoring", "final",
          "improve", "russia_ukraine", "over")
P_SETUP, P_HISTORY, P_DEAL, P_HEADLINE, P_ACTION, P_ECONOMY, P_SCORING, P_FINAL, \
    P_IMPROVE, P_RUSSIA_UKRAINE, P_OVER = range(len(PHASES))

# Play modes (MODE actions).
MODES = ("event", "place", "realign", "improve_social", "improve_economy", "tech", "trade")
MODE_EVENT, MODE_PLACE, MODE_REALIGN, MODE_SOCIAL, MODE_ECONOMY, MODE_TECH, MODE_TRADE = range(7)

# Modifier cards (MOD actions): name, value.
MODIFIERS = (("zero", 0), ("plus1", 1), ("minus1", -1), ("plus2", 2), ("minus2", -2),
             ("counter", 0))
MOD_COUNTER = 5

# Reserve spends (SPEND actions).
SPENDS = ("russia", "tech", "diplomacy")
SPEND_RUSSIA, SPEND_TECH, SPEND_DIPLOMACY = range(3)

N_OPTIONS = 8

# Where VP come from (State.vp_source columns after the region columns).
VP_SOURCES = ("event", "history", "track", "economy", "ukraine_war", "final_social",
              "final_economy")
SRC_EVENT, SRC_HISTORY, SRC_TRACK, SRC_ECONOMY, SRC_UKRAINE_WAR, SRC_FINAL_SOCIAL, \
    SRC_FINAL_ECONOMY = range(len(VP_SOURCES))


def other(p: int) -> int:
    return 1 - p
