// ObservationEncoder.encode (evenstar_env/env/observation.py) over the native state.
// Each block below names the Python method it mirrors; float values are computed as
// numpy does (float32 products, Python doubles rounded once to float32).
#include "observation.h"

#include <algorithm>
#include <cstring>

namespace evenstar {

std::map<std::string, std::vector<std::string>> obs_names() {
#define EVENSTAR_OBS_NAME(name) #name,
    return {{"fields", {EVENSTAR_OBS_FIELDS(EVENSTAR_OBS_NAME)}},
            {"writers", {EVENSTAR_OBS_WRITERS(EVENSTAR_OBS_NAME)}},
            {"kind_cols", {EVENSTAR_OBS_KIND_COLS(EVENSTAR_OBS_NAME)}},
            {"effect_cols", {EVENSTAR_OBS_EFFECT_COLS(EVENSTAR_OBS_NAME)}}};
#undef EVENSTAR_OBS_NAME
}

namespace {

const Table& need(const std::map<std::string, Table>& d, const std::string& name) {
    auto it = d.find("obs_" + name);
    if (it == d.end()) throw EngineError("missing observation table obs_" + name);
    return it->second;
}

std::vector<float> floats(const Table& tb) {  // float32 values exported as their int32 bits
    std::vector<float> out(tb.v.size());
    if (!out.empty()) std::memcpy(out.data(), tb.v.data(), out.size() * sizeof(float));
    return out;
}

void check(bool ok, const char* what) {
    if (!ok) throw EngineError(std::string("observation tables: ") + what);
}

}  // namespace

std::shared_ptr<const ObsTables> make_obs_tables(const std::map<std::string, Table>& d,
                                                 const Tables& t) {
    auto o = std::make_shared<ObsTables>();
    o->size = need(d, "size")(0);
    const Table& at = need(d, "at");
    check(at.rows == O_COUNT_, "obs_at has one offset per field");
    for (int k = 0; k < O_COUNT_; ++k) {
        o->at[k] = at(k);
        check(0 <= o->at[k] && o->at[k] < o->size, "offset inside the vector");
    }
    auto inf = floats(need(d, "inf_scale"));
    check(inf.size() == 3, "three influence scales");
    std::copy(inf.begin(), inf.end(), o->inf_scale);
    const Table& codes = need(d, "card_codes");
    check(codes.rows == 2 && codes.cols == 7, "card codes 2 x 7");
    for (int p = 0; p < 2; ++p)
        for (int r = 0; r < 7; ++r) o->card_codes[p][r] = codes(p, r);
    o->number_src = need(d, "numbers").v;
    o->number_scale = floats(need(d, "number_scale"));
    check(o->number_src.size() == 2 * o->number_scale.size(), "one source per number");
    for (size_t j = 0; j < o->number_scale.size(); ++j) {
        int src = o->number_src[2 * j], idx = o->number_src[2 * j + 1];
        check(src >= NS_TRACK && src <= NS_OWN_HELD, "number source");
        check(src != NS_MISC || (0 <= idx && idx < N_MISC), "misc index");
        check(src != NS_TRACK || (0 <= idx && idx < 16), "track index");
        check((src != NS_VP && src != NS_RESERVES) || (0 <= idx && idx < 2), "side index");
    }
    o->threat_cards = need(d, "threat").v;
    for (int k : o->threat_cards) check(0 <= k && k < t.nc, "threat card");
    o->kinds = need(d, "kinds");
    check(o->kinds.rows == K_COUNT_ && o->kinds.cols == OK_COUNT_, "obs_kinds shape");
    o->effects = need(d, "effects");
    check(o->effects.rows == t.effects.rows && o->effects.cols == OE_COUNT_, "obs_effects shape");
    o->params = floats(need(d, "params"));
    const Table& opts = need(d, "options");
    const Table& places = need(d, "places");
    o->options = floats(opts);
    o->places = floats(places);
    o->option_w = opts.cols / 2;
    o->places_w = places.cols;
    for (int e = 0; e < o->effects.rows; ++e) {
        check(o->effects(e, OE_params) < int(o->params.size() / 4), "pick params row");
        check(o->effects(e, OE_option) < opts.rows && o->effects(e, OE_option) < places.rows,
              "option row");
    }
    o->max_points = need(d, "max_points")(0);
    o->discard_max = need(d, "discard_max")(0);
    o->n_russia = need(d, "n_russia")(0);
    o->tech_boxes[0] = need(d, "tech_boxes")(0);
    o->tech_boxes[1] = need(d, "tech_boxes")(1);
    o->pay_discard = need(d, "pay_discard").v;
    check(int(o->pay_discard.size()) == t.nc, "pay_discard per card");
    o->action_mode = need(d, "action_mode").v;
    check(int(o->action_mode.size()) == F_COUNT_, "action mode per frame op");
    o->granted_at = need(d, "granted").v;
    check(int(o->granted_at.size()) == N_MODES, "granted index per mode");
    o->scoring_cards = need(d, "scoring").v;
    for (int k : o->scoring_cards) check(0 <= k && k < t.nc, "scoring card");
    o->scoring_scale = floats(need(d, "scoring_scale")).at(0);
    o->action_rounds = need(d, "action_rounds")(0);
    return o;
}

namespace {

struct Encoder {
    const Tables& t;
    const ObsTables& o;
    const State& s;
    int p;
    float* v;

    float& at(int field, int k = 0) const { return v[o.at[field] + k]; }

    bool risks(int card) const {  // play.risks_total_war (a read-only Machine)
        return Machine(t, const_cast<State&>(s)).risks_total_war(card, p);
    }

    void board() {  // _board_block
        for (int i = 0; i < t.n; ++i) {
            int us = s.inf_us[i], cn = s.inf_cn[i], st = t.ctrl_stab(i), pos = std::max(us, 0);
            at(O_inf_usa, i) = float(pos) * o.inf_scale[0] + 0.0f;
            at(O_inf_china, i) = float(cn) * o.inf_scale[1] + 0.0f;
            at(O_inf_anti_us, i) = float(std::min(us, 0)) * o.inf_scale[2] + 0.0f;
            bool chn = cn >= st && cn - pos >= st;
            at(O_ctrl_usa, i) = pos >= st && pos - cn >= st;
            at(O_ctrl_china, i) = chn;
            at(O_ctrl_anti_us, i) = us < 0 && !chn && t.au_ok(i);
            at(O_non_realignable, i) = s.non_realignable[i] != 0;
        }
    }

    void cards_and_numbers() {  // _cards_block, revealed, the numbers block
        int nc = t.nc, own = 0, opp = 0;
        const int* codes = o.card_codes[p];
        for (int k = 0; k < nc; ++k) {
            int loc = s.card_loc[k];
            for (int r = 0; r < 7; ++r)
                if (loc == codes[r]) at(O_hand, r * nc + k) = 1.0f;
            own += loc == codes[0];
            opp += loc == o.card_codes[1 - p][0];
            at(O_event_played, k) = s.event_played[k] != 0;
            at(O_revealed_opponent_hand, k) = s.revealed[1 - p][k] != 0;
        }
        for (int h = 0; h < t.nh; ++h) at(O_history_done, h) = s.hist_loc[h] == H_DONE;
        for (size_t j = 0; j < o.number_scale.size(); ++j) {
            int idx = o.number_src[2 * j + 1];
            int64_t x = 0;
            switch (o.number_src[2 * j]) {
                case NS_TRACK: x = s.tracks[idx]; break;
                case NS_VP: x = s.vp[idx]; break;
                case NS_RESERVES: x = s.reserves[idx]; break;
                case NS_MISC: x = s.misc[idx]; break;
                case NS_OPP_HELD: x = opp; break;
                default: x = own; break;
            }
            at(O_tracks, int(j)) = float(x) * o.number_scale[j];
        }
    }

    void flags() {  // the one-hots and risks of encode(), before the public record
        const int64_t* misc = s.misc;
        at(O_phase, int(misc[M_PHASE])) = 1.0f;
        if (misc[M_PHASING] == 0 || misc[M_PHASING] == 1) at(O_phasing, int(misc[M_PHASING])) = 1.0f;
        at(O_me, p) = 1.0f;
        at(O_russia_ukraine, int(misc[M_RW_STATE])) = 1.0f;
        for (int k = 0; k < t.n_spare; ++k) at(O_spare_scoring_used, k) = s.spare_used[k] != 0;
        int hand = o.card_codes[p][0];
        for (int k : o.threat_cards)
            if (s.card_loc[k] == hand && risks(k)) at(O_hand_war_risk, k) = 1.0f;
        at(O_realign_war_risk) = s.tracks[DIPLOMACY] <= 2;
        int64_t deferred = misc[M_RUSSIA_DEFERRED];
        if (deferred) {
            int top = o.at[O_russia_deferred] + s.tracks[RUSSIA];
            for (int64_t k = top - deferred; k < top; ++k) v[k] = 1.0f;
        }
        for (int k = M_HIST_DRAWN; k <= M_HIST_DRAWN + 1; ++k)
            if (misc[k]) at(O_history_turn, int(misc[k] - 1)) = 1.0f;
        for (int side = 0; side < 2; ++side)
            at(O_tech_paid, side) = float(double(misc[M_TECH_PAID + side]) / o.tech_boxes[side]);
        int held = 0;  // observation.scoring_rounds_left
        for (int k : o.scoring_cards) held += s.card_loc[k] == hand;
        int64_t left = std::max<int64_t>(1, o.action_rounds - misc[M_ROUND] + 1);
        at(O_scoring_held) = float(held) * o.scoring_scale;
        at(O_scoring_due) = held > 0 && held >= left;
    }

    // _action: the mode and ops of an ops-action frame (op, its a[1] and a[2]).
    void action(int op, int a1, int a2) {
        int mode = o.action_mode[size_t(op)], ops = a1;
        if (mode == -2) {
            mode = a1 == SOCIAL ? MODE_SOCIAL : MODE_ECONOMY;
            ops = a2;
        } else if (mode < 0) {
            throw EngineError("observation: not an ops-action frame");
        }
        at(O_action_mode, mode) = 1.0f;
        at(O_action_ops) = float(ops / 4.0);
    }

    void record() {  // _record
        int64_t resp = s.misc[M_RESPONSIBLE];
        if (resp == 0 || resp == 1) at(O_responsible, int(resp)) = 1.0f;
        if (s.has_result) at(O_result, s.result[0] < 0 ? 2 : s.result[0]) = 1.0f;
        int steps = 0;
        for (int k = 0; k < s.depth; ++k) steps += s.stack[k].op == F_RUSSIA_STEP;
        if (steps) at(O_russia_steps_pending) = float(double(steps) / o.n_russia);
        for (int k = s.depth - 1; k >= 0; --k) {
            const Frame& f = s.stack[k];
            if (f.op == F_CARD_DONE) break;
            if (f.op == F_EVENT)
                at(O_event_to_come) = 1.0f;
            else if (o.action_mode[f.op] != -1)
                action(f.op, f.a[1], f.a[2]);
        }
    }

    void source(int eid, int executor) {  // _source
        for (int c = OE_src0; c <= OE_src2; ++c) {
            int idx = o.effects(eid, c);
            if (idx >= 0) v[idx] = 1.0f;
        }
        at(O_decision_executor, executor) = 1.0f;
    }

    void candidates(const Frame& f) {
        f.set.each([&](int i) { at(O_decision_candidates, i) = 1.0f; });
    }

    void influence(const Frame& f) {  // _influence: pick (effect, executor, kind, left, ...)
        int eid = f.a[0];
        double scale = 1.0 / o.max_points;
        source(eid, f.a[1]);
        at(O_influence_verb, o.effects(eid, OE_verb)) = 1.0f;
        at(O_influence_kind, f.a[2]) = 1.0f;
        at(O_influence_left) = float(f.a[3] * scale);
        int row = o.effects(eid, OE_params);
        if (row < 0) throw EngineError("observation: a pick without parameters");
        std::memcpy(&at(O_influence_points), &o.params[size_t(row) * 4], 4 * sizeof(float));
        candidates(f);
        if (f.nseq) {
            int counts[MAXN] = {};
            for (int k = 0; k < f.nseq; ++k) counts[f.seq[k]]++;
            for (int i = 0; i < t.n; ++i) at(O_decision_chosen, i) = float(counts[i] * scale);
        }
    }

    void option(const Frame& f) {  // _option: choice (effect, executor)
        int eid = f.a[0], row = o.effects(eid, OE_option);
        if (row < 0) throw EngineError("observation: a choice without options");
        source(eid, f.a[1]);
        size_t w = size_t(o.option_w), pw = size_t(o.places_w);
        std::memcpy(&at(O_option_effects), &o.options[(size_t(row) * 2 + size_t(f.a[1])) * w],
                    w * sizeof(float));
        std::memcpy(&at(O_option_places), &o.places[size_t(row) * pw], pw * sizeof(float));
    }

    void discard(const Frame& f) {  // _discard: pay (card, owner, player) or discard
        double scale = 1.0 / o.discard_max;
        if (f.op == F_PAY) {
            at(O_source_card, f.a[0]) = 1.0f;
            at(O_discard_side, f.a[1]) = 1.0f;
            at(O_discard_left) = float(scale);
            at(O_discard_min_ops) = float(o.pay_discard[size_t(f.a[0])] / 4.0);
            return;
        }
        int eid = f.a[0];
        source(eid, f.a[1]);
        at(O_discard_side, f.a[2]) = 1.0f;
        at(O_discard_left) = float(f.a[3] * scale);
        at(O_discard_min_ops) = float(o.effects(eid, OE_min_ops) / 4.0);
    }

    void allowed(const Frame& f) {  // _allowed: the set, or every country when None
        if (f.flags & 1)
            candidates(f);
        else
            for (int i = 0; i < t.n; ++i) at(O_decision_candidates, i) = 1.0f;
    }

    void context(int writer, const Frame& f) {
        switch (writer) {
            case W_influence: influence(f); break;
            case W_option: option(f); break;
            case W_discard: discard(f); break;
            case W_order:  // (player, card, executor, action): the nested frame in aux, a[3..5]
                at(O_decision_executor, f.a[2]) = 1.0f;
                action(f.aux, f.a[4], f.a[5]);
                break;
            case W_place: candidates(f); break;
            case W_allowed: allowed(f); break;
            case W_granted:
                for (int k = 0; k < f.nseq; ++k) {
                    int g = o.granted_at[f.seq[k]];
                    if (g < 0) throw EngineError("observation: a mode no event grants");
                    at(O_granted_modes, g) = 1.0f;
                }
                allowed(f);
                break;
            case W_modifier:
                if (p == USA && f.a[1] != USA) at(O_own_modifier, int(s.misc[M_MOD])) = 1.0f;
                break;
            default: break;
        }
    }

    void pending() {  // the decision part of encode()
        if (!s.has_pending) return;
        const int kind = s.p_kind, player = s.p_player;
        const Table& K = o.kinds;
        if (kind == K_HEADLINE)  // 4.6.F: both headlines are shown together
            std::fill(&at(O_opponent_headline), &at(O_opponent_headline) + t.nc, 0.0f);
        at(O_to_move) = player == p;
        at(O_decision_kind, K(kind, OK_index)) = 1.0f;
        int card = -1;
        if (K(kind, OK_card_slot) >= 0)
            card = s.p_ctx[K(kind, OK_card_slot)] - K(kind, OK_card_optional);
        if (card >= 0) {
            at(O_decision_card, card) = 1.0f;
            at(O_decision_card_war_risk) = risks(card);
        }
        int ops = K(kind, OK_ops_slot) >= 0 ? s.p_ctx[K(kind, OK_ops_slot)] : 0;
        at(O_decision_ops) = float(ops / 4.0);
        if (K(kind, OK_history_slot) >= 0)
            at(O_decision_history, s.p_ctx[K(kind, OK_history_slot)]) = 1.0f;
        if (player == p) {
            if (K(kind, OK_country)) {
                for (int k = 0; k < s.p_nlegal; ++k)
                    at(O_decision_countries, s.p_legal[k] - t.country0) = 1.0f;
            } else if (!K(kind, OK_card) || (s.p_nlegal && s.p_legal[s.p_nlegal - 1] >= t.mode0)) {
                for (int k = 0; k < s.p_nlegal; ++k)
                    if (s.p_legal[k] >= t.mode0) at(O_legal_choices, s.p_legal[k] - t.mode0) = 1.0f;
            }
        }
        context(K(kind, OK_writer), s.p_frame);
    }
};

}  // namespace

void encode_observation(const Tables& t, const State& s, int p, float* out) {
    if (!t.obs) throw EngineError("these tables have no observation encoder");
    if (p != 0 && p != 1) throw EngineError("observe: the player is 0 (US) or 1 (China)");
    const ObsTables& o = *t.obs;
    std::memset(out, 0, size_t(o.size) * sizeof(float));
    Encoder e{t, o, s, p, out};
    e.board();
    e.cards_and_numbers();
    e.flags();
    e.record();
    e.pending();
}

}  // namespace evenstar
