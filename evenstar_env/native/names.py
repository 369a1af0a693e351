"""Names shared by the Python exporter and the native core (source of names_gen.h).

Frame ops, effect ops and decision kinds come from the Python engine's registries,
so the native enums follow the reference engine; the table field lists are the
columns of the flat tables built by :mod:`evenstar_env.native.export`.
"""

from __future__ import annotations


def frame_names() -> list[str]:
    """Every frame op of the Python engine (its HANDLERS), sorted."""
    from ..engine import effects, play, turn  # noqa: F401  (register handlers)
    from ..engine.machine import HANDLERS

    return sorted(HANDLERS)


def effect_names() -> list[str]:
    """Every effect op of the card vocabulary (the Python EFFECTS registry), sorted."""
    from ..engine import effects  # noqa: F401
    from ..engine.machine import EFFECTS

    return sorted(EFFECTS)


def decision_kinds() -> list[str]:
    """Every decision kind (the keys of game.DECISION_TEXT), sorted."""
    from ..game import DECISION_TEXT

    return sorted(DECISION_TEXT)


def event_types() -> list[str]:
    """The event record types (evenstar_env.events.TYPES, in code order)."""
    from ..events import TYPES

    return list(TYPES)


def causes() -> list[str]:
    """The causes of event records (evenstar_env.events.CAUSES, in code order)."""
    from ..events import CAUSES

    return list(CAUSES)


def event_fields() -> int:
    """Integer fields of the longest event record (the native record's slots)."""
    from ..events import N_FIELDS

    return N_FIELDS


# One record per effect id (c.effects order); -1 is "absent" unless said otherwise.
EFFECT_FIELDS = (
    "op", "kind", "points", "where", "per_country", "max_countries", "lump", "chooser", "side",
    "amount", "track", "delta", "count", "random", "min_ops", "ops", "modes_start", "modes_len",
    "value", "options_start", "options_len", "modifier", "modifier_per", "outcomes_start",
    "outcomes_len", "cond_start", "cond_len", "then_start", "then_len", "else_start",
    "else_len", "card", "row", "slot", "remove_start", "remove_len", "add", "target", "win_on",
    "security_loss", "succ_start", "succ_len", "fail_start", "fail_len")
# Conditions: min/max/turn bounds absent are INT32_MIN/INT32_MAX (no check).
COND_FIELDS = ("in_play", "not_in_play", "event_played", "event_not_played", "track", "side",
               "min", "max", "controls", "count", "turn_min", "turn_max", "hand_min_ops")
# Selectors: controller sets as bit masks of controller codes (-1: absent), kinds likewise.
SEL_FIELDS = ("ctrl", "not_ctrl", "has", "lacks")
CARD_FIELDS = ("ops", "side", "era", "scoring", "threat", "banned", "persistent", "removed",
               "russia", "out_of_game", "req_start", "req_len", "eff_start", "eff_len",
               "prev_start", "prev_len", "each_start", "each_len", "econ_start", "econ_len",
               "pay_discard")
HIST_FIELDS = ("side", "era", "special", "o0_start", "o0_len", "o1_start", "o1_len",
               "o2_start", "o2_len", "o3_start", "o3_len")
OPTION_FIELDS = ("req_start", "req_len", "eff_start", "eff_len")
OUTCOME_FIELDS = ("max", "eff_start", "eff_len")
BOX_FIELDS = ("price", "eff_start", "eff_len")
SOCIAL_FIELDS = ("hand", "discard", "round8", "zone")
ECONOMY_FIELDS = ("income", "price", "eff_start", "eff_len", "zone")
SCALARS = ("n", "nc", "nh", "n_regions", "n_subregions", "n_spare", "n_vp", "taiwan", "india",
           "ukraine", "turns", "action_rounds", "social_max", "economy_max", "dip_price",
           "russia_price", "n_russia", "n_tech_usa", "n_tech_china", "ukr_start", "ukr_len",
           "n_persistent", "n_ops_mod")

TABLE_ENUMS = (
    ("EffectField", "EF_", EFFECT_FIELDS), ("CondField", "CF_", COND_FIELDS),
    ("SelField", "SF_", SEL_FIELDS), ("CardField", "CD_", CARD_FIELDS),
    ("HistField", "HF_", HIST_FIELDS), ("OptionField", "OF_", OPTION_FIELDS),
    ("OutcomeField", "OC_", OUTCOME_FIELDS), ("BoxField", "BF_", BOX_FIELDS),
    ("SocialField", "SZ_", SOCIAL_FIELDS), ("EconomyField", "EZ_", ECONOMY_FIELDS),
    ("Scalar", "S_", SCALARS),
)
