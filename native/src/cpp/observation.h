// The observation encoder: ObservationEncoder.encode (evenstar_env/env/observation.py),
// bit for bit.  It knows no layout and no card: every offset, scale and per-effect vector
// comes from the tables that evenstar_env/native/obs_tables.py computes with the Python
// encoder and DecisionEffects; this file only fills the vector from the state.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine.h"

namespace evenstar {

// The layout fields the encoder writes (their offsets come from the Python layout, by name).
#define EVENSTAR_OBS_FIELDS(X)                                                               \
    X(inf_usa) X(inf_china) X(inf_anti_us) X(ctrl_usa) X(ctrl_china) X(ctrl_anti_us)         \
    X(non_realignable) X(hand) X(event_played) X(history_done) X(opponent_headline)          \
    X(revealed_opponent_hand) X(tracks) X(phase) X(phasing) X(me) X(to_move)                 \
    X(russia_ukraine) X(spare_scoring_used) X(decision_kind) X(decision_card) X(decision_ops) \
    X(decision_countries) X(decision_history) X(hand_war_risk) X(decision_card_war_risk)     \
    X(realign_war_risk) X(russia_deferred) X(history_turn) X(tech_paid) X(responsible)       \
    X(result) X(russia_steps_pending) X(own_modifier) X(action_mode) X(action_ops)           \
    X(event_to_come) X(legal_choices) X(decision_executor) X(decision_candidates)            \
    X(decision_chosen) X(source_card) X(influence_verb) X(influence_kind) X(influence_left)  \
    X(influence_points) X(discard_side) X(discard_left) X(discard_min_ops) X(granted_modes)  \
    X(option_effects) X(option_places) X(scoring_held) X(scoring_due)

#define EVENSTAR_OBS_ENUM(name) O_##name,
enum ObsField : int { EVENSTAR_OBS_FIELDS(EVENSTAR_OBS_ENUM) O_COUNT_ };
#undef EVENSTAR_OBS_ENUM

// The context writers of ObservationEncoder._context, by method name.
#define EVENSTAR_OBS_WRITERS(X) \
    X(influence) X(option) X(discard) X(order) X(place) X(allowed) X(granted) X(modifier)
#define EVENSTAR_OBS_ENUM(name) W_##name,
enum ObsWriter : int { W_none_ = -1, EVENSTAR_OBS_WRITERS(EVENSTAR_OBS_ENUM) W_COUNT_ };
#undef EVENSTAR_OBS_ENUM

// Columns of the per-decision-kind table (obs_kinds, one row per native DecisionKind) and
// of the per-effect table (obs_effects, one row per effect id); Python fills them by name.
#define EVENSTAR_OBS_KIND_COLS(X) \
    X(index) X(writer) X(card_slot) X(card_optional) X(ops_slot) X(history_slot) X(country) X(card)
#define EVENSTAR_OBS_EFFECT_COLS(X) X(src0) X(src1) X(src2) X(verb) X(params) X(option) X(min_ops)
#define EVENSTAR_OBS_ENUM(name) OK_##name,
enum ObsKindCol : int { EVENSTAR_OBS_KIND_COLS(EVENSTAR_OBS_ENUM) OK_COUNT_ };
#undef EVENSTAR_OBS_ENUM
#define EVENSTAR_OBS_ENUM(name) OE_##name,
enum ObsEffectCol : int { EVENSTAR_OBS_EFFECT_COLS(EVENSTAR_OBS_ENUM) OE_COUNT_ };
#undef EVENSTAR_OBS_ENUM
// Sources of the "numbers" block entries (obs_numbers rows: source, index).
enum { NS_TRACK, NS_VP, NS_RESERVES, NS_MISC, NS_OPP_HELD, NS_OWN_HELD };

// The names of the enums above, in enum order: {"fields", "writers", "kind_cols",
// "effect_cols"} -> names (what obs_tables.py fills by name).
std::map<std::string, std::vector<std::string>> obs_names();

struct ObsTables {
    int size = 0;
    int at[O_COUNT_] = {};
    float inf_scale[3] = {};
    int card_codes[2][7] = {};
    std::vector<int> number_src;      // (source, index) per entry of the numbers block
    std::vector<float> number_scale;
    std::vector<int> threat_cards;
    Table kinds, effects;
    std::vector<float> params;        // 4 per pick effect (row: column OE_params)
    std::vector<float> options;       // 2 executors x option_w per choice effect
    std::vector<float> places;        // places_w per choice effect
    int option_w = 0, places_w = 0;
    int max_points = 1, discard_max = 1, n_russia = 1, tech_boxes[2] = {1, 1};
    std::vector<int> pay_discard;     // per card
    std::vector<int> action_mode;     // per frame op: its ops mode, -2 improve, -1 none
    std::vector<int> granted_at;      // per mode: its index in granted_modes, -1 none
    std::vector<int> scoring_cards;   // the scoring cards (scoring_held, scoring_due)
    float scoring_scale = 0.25f;
    int action_rounds = 1;
};

// The encoder tables from the obs_* entries of export.py's dict (checked).
std::shared_ptr<const ObsTables> make_obs_tables(const std::map<std::string, Table>& d,
                                                 const Tables& t);

// The observation of player p into out[0 .. o.size): every entry is written.
void encode_observation(const Tables& t, const State& s, int p, float* out);

}  // namespace evenstar
