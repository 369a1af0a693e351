// The agents' hot loops on the native state (see search.h); each mirrors the Python
// function named in its comment, operation for operation, so that the floating-point
// results are the same bits.  Rules (control, scoring, stepping, events that risk a
// total war) come from the engine's Machine.
#include <algorithm>

#include "search.h"

namespace evenstar {

namespace {

constexpr int FINE_PLACE = K_PLACE, FINE_INFLUENCE = K_INFLUENCE, FINE_REALIGN = K_REALIGN,
              FINE_TRADE = K_TRADE;

// agents/evaluation.py scoring_overhang(g, p)
int scoring_overhang(const Tables& t, const State& s, int p) {
    const int hand = p == USA ? HAND_USA : HAND_CHINA;
    int held = 0;
    for (int k = 0; k < t.nc; ++k) held += t.cards(k, CD_SCORING) && s.card_loc[k] == hand;
    if (held == 0) return 0;
    const int rounds = t.S(S_ACTION_ROUNDS);
    const int64_t phase = s.misc[M_PHASE], round = s.misc[M_ROUND];
    int64_t left;
    if (phase == P_ACTION)
        left = rounds - round + ((round && s.misc[M_PHASING] == 1 && p == 0) ? 0 : 1);
    else
        left = rounds + 1;
    return (phase == P_ACTION || phase == P_HEADLINE) ? int(std::max<int64_t>(0, held - left + 1))
                                                      : 0;
}

// The legal actions in ascending order (numpy.flatnonzero of the mask).
int sorted_legal(const State& s, int* out) {
    int n = s.p_nlegal;
    for (int k = 0; k < n; ++k) out[k] = s.p_legal[k];
    std::sort(out, out + n);
    return n;
}

// agents/fast_policy.py FastPolicy._country
int fast_country(const Tables& t, const State& s, const int* legal, int n, uint64_t& rng) {
    Machine m(t, const_cast<State&>(s));
    const int me = s.p_player;
    const int kind = s.p_kind;
    const bool reduce = kind == K_INFLUENCE && s.p_ctx[0] == 1;
    double best = 0;
    int ties[MAXLEGAL], nt = 0;
    for (int k = 0; k < n; ++k) {
        const int i = legal[k] - t.country0;
        const int us = std::max<int>(s.inf_us[i], 0), au = std::max<int>(-s.inf_us[i], 0);
        const int cn = s.inf_cn[i];
        const int ctrl = m.controller_of(i);
        const int st = t.ctrl_stab(i);
        const int own = me == 0 ? us : cn, opp = me == 0 ? cn + au : us;
        const double weight = (1.0 + 1.5 * double(t.bg(i) != 0)) +
                              0.5 * double(t.adj_sp_set[1 - me].has(i));
        double value;
        if (reduce) {
            const bool enemy = me == 0 ? (ctrl == C_CHINA || ctrl == C_ANTI_US) : ctrl == C_USA;
            value = weight * double(1 + 3 * int(enemy));
        } else {
            const int mine = me == 0 ? C_USA : C_CHINA;
            const bool gains = own + 1 >= st && own + 1 - opp >= st && ctrl != mine;
            value = weight * (double(1 + 4 * int(gains)) - 0.5 * double(ctrl == mine));
            if (kind == K_REALIGN)
                value = (weight * double(opp) - 2.0 * double(t.bg(i) != 0) * 3) - double(t.stab(i));
        }
        if (nt == 0 || value > best) {
            best = value;
            nt = 0;
        }
        if (value == best) ties[nt++] = legal[k];
    }
    return ties[splitmix_below(rng, uint64_t(nt))];
}

}  // namespace

void step_state(const Tables& t, State& s, int action) {
    Machine m(t, s);
    m.apply(action);
    m.run();
}

double evaluate(const Tables& t, const State& s, int p, const EvalWeights& w) {
    if (s.over) {
        const int winner = s.has_result ? s.result[0] : -1;
        return winner < 0 ? 0.0 : (winner == p ? w.win : -w.win);
    }
    const Machine m(t, const_cast<State&>(s));
    const int o = 1 - p;
    const double sign = p == 0 ? 1.0 : -1.0;
    int ctrl[MAXN];
    for (int i = 0; i < t.n; ++i) ctrl[i] = m.controller_of(i);
    int64_t regional_i = 0, sub_i = 0;
    for (int row = 0; row < t.n_regions + t.n_sub; ++row) {
        int us, cn;
        m.score_row(row, us, cn, ctrl);
        (row < t.n_regions ? regional_i : sub_i) += us - cn;
    }
    const double regional = double(regional_i) * w.region;
    const double sub = double(sub_i) * w.subregion;
    const int sp = s.tracks[SOCIAL + p], so = s.tracks[SOCIAL + o];
    const int ep = s.tracks[ECONOMY + p], eo = s.tracks[ECONOMY + o];
    const double levels = double(sp - so + ep - eo) * w.level;
    auto sq = [](int x) { int d = std::max(0, 4 - x); return d * d; };
    const int danger = (sq(sp) + sq(ep)) - (sq(so) + sq(eo));
    int64_t us_bg_i = 0, cn_bg_i = 0;
    for (int i = 0; i < t.n; ++i)
        if (t.bg(i)) {
            us_bg_i += std::max<int>(s.inf_us[i], 0);
            cn_bg_i += s.inf_cn[i];
        }
    const double us_bg = double(us_bg_i), cn_bg = double(cn_bg_i);
    double v = w.vp * double(s.vp[p] - s.vp[o]);
    v = v - w.held_scoring * double(scoring_overhang(t, s, p) - scoring_overhang(t, s, o));
    v = v + sign * ((regional + sub) + w.bg_influence * (us_bg - cn_bg));
    v = v + levels;
    v = v - w.danger * double(danger);
    v = v + w.reserves * double(s.reserves[p] - s.reserves[o]);
    v = v + w.tech * double(s.tracks[TECH + p] - s.tracks[TECH + o]);
    return v;
}

int fast_policy_act(const Tables& t, const State& s, uint64_t& rng) {
    int legal[MAXLEGAL];
    int n = sorted_legal(s, legal);
    const int kind = s.p_kind;
    if (kind == FINE_PLACE || kind == FINE_INFLUENCE || kind == FINE_REALIGN || kind == FINE_TRADE)
        return fast_country(t, s, legal, n, rng);
    if (kind == K_CARD || kind == K_HEADLINE) {
        for (int k = 0; k < n; ++k)
            if (t.cards(legal[k] - t.card0, CD_SCORING)) return legal[k];
    }
    if (kind == K_MODE || kind == K_AI_ACTION) {
        int keep[MAXLEGAL], nk = 0;
        for (int k = 0; k < n; ++k)
            if (legal[k] != t.mode0 + MODE_REALIGN) keep[nk++] = legal[k];
        if (nk) {
            std::copy(keep, keep + nk, legal);
            n = nk;
        }
    }
    if (kind == K_MODIFIER) return t.mod0;  // "zero"
    return legal[splitmix_below(rng, uint64_t(n))];
}

int forced_war_plays(const Tables& t, const State& s, int p) {
    if (s.misc[M_PHASE] != P_ACTION) return 0;
    const Machine m(t, const_cast<State&>(s));
    const int hand = p == USA ? HAND_USA : HAND_CHINA;
    int held = 0, dangerous = 0;
    for (int k = 0; k < t.nc; ++k) {
        if (s.card_loc[k] != hand) continue;
        ++held;
        if (t.cards(k, CD_SIDE) == 1 - p && m.risks_total_war(k, p)) ++dangerous;
    }
    if (!dangerous) return 0;
    const int64_t plays =
        std::min<int64_t>(held, std::max<int64_t>(1, t.S(S_ACTION_ROUNDS) - s.misc[M_ROUND] + 1));
    const int64_t forced = std::max<int64_t>(0, plays - (held - dangerous));
    return int(std::max<int64_t>(0, forced - (s.misc[M_TECH_DONE + p] ? 0 : 1)));
}

}  // namespace evenstar
