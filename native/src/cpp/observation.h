// The observation vector in C++ (evenstar_env/env/observation.py), written into a
// caller's float32 buffer.  Offsets, scales and the static part come from the Python
// encoder (evenstar_env/native/observation.py), so the layout has one source.
#pragma once

#include <vector>

#include "engine.h"

namespace evenstar {

enum ObsField {
    O_INF_USA, O_INF_CHINA, O_INF_ANTI_US, O_CTRL_USA, O_CTRL_CHINA, O_CTRL_ANTI_US,
    O_NON_REALIGNABLE, O_HAND, O_DISCARD, O_REMOVED, O_IN_PLAY, O_OWN_HEADLINE,
    O_REVEALED, O_NUMBERS, O_PHASE, O_PHASING, O_ME, O_TO_MOVE, O_RUSSIA_UKRAINE, O_SPARE,
    O_DECISION_KIND, O_DECISION_CARD, O_DECISION_OPS, O_DECISION_COUNTRIES,
    O_DECISION_HISTORY, O_HAND_WAR_RISK, O_DECISION_CARD_WAR_RISK, O_REALIGN_WAR_RISK,
    O_RUSSIA_DEFERRED, O_HISTORY_TURN, O_COUNT_
};

struct ObsSpec {
    int size = 0;
    int at[O_COUNT_] = {0};
    std::vector<float> statics;        // the encoder's _static
    std::vector<float> number_scale;   // the encoder's _number_scale
    float inf_pos = 0, inf_neg = 0;    // the encoder's _inf_scale (US/CN and AU rows)
    std::vector<int> misc_items;       // misc indices of the numbers block
    std::vector<int> threat;           // cards whose event can cost diplomacy
    // Per native decision kind: encoder kind index, ctx slots of card/ops/history (-1),
    // whether the legal countries are shown.
    std::vector<int> kind_index, card_slot, ops_slot, hist_slot, countries;
};

void encode(const Tables& t, State& s, const ObsSpec& spec, int p, float* out);

}  // namespace evenstar
