"""Carry a network that reads cards by their data to another deck on its board (issue 34).

A deck edit changes three things a network reads: the card list (one token, one action
row per card: moved by card id, a new card's learned residuals start at zero), the
vector of what an event's options do (``option_effects``: a new card may bring an effect
no option had, which adds a column per option slot), and the scales of a decision's
numbers, set by the deck's extremes (influence points, caps, country limits, each option
feature's largest magnitude).  The weights that read those inputs are moved and
rescaled so that every input the network knew means to it what it meant in training: a
column kept by name is multiplied by ``new scale / old scale``, a column new to the
network reads with zero weight.  Nothing here changes a network on its own deck.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from evenstar_env.content import Content
from evenstar_env.env.effect_features import DecisionEffects
from evenstar_env.env.observation import encoder_for

SCALED = {"influence_left": "max_points", "influence_points": "max_points",
          "influence_cap": "max_cap", "influence_max_countries": "max_countries"}


class CarryError(ValueError):
    """The saved deck facts do not describe a deck this network could be carried from."""


def deck_scales(content: Content) -> dict[str, Any]:
    """The deck-dependent scales of a content's observation (saved with a network)."""
    fx = DecisionEffects(content)
    return {"max_points": float(fx.max_points), "max_cap": float(fx.max_cap),
            "max_countries": float(fx.max_countries), "option_slots": fx.option_slots,
            "option_features": list(fx.option_features), "option_scale": fx.option_scale}


def trunk_columns(content: Content, option_features: list[str], token_fields: set[str]
                  ) -> list[tuple[str, Any]]:
    """A name for each observation entry a structured network's trunk reads, in order:
    the fields outside the tokens (`token_fields`) in layout order, (field, offset) each,
    ``option_effects`` laid out for `option_features` as (field, (slot, feature))."""
    enc = encoder_for(content)
    slots = enc.effects.option_slots
    cols: list[tuple[str, Any]] = []
    for name, sl in enc.layout.items():
        if name in token_fields:
            continue
        if name == "option_effects":
            cols += [(name, (k, f)) for k in range(slots) for f in option_features]
        else:
            cols += [(name, off) for off in range(sl.stop - sl.start)]
    return cols


def carry_trunk(weight: torch.Tensor, old_cols: list[tuple[str, Any]],
                new_cols: list[tuple[str, Any]], old: dict[str, Any], new: dict[str, Any]
                ) -> torch.Tensor:
    """The trunk's first-layer weight for the new global columns: each column kept by
    name, times new/old scale; new columns zero; the pooled columns after them as they
    were."""
    g_old = len(old_cols)
    index = {c: i for i, c in enumerate(old_cols)}
    old_scale = dict(zip(old["option_features"], old["option_scale"], strict=True))
    new_scale = dict(zip(new["option_features"], new["option_scale"], strict=True))
    cols = []
    for name, off in new_cols:
        i = index.get((name, off))
        if i is None:
            cols.append(torch.zeros_like(weight[:, 0]))
            continue
        mult = 1.0
        if name in SCALED:
            mult = scale_ratio(old, new, SCALED[name])
        elif name == "option_effects":
            mult = new_scale[off[1]] / old_scale[off[1]]
        cols.append(weight[:, i] * mult)
    return torch.cat([torch.stack(cols, 1), weight[:, g_old:]], 1)


def carry_cards(state: dict[str, torch.Tensor], trained: list[str], content: Content
                ) -> dict[str, torch.Tensor]:
    """The card rows moved to the deck of `content`: each card keeps its learned residuals
    (identity and action row) by id, a card new to the network gets zeros (its terms then
    come from its data alone), a card the deck dropped goes."""
    at = {cid: i for i, cid in enumerate(trained)}
    old = [at.get(card.id, -1) for card in content.cards]
    src = torch.tensor([max(i, 0) for i in old])
    known = torch.tensor([i >= 0 for i in old])[:, None]

    def moved(t: torch.Tensor) -> torch.Tensor:  # the card rows come first (card0 = 0)
        cards = t[:len(trained)].reshape(len(trained), -1)
        cards = torch.where(known, cards[src], 0.0).reshape(-1, *t.shape[1:])
        return torch.cat([cards, t[len(trained):]])

    return {**state, "card_id.weight": moved(state["card_id.weight"]),
            "policy.weight": moved(state["policy.weight"]),
            "policy.bias": moved(state["policy.bias"])}


def scale_ratio(old: dict[str, Any], new: dict[str, Any], key: str) -> float:
    """How much smaller an input scaled by `key` reads on the new deck than in training."""
    return float(new[key]) / float(old[key])


def check_facts(doc: dict[str, Any], rows: int, path: Path) -> tuple[list[str], dict]:
    """The saved card ids and deck scales of a checkpoint's config (CarryError if not)."""
    trained, scales = doc.get("cards"), doc.get("scales")
    if (not isinstance(trained, list) or not all(isinstance(x, str) for x in trained)
            or len(trained) != rows or len(set(trained)) != len(trained)):
        raise CarryError(f"{path}/config.json: 'cards' must list the {rows} distinct card "
                         "ids the network was trained on")
    keys = {"max_points", "max_cap", "max_countries", "option_slots", "option_features",
            "option_scale"}
    if (not isinstance(scales, dict) or set(scales) != keys
            or not all(isinstance(scales[k], int | float) and scales[k] > 0
                       for k in ("max_points", "max_cap", "max_countries"))
            or not isinstance(scales["option_features"], list)
            or not isinstance(scales["option_scale"], list)
            or len(scales["option_features"]) != len(scales["option_scale"])
            or not all(isinstance(x, int | float) and x > 0 for x in scales["option_scale"])):
        raise CarryError(f"{path}/config.json: 'scales' must hold the deck's scales "
                         f"({', '.join(sorted(keys))})")
    return trained, scales
