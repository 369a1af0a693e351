"""The card plays that could start a total war their player loses, read from the observation.

The observation flags every card in the mover's hand whose event, played now, could bring
diplomacy to 1 (``hand_war_risk``; rulebook 9.2.3, R7, R21;
:func:`evenstar_env.engine.play.risks_total_war`).  :class:`WarRisk` turns those flags
into the risky card actions of a card-play or headline decision, and into the trainer's
war-risk term (``experiments/train.py --war-risk-coef``): where a hand holds both risky and
safe cards, ``-log`` of the probability the policy gives the safe ones.  The term reads
only what the player sees, and the trained network plays without it.
"""

from __future__ import annotations

import torch

from evenstar_env.content import Content
from evenstar_env.engine.actions import ActionSpace
from evenstar_env.env.observation import DECISION_KINDS, encoder_for

PLAY_KINDS = ("card", "headline")  # the decisions that play a card of one's hand


class WarRisk:
    """The observation columns and action ids that the war-risk flags concern."""

    def __init__(self, content: Content) -> None:
        layout = encoder_for(content).layout
        space = ActionSpace.for_content(content)
        flags = layout["hand_war_risk"]
        self.flags = torch.arange(flags.start, flags.stop)
        kind0 = layout["decision_kind"].start
        self.kinds = torch.tensor([kind0 + DECISION_KINDS.index(k) for k in PLAY_KINDS])
        self.cards = torch.arange(space.card0, space.card0 + content.nc)
        self.n_actions = space.n

    def actions(self, obs: torch.Tensor) -> torch.Tensor:
        """Per row of `obs` (B x obs_size), the card actions that risk a total war its
        mover loses (B x n_actions, bool); none outside card-play and headline decisions."""
        playing = obs[:, self.kinds].sum(1) > 0
        risky = torch.zeros(obs.shape[0], self.n_actions, dtype=torch.bool, device=obs.device)
        risky[:, self.cards] = (obs[:, self.flags] > 0) & playing[:, None]
        return risky

    def loss(self, logp: torch.Tensor, mask: torch.Tensor, obs: torch.Tensor
             ) -> tuple[torch.Tensor, int]:
        """Mean ``-log P(safe)`` over the rows offering a risky and a safe legal action
        (`logp`: masked log-probabilities, B x n_actions), and the number of such rows."""
        risky = self.actions(obs) & mask
        safe = mask & ~risky
        rows = risky.any(1) & safe.any(1)
        count = int(rows.sum())
        if count == 0:
            return logp.new_zeros(()), 0
        safe_logp = logp[rows].masked_fill(~safe[rows], float("-inf"))
        return -torch.logsumexp(safe_logp, -1).mean(), count
