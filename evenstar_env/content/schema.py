"""Pydantic models for the content files in ``evenstar_env/data``.

The effect vocabulary is documented in ``docs/content.md``.  Every model
forbids unknown fields so that a typo in a data file is an error, not a
silently ignored key.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, model_validator
from pydantic import Strict as StrictMode

# TOML has no tuples: these accept an array (lax on the container only; items stay strict).
Link = Annotated[tuple[StrictStr, StrictStr], StrictMode(False)]
Span = Annotated[tuple[StrictInt, StrictInt, StrictInt], StrictMode(False)]
# TOML keys are strings: `improve_success = { 2 = 3 }` has the key "2" (lax keys, strict values).
OpsKeyed = dict[Annotated[int, StrictMode(False)], StrictInt]

Side = Literal["usa", "china"]
CardSide = Literal["usa", "china", "neutral"]
Era = Literal["early", "mid", "late"]
# Whose side an effect speaks of, relative to the side carrying the event out.
RelSide = Literal["self", "opponent", "usa", "china"]
# Kinds of influence; "own"/"other" are relative to the executing side
# (own = US for the US, CN for China; other = the opponent's; AU is never
# "own" or "other", RULINGS 5.6).
InfluenceKind = Literal["usa", "china", "anti_us", "own", "other"]
Controller = Literal["usa", "china", "anti_us", "none", "china_or_anti_us"]
Chooser = Literal["executor", "opponent", "usa", "china"]


class Strict(BaseModel):
    """No unknown field, and no coercion: ``ops = "2"`` or ``battleground = 1`` is an error."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


# --------------------------------------------------------------------- map


class Region(Strict):
    name: str
    zh: str
    presence: int = Field(ge=0)
    domination: int = Field(ge=0)
    control: int = Field(ge=0)


class Subregion(Strict):
    name: str
    zh: str
    presence: int = Field(default=0, ge=0)


class Country(Strict):
    name: str
    zh: str
    region: str
    subregions: list[str] = []
    stability: int | None = Field(default=None, ge=1, le=5)
    battleground: bool
    non_realignable: bool = False


class MapFile(Strict):
    regions: list[Region]
    subregions: list[Subregion]
    countries: list[Country]
    # Each link once, as a pair of names; "USA" and "China" are the superpowers.
    links: list[Link]


class SetupFile(Strict):
    usa: dict[str, int]
    china: dict[str, int]
    anti_us: dict[str, int]


# --------------------------------------------------------------- selectors


class Selector(Strict):
    """A set of countries.

    `countries` and `regions` name the places (their union); every other given
    field must also hold.  An empty selector is every country.
    """

    countries: list[str] | None = None
    regions: list[str] | None = None  # region or sub-region names
    battleground: bool | None = None
    controlled_by: list[Controller] | None = None  # controller is one of these
    not_controlled_by: list[Controller] | None = None
    has: list[InfluenceKind] | None = None  # has > 0 of each kind
    lacks: list[InfluenceKind] | None = None  # has 0 of each kind
    adjacent_to: list[str] | None = None  # adjacent to any of these (incl. USA/China)
    max_stability: int | None = None
    min_stability: int | None = None


class Condition(Strict):
    """A test on the game state; every given field must hold."""

    in_play: str | None = None  # a persistent card's event is in effect
    not_in_play: str | None = None
    event_played: str | None = None  # the card's event has happened this game
    event_not_played: str | None = None
    track: str | None = None  # with side for per-side tracks
    side: RelSide | None = None
    min: int | None = None
    max: int | None = None
    controls: str | None = None  # `side` controls this country
    count: Selector | None = None  # number of matching countries in [min, max]
    turn_min: int | None = None
    turn_max: int | None = None
    # 5.3: `side` holds another card of at least this printed ops (a higher value also serves).
    hand_card_min_ops: int | None = Field(default=None, ge=1, le=4)

    @model_validator(mode="after")
    def _side_needed(self) -> Condition:
        if (self.controls is not None or self.hand_card_min_ops is not None) and self.side is None:
            raise ValueError("'controls' and 'hand_card_min_ops' need 'side'")
        return self


# ----------------------------------------------------------------- effects


class _Pick(Strict):
    """Points of influence placed or taken one pick at a time by a chooser."""

    kind: InfluenceKind
    points: int = Field(ge=1)
    where: Selector = Selector()
    per_country: int | None = Field(default=None, ge=1)
    max_countries: int | None = Field(default=None, ge=1)
    lump: bool = False  # each pick moves all `per_country` points in one country
    chooser: Chooser | None = None


class AddInfluence(_Pick):
    """Default chooser: the side whose influence is added."""

    op: Literal["add_influence"]


class ReduceInfluence(_Pick):
    """Default chooser: the opponent of the influence's owner; a US shortfall becomes AU."""

    op: Literal["reduce_influence"]


class RemoveAllInfluence(Strict):
    """Remove every point of a kind in every matching country (no choice)."""

    op: Literal["remove_all_influence"]
    kind: InfluenceKind
    where: Selector


class PlaceFixed(Strict):
    """Add (or with negative points, reduce) a kind in every matching country."""

    op: Literal["each_country"]
    kind: InfluenceKind
    points: int
    where: Selector


class VP(Strict):
    op: Literal["vp"]
    side: RelSide
    amount: int


class Track(Strict):
    op: Literal["track"]
    track: Literal[
        "social", "economy", "diplomacy", "regional_security", "russia", "tech"
    ]
    side: RelSide | None = None  # needed for social, economy, tech
    delta: int

    @model_validator(mode="after")
    def _side_needed(self) -> Track:
        if self.track in ("social", "economy", "tech") and self.side is None:
            raise ValueError(f"track '{self.track}' needs 'side'")
        return self


class Reserves(Strict):
    op: Literal["reserves"]
    side: RelSide
    amount: int


class Draw(Strict):
    op: Literal["draw"]
    side: RelSide
    count: int = Field(ge=1)


class Discard(Strict):
    """`side` discards cards; chosen by `chooser` (default: `side`) or at random."""

    op: Literal["discard"]
    side: RelSide
    count: int = Field(ge=1)
    random: bool = False
    min_ops: int = 0
    chooser: Chooser | None = None


class OpsAction(Strict):
    """`side` carries out one action as if it had played a card of `ops` (7.3.3)."""

    op: Literal["ops_action"]
    side: RelSide = "self"
    ops: int = Field(ge=1, le=4)
    modes: list[Literal["place", "realign", "trade"]] = ["place", "realign"]
    where: Selector | None = None  # restricts the countries the action may target


class NonRealignable(Strict):
    op: Literal["non_realignable"]
    where: Selector
    value: bool = True


class Option(Strict):
    label: str
    zh: str = ""
    requires: list[Condition] = []
    effects: list[Effect]


class Choice(Strict):
    """A branch chosen by `chooser` (default: the executor) among options whose `requires` hold."""

    op: Literal["choice"]
    chooser: Chooser = "executor"
    options: list[Option] = Field(min_length=2)


class RollOutcome(Strict):
    max: int  # this outcome applies when the modified roll is <= max
    effects: list[Effect]


class Roll(Strict):
    """`side` rolls a die, adds `modifier`, and the first outcome with roll <= max applies."""

    op: Literal["roll"]
    side: RelSide = "self"
    modifier: int = 0
    modifier_per: Selector | None = None  # +1 per country matching (e.g. own-controlled)
    outcomes: list[RollOutcome] = Field(min_length=1)


class If(Strict):
    op: Literal["if"]
    conditions: list[Condition]
    then: list[Effect] = []
    otherwise: list[Effect] = []


class Cancel(Strict):
    """End a persistent event: the card leaves play for the discard pile."""

    op: Literal["cancel"]
    card: str


class Score(Strict):
    op: Literal["score"]
    region: str


class RevealHand(Strict):
    """The opponent of `side` sees `side`'s hand as it is now (8.2.3, R20)."""

    op: Literal["reveal_hand"]
    side: RelSide


class NextCard(Strict):
    """A benefit on `side`'s next card play of the action rounds (8.2.3, R20)."""

    op: Literal["next_card"]
    side: RelSide
    effect: Literal["ops_plus_1", "no_event", "event_and_ops"]


class HistoryEvent(Strict):
    """Resolve a named history card at once, with no modifier cards (8.1.4)."""

    op: Literal["history_event"]
    card: str


class RussiaUkraineWar(Strict):
    op: Literal["russia_ukraine_war"]


class ReplaceInfluence(Strict):
    """In every matching country, remove the kinds in `remove` and add as many points of `add`."""

    op: Literal["replace_influence"]
    where: Selector
    remove: list[InfluenceKind] = Field(min_length=1)
    add: InfluenceKind


class War(Strict):
    """A war card's resolution (7.5), shared by every war card.

    `side` wages the war on `target` (the defender, or the sanctioned country).
    It rolls a die, +1 for each country adjacent to `target` that it controls
    and -1 for each controlled by the other side (for the US, China- or
    AU-controlled; for China, US-controlled).  A modified roll >= `win_on` is a
    victory (`success` effects), otherwise `failure`; either way regional
    security drops by `security_loss`.  Playable with no influence present.
    """

    op: Literal["war"]
    target: str
    side: RelSide = "self"
    win_on: int = Field(default=4, ge=1, le=7)
    security_loss: int = Field(default=1, ge=0, le=2)
    success: list[Effect] = Field(min_length=1)
    failure: list[Effect] = []


Effect = Annotated[
    AddInfluence | ReduceInfluence | RemoveAllInfluence | PlaceFixed | VP | Track | Reserves
    | Draw | Discard | OpsAction | NonRealignable | Choice | Roll | If | Cancel | Score
    | RevealHand | NextCard | HistoryEvent | RussiaUkraineWar | ReplaceInfluence | War,
    Field(discriminator="op"),
]

Option.model_rebuild()
Choice.model_rebuild()
RollOutcome.model_rebuild()
Roll.model_rebuild()
If.model_rebuild()
War.model_rebuild()


# ------------------------------------------------------------------- cards


class Persistent(Strict):
    """What a persistent (underlined / infinity) event does while it is in play."""

    ops_mod: dict[Side, int] = {}  # added to the ops of that side's cards (7.3)
    prevents: list[str] = []  # ids of events that cannot happen while in play
    each_turn: list[Effect] = []  # carried out by the card's executor in phase A
    economy: list[Effect] = []  # carried out by the card's executor in phase H
    cancelled_by: list[str] = []  # events that end it (documented; see Cancel)


class Card(Strict):
    id: str
    name: str
    zh: str
    era: Era
    side: CardSide
    ops: int = Field(ge=0, le=4)
    kind: Literal["base", "scoring"] = "base"
    removed: bool = False  # "*": removed from the game after its event
    persistent: Persistent | None = None  # underline / infinity
    russia: bool = False  # 7.6: advances the Russia track whenever played
    event_banned: bool = False  # set by a rule variant: the event can never happen
    out_of_game: bool = False  # set by a rule variant: removed from the game at the start
    requires: list[Condition] = []  # prerequisites of the event (5.2, 7.4)
    # 5.3: the event happens only if its owner discards another card of at least this many
    # printed ops; fired by the opponent's play, the owner may decline (engine play.py "pay").
    pay_discard: int | None = Field(None, ge=1, le=4)
    text: str
    text_zh: str
    note: str  # one-line historical note
    # Design note: why the event is meant to be rarely playable while held (a response to
    # another event, a chain, a payment); the card-health report's "rare" exceptions.
    rarely_playable: str | None = None
    effects: list[Effect] = Field(min_length=1)

    @model_validator(mode="after")
    def _scoring(self) -> Card:
        if self.kind == "scoring" and self.ops != 0:
            raise ValueError("scoring cards have 0 ops (R4)")
        if self.kind == "base" and self.ops == 0:
            raise ValueError("base cards have 1 to 4 ops")
        if self.pay_discard is not None and not any(
                c.hand_card_min_ops == self.pay_discard and c.side == "self"
                for c in self.requires):
            raise ValueError("pay_discard needs the prerequisite "
                             "{ hand_card_min_ops = <same value>, side = \"self\" }")
        if self.rarely_playable is not None:
            if not self.rarely_playable.strip():
                raise ValueError("rarely_playable is empty: say why, or leave it out")
            if not self.requires:
                raise ValueError("rarely_playable needs a prerequisite (requires): an event "
                                 "without one can happen whenever its card is held")
        return self


class CardFile(Strict):
    cards: list[Card]


class HistoryOutcome(Strict):
    text: str
    text_zh: str
    effects: list[Effect] = []  # empty only for an outcome that says "no effect"


class HistoryCard(Strict):
    id: str
    name: str
    zh: str
    era: Era
    side: Side
    special: Literal["turn1", "putin"] | None = None
    note: str
    outcomes: list[HistoryOutcome] = Field(min_length=4, max_length=4)


class HistoryFile(Strict):
    history: list[HistoryCard]


# ------------------------------------------------------------------ tracks


class Box(Strict):
    name: str
    zh: str
    price: int = Field(default=0, ge=0)  # reserves to advance into this box (US tech track)
    effects: list[Effect] = []


class Zone(Strict):
    """A zone of the social or economy track: levels lo..hi."""

    lo: int
    hi: int
    name: str
    zh: str
    hand: int = Field(default=0, ge=0)  # social: hand size
    discard: bool = False  # social: may discard one card at the end of G
    opponent_round8: bool = False  # social: the opponent may take an 8th round
    income: int = Field(default=0, ge=0)  # economy: reserves gained in phase H
    price: int = Field(default=0, ge=0)  # economy: upgrade price
    effects: list[Effect] = []  # economy: zone effect in phase H (executor = owner)


class TracksFile(Strict):
    russia_start: str
    russia: list[Box]
    tech_usa: list[Box]
    tech_china: list[Box]
    social: list[Zone]
    economy: list[Zone]
    # R19: after the China +2 VP and the Ukraine reset, China's reductions in Europe.
    ukraine_war_failure: list[Effect]


class RulesFile(Strict):
    """Numeric rule parameters (overridable by rule variants)."""

    turns: int = 11
    action_rounds: int = 7
    start_reserves: dict[Side, int]
    start_social: dict[Side, int]
    start_economy: dict[Side, int]
    start_diplomacy: int = 3
    start_security: int = 3
    social_max: int = 10
    economy_max: int = 11
    diplomacy_spend_price: int = 2
    russia_spend_price: int = 3
    improve_success: OpsKeyed  # printed ops -> highest successful roll
    improve_attempts: list[Span]  # (lo, hi, attempts) by economy level
    modifier_costs: dict[str, int]
    era_turns: dict[Era, int]  # first turn of each era
    spare_scoring_turns: list[int]
    spare_scoring: list[str]  # regions of the five spare scoring cards


# ------------------------------------------------------------------ variants


class Bid(Strict):
    """Extra starting influence for one side, placed by a stated rule (country -> points)."""

    side: Side
    countries: dict[str, int]


class Variant(Strict):
    """A rule variant: overrides of the content and rule parameters (docs/balance.md)."""

    name: str
    description: str = ""
    rules: dict[str, Any] = {}  # deep-merged into rules.toml (reserves, levels, costs...)
    bid: Bid | None = None
    card_ops: dict[str, int] = {}  # card id -> printed ops
    ban_events: list[str] = []  # card ids whose events can never happen
    remove_cards: list[str] = []  # card ids out of the game from the start
    region_values: dict[str, Span] = {}  # presence, domination, control
    hand_sizes: dict[str, int] = {}  # social zone name -> hand size
    upgrade_prices: dict[str, int] = {}  # economy zone name -> upgrade price
    tech_prices: list[int] | None = None  # US tech box prices, in order
    # A content folder or overlay (relative to the variants file) the variant starts from,
    # instead of the shipped edition: "my deck vs the shipped deck" as a paired study.
    content: str | None = None


class OverlayManifest(Strict):
    """``overlay.toml``: what an overlay folder changes (evenstar_env/content/source.py)."""

    base: str = "shipped"  # "shipped" or a content folder, relative to the overlay
    description: str = ""
    remove: list[str] = []  # card ids taken out of the base


class VariantFile(Strict):
    variant: list[Variant]
