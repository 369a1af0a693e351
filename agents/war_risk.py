"""The plays that lose outright, read from the observation: a total war, a held scoring card.

The observation flags every card in the mover's hand whose event, played now, could bring
diplomacy to 1 (``hand_war_risk``; rulebook 9.2.3, R7, R21;
:func:`evenstar_env.engine.play.risks_total_war`), and the card of a pending decision
(``decision_card_war_risk``).  :class:`WarRisk` turns those flags into risky actions:

- a flagged card chosen as the headline (its event happens);
- a flagged opponent's card chosen in an action round when the tech race cannot take it
  (R5: an opponent's event happens with any other use of its ops; 6.4: one tech race a
  turn, 2 ops or more, a box left); one's own or a neutral card can always go for ops, and
  nothing is risky if the player's next card has no event;
- on the mode decision of a flagged card, the modes that let its event happen (every mode
  but the tech race for an opponent's card, the event for one's own or a neutral card);
- on the mode decision of another card, the tech race, while the hand holds a flagged
  opponent's card that the race could take: the turn's one race is its only safe play;
- on the General AI's offer of the event (R25), taking it;
- at a card choice where the hand's scoring cards fill the action rounds left
  (``scoring_due``), any card but a scoring card: one would be held at the end of the turn,
  which loses the game (2.2.1.1, R13).  Not a total war, but the same kind of mistake: a
  play that loses outright while a safe one is in hand.

They feed the trainer's war-risk term (``experiments/train.py --war-risk-coef``: where a
decision offers both risky and safe actions, ``-log`` of the probability the policy gives
the safe ones) and the war-risk DAgger (``experiments/war_risk_tune.py``).  Both read only
what the player sees, and the trained network plays without them.
"""

from __future__ import annotations

import torch

from evenstar_env.content import Content
from evenstar_env.engine.actions import ActionSpace
from evenstar_env.engine.constants import CHINA, MODE_EVENT, MODE_TECH, MODES, SOCIAL, TECH
from evenstar_env.env.observation import DECISION_KINDS, encoder_for


class WarRisk:
    """The observation columns and action ids that the war-risk flags concern."""

    def __init__(self, content: Content) -> None:
        layout = encoder_for(content).layout
        space = ActionSpace.for_content(content)

        def cols(name: str) -> torch.Tensor:
            return torch.arange(layout[name].start, layout[name].stop)

        self.flags, self.decision_card, self.me, self.hand = (
            cols(n) for n in ("hand_war_risk", "decision_card", "me", "hand"))
        self.in_play, self.next_card, self.tech_done = (
            cols(n) for n in ("in_play", "next_card", "tech_done"))
        kind = {k: layout["decision_kind"].start + i for i, k in enumerate(DECISION_KINDS)}
        self.card_kind, self.headline_kind = kind["card"], kind["headline"]
        self.mode_kind, self.ai_event_kind = kind["mode"], kind["ai_event"]
        self.card_flag = layout["decision_card_war_risk"].start
        self.scoring_due = layout["scoring_due"].start
        self.not_scoring = ~torch.as_tensor(content.card_scoring, dtype=torch.bool)
        tracks = layout["tracks"].start  # scaled by each track's top
        self.china_tech, self.china_social = tracks + TECH + CHINA, tracks + SOCIAL + CHINA
        self.social_max = content.rules.social_max
        self.side = torch.as_tensor(content.card_side, dtype=torch.long)
        self.printed = torch.as_tensor(content.card_ops, dtype=torch.long)
        mods = torch.zeros(content.nc, 2, dtype=torch.long)  # ops modifiers of in-play cards
        for k, m in content.ops_mod_cards:
            mods[k] = torch.as_tensor(m)
        self.down, self.up = mods.clamp(max=0), mods.clamp(min=0)
        self.cards = torch.arange(space.card0, space.card0 + content.nc)
        self.modes = torch.arange(space.mode0, space.mode0 + len(MODES))
        self.orders = torch.arange(space.order0, space.order0 + 2)  # event before / after
        self.but_tech = torch.arange(len(MODES)) != MODE_TECH
        self.event = torch.arange(len(MODES)) == MODE_EVENT
        self.n_actions = space.n

    def tech_open(self, obs: torch.Tensor) -> torch.Tensor:
        """Per row and card (B x nc): whether the mover could race in tech with that card
        now (6.4, 7.3: not yet this turn, a box left (China) or China's social above 1
        (the US's sabotage), and 2 ops or more after the in-play modifiers)."""
        me = obs[:, self.me].argmax(1)
        china = me == CHINA
        room = torch.where(china, obs[:, self.china_tech] < 1 - 1e-6,
                           obs[:, self.china_social] * self.social_max > 1 + 1e-6)
        free = obs.gather(1, self.tech_done[me][:, None])[:, 0] == 0
        in_play = (obs[:, self.in_play] > 0).long()
        down = (in_play @ self.down).gather(1, me[:, None])  # B x 1
        plus = obs.gather(1, self.next_card[me][:, None]) > 0  # +1 op on the next card
        up = (in_play @ self.up).gather(1, me[:, None]) + plus.long()
        ops = ((self.printed[None] + down).clamp(min=1) + up).clamp(1, 4)
        return (room & free)[:, None] & (ops >= 2) & (self.printed[None] > 0)

    def actions(self, obs: torch.Tensor) -> torch.Tensor:
        """Per row of `obs` (B x obs_size), the actions that risk a total war its mover
        loses or hold a due scoring card (B x n_actions, bool)."""
        if obs.device.type != "cpu":  # the tables live on the CPU
            return self.actions(obs.cpu()).to(obs.device)
        risky = torch.zeros(obs.shape[0], self.n_actions, dtype=torch.bool)
        flags = obs[:, self.flags] > 0
        headline = obs[:, self.headline_kind] > 0
        flagged = obs[:, self.card_flag] > 0  # the card of the pending decision
        mode = obs[:, self.mode_kind] > 0
        me = obs[:, self.me].argmax(1)
        no_event = obs.gather(1, self.next_card[2 + me][:, None]) > 0
        # Cards whose event would happen with any use but the tech race (R5).
        race_only = flags & (self.side[None] == (1 - me)[:, None]) & ~no_event
        if race_only.any():
            can_race = self.tech_open(obs)
            card = obs[:, self.card_kind] > 0
            risky[:, self.cards] = race_only & ~can_race & card[:, None]
            spare = mode & ~flagged & (race_only & can_race).any(1)
            risky[:, self.modes[MODE_TECH]] = spare
        risky[:, self.cards] |= flags & headline[:, None]
        if (mode & flagged).any():
            theirs = self.side[obs[:, self.decision_card].argmax(1)] == 1 - me
            modes = torch.where(theirs[:, None], self.but_tech, self.event)
            risky[:, self.modes] |= modes & (mode & flagged)[:, None]
        risky[:, self.orders] = (flagged & (obs[:, self.ai_event_kind] > 0))[:, None]
        due = (obs[:, self.scoring_due] > 0) & (obs[:, self.card_kind] > 0)
        risky[:, self.cards] |= due[:, None] & self.not_scoring[None] & (obs[:, self.hand] > 0)
        return risky

    def offered(self, obs: torch.Tensor, mask: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor]:
        """The legal risky actions (B x n_actions) and the rows offering a risky and a
        safe legal action (B), where the war-risk term and the DAgger apply."""
        risky = self.actions(obs) & mask
        return risky, risky.any(1) & (mask & ~risky).any(1)

    def loss(self, logp: torch.Tensor, mask: torch.Tensor, obs: torch.Tensor
             ) -> tuple[torch.Tensor, int]:
        """Mean ``-log P(safe)`` over the rows offering a risky and a safe legal action
        (`logp`: masked log-probabilities, B x n_actions), and the number of such rows."""
        risky, rows = self.offered(obs, mask)
        safe = mask & ~risky
        count = int(rows.sum())
        if count == 0:
            return logp.new_zeros(()), 0
        safe_logp = logp[rows].masked_fill(~safe[rows], float("-inf"))
        return -torch.logsumexp(safe_logp, -1).mean(), count
