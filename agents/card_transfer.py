"""Convert a structured network that knows cards by index into one that reads them by
their data (option ``card_features``, issue 34), computing exactly what it computed.

Each card's learned terms (its identity embedding and its action's row of the dense
head) are fitted by ridge regression on the card's features
(:mod:`evenstar_env.env.card_features`), the penalty chosen by leave-one-out error; the
fit becomes the network's feature maps and what it leaves over becomes each card's
residual, so that on the deck it was trained on the network is unchanged, while a card
it never saw gets the fit's terms from its data.  The leave-one-out R² says how much of
a card's learned terms its data predicts.
"""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import Any

import numpy as np
import torch
from torch import nn

from evenstar_env.content import Content
from evenstar_env.env.card_features import card_features

from .networks import CheckpointError, NetConfig, build_network, check_config

PENALTIES = tuple(10.0 ** k for k in range(-3, 4))


def ridge_loo(x: np.ndarray, y: np.ndarray, penalties: tuple[float, ...] = PENALTIES
              ) -> tuple[np.ndarray, float, float]:
    """The ridge map (features x targets) from `x` to `y` whose penalty has the least
    leave-one-out squared error, that penalty, and its leave-one-out R² (over all
    targets: 1 - LOO error / total variance about the mean)."""
    x, y = x.astype(np.float64), y.astype(np.float64)
    total = float(((y - y.mean(0)) ** 2).sum()) or 1.0
    best: tuple[float, np.ndarray, float] | None = None
    for lam in penalties:
        inv = np.linalg.inv(x.T @ x + lam * np.eye(x.shape[1]))
        w = inv @ x.T @ y
        lever = np.einsum("ij,jk,ik->i", x, inv, x)
        loo = (y - x @ w) / (1.0 - lever)[:, None]
        err = float((loo ** 2).sum())
        if best is None or err < best[0]:
            best = (err, w, lam)
    assert best is not None
    return best[1], best[2], 1.0 - best[0] / total


def to_card_features(net: nn.Module, cfg: NetConfig, content: Content
                     ) -> tuple[nn.Module, NetConfig, dict[str, Any]]:
    """The ``card_features`` network computing what `net` (a structured network of
    `content` reading cards by index) computes, its config and the fit's report."""
    if cfg.kind != "structured" or cfg.options.get("card_features"):
        raise CheckpointError("only a structured network that reads cards by index converts")
    new_cfg = check_config({**asdict(replace(cfg, options={**cfg.options,
                                                            "card_features": True})),
                            "hidden": list(cfg.hidden)}, "conversion")
    out = build_network(new_cfg, content)
    state = {k: v.clone() for k, v in net.state_dict().items()}
    x = card_features(content).astype(np.float64)
    nc = content.nc
    ident = state["card_id.weight"].double().numpy()
    rows = torch.cat([state["policy.weight"][:nc], state["policy.bias"][:nc, None]], 1)
    rows = rows.double().numpy()
    w_id, lam_id, r2_id = ridge_loo(x, ident)
    w_row, lam_row, r2_row = ridge_loo(x, rows)
    dtype = state["card_id.weight"].dtype
    state["card_feat.weight"] = torch.tensor(w_id.T, dtype=dtype)
    state["card_policy.weight"] = torch.tensor(w_row.T, dtype=dtype)
    state["card_id.weight"] = torch.tensor(ident - x @ w_id, dtype=dtype)
    rest = rows - x @ w_row
    state["policy.weight"][:nc] = torch.tensor(rest[:, :-1], dtype=dtype)
    state["policy.bias"][:nc] = torch.tensor(rest[:, -1], dtype=dtype)
    out.load_state_dict(state)
    out.eval()
    report = {"features": x.shape[1], "cards": nc,
              "identity": {"penalty": lam_id, "loo_r2": round(r2_id, 4)},
              "action_row": {"penalty": lam_row, "loo_r2": round(r2_row, 4)}}
    return out, new_cfg, report
