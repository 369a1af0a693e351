// The observation of one player (observation.py ObservationEncoder.encode), bit for bit.
#include "observation.h"

#include <algorithm>
#include <cstring>

namespace evenstar {

void encode(const Tables& t, State& s, const ObsSpec& o, int p, float* v) {
    const int n = t.n, nc = t.nc, q = 1 - p;
    const int* at = o.at;
    std::memcpy(v, o.statics.data(), sizeof(float) * size_t(o.size));
    Machine m(t, s);
    // Board: influence (scaled; the AU row's -0.0 becomes 0.0), control, non-realignable.
    for (int i = 0; i < n; ++i) {
        int us = s.inf_us[i];
        v[at[O_INF_USA] + i] = float(std::max(us, 0)) * o.inf_pos;
        v[at[O_INF_CHINA] + i] = float(s.inf_cn[i]) * o.inf_pos;
        v[at[O_INF_ANTI_US] + i] = float(std::min(us, 0)) * o.inf_neg + 0.0f;
        int c = m.controller_of(i);
        v[at[O_CTRL_USA] + i] = c == C_USA ? 1.0f : 0.0f;
        v[at[O_CTRL_CHINA] + i] = c == C_CHINA ? 1.0f : 0.0f;
        v[at[O_CTRL_ANTI_US] + i] = c == C_ANTI_US ? 1.0f : 0.0f;
        v[at[O_NON_REALIGNABLE] + i] = s.non_realignable[i] ? 1.0f : 0.0f;
    }
    // Cards as `p` sees them, and the two hand sizes.
    int opp_held = 0, own_held = 0;
    for (int i = 0; i < nc; ++i) {
        int loc = s.card_loc[i];
        v[at[O_HAND] + i] = loc == HAND_USA + p ? 1.0f : 0.0f;
        v[at[O_DISCARD] + i] = loc == DISCARD ? 1.0f : 0.0f;
        v[at[O_REMOVED] + i] = loc == REMOVED ? 1.0f : 0.0f;
        v[at[O_IN_PLAY] + i] = loc == IN_PLAY ? 1.0f : 0.0f;
        v[at[O_OWN_HEADLINE] + i] = loc == HEADLINE_USA + p ? 1.0f : 0.0f;
        v[at[O_REVEALED] + i] = s.revealed[q][i] ? 1.0f : 0.0f;
        opp_held += loc == HAND_USA + q;
        own_held += loc == HAND_USA + p;
    }
    // Numbers: tracks, VP, reserves, per-turn counters, hand sizes; times their scales.
    float* num = v + at[O_NUMBERS];
    int k = 0;
    for (int j = 0; j < 9; ++j) num[k++] = float(s.tracks[j]);
    for (int j = 0; j < 2; ++j) num[k++] = float(s.vp[j]);
    for (int j = 0; j < 2; ++j) num[k++] = float(s.reserves[j]);
    for (int idx : o.misc_items) num[k++] = float(s.misc[idx]);
    num[k++] = float(opp_held);
    num[k++] = float(own_held);
    for (int j = 0; j < k; ++j) num[j] = num[j] * o.number_scale[size_t(j)];
    v[at[O_PHASE] + s.misc[M_PHASE]] = 1.0f;
    if (s.misc[M_PHASING] == 0 || s.misc[M_PHASING] == 1) v[at[O_PHASING] + s.misc[M_PHASING]] = 1.0f;
    v[at[O_ME] + p] = 1.0f;
    v[at[O_RUSSIA_UKRAINE] + s.misc[M_RW_STATE]] = 1.0f;
    for (int j = 0; j < t.n_spare; ++j) v[at[O_SPARE] + j] = s.spare_used[j] ? 1.0f : 0.0f;
    for (int card : o.threat)
        if (s.card_loc[card] == HAND_USA + p && m.risks_total_war(card, p))
            v[at[O_HAND_WAR_RISK] + card] = 1.0f;
    v[at[O_REALIGN_WAR_RISK]] = s.tracks[DIPLOMACY] <= 2 ? 1.0f : 0.0f;
    int deferred = int(s.misc[M_RUSSIA_DEFERRED]);
    if (deferred) {
        int top = at[O_RUSSIA_DEFERRED] + s.tracks[RUSSIA];
        for (int j = top - deferred; j < top; ++j) v[j] = 1.0f;
    }
    for (int h = M_HIST_DRAWN; h <= M_HIST_DRAWN + 1; ++h)
        if (s.misc[h]) v[at[O_HISTORY_TURN] + s.misc[h] - 1] = 1.0f;
    if (!s.has_pending) return;
    int kind = s.p_kind, player = s.p_player;
    v[at[O_TO_MOVE]] = player == p ? 1.0f : 0.0f;
    v[at[O_DECISION_KIND] + o.kind_index[size_t(kind)]] = 1.0f;
    int cs = o.card_slot[size_t(kind)], os = o.ops_slot[size_t(kind)], hs = o.hist_slot[size_t(kind)];
    if (cs >= 0 && s.p_ctx[cs] >= 0) {
        int card = s.p_ctx[cs];
        v[at[O_DECISION_CARD] + card] = 1.0f;
        v[at[O_DECISION_CARD_WAR_RISK]] = m.risks_total_war(card, p) ? 1.0f : 0.0f;
    }
    v[at[O_DECISION_OPS]] = float(double(os >= 0 ? s.p_ctx[os] : 0) / 4.0);
    if (hs >= 0) v[at[O_DECISION_HISTORY] + s.p_ctx[hs]] = 1.0f;
    if (player == p && o.countries[size_t(kind)])
        for (int j = 0; j < s.p_nlegal; ++j) v[at[O_DECISION_COUNTRIES] + s.p_legal[j] - t.country0] = 1.0f;
}

}  // namespace evenstar
