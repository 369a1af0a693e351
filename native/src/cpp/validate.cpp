// The state checker (validate.h): the domains of evenstar_env/engine/validity.py.
#include "validate.h"

#include <cstdint>
#include <string>

namespace evenstar {

void Table::out_of_range(int r, int c) {
    throw EngineError("native table index out of range: (" + std::to_string(r) + ", " +
                      std::to_string(c) + ") (a corrupt state)");
}

namespace {

// Domain codes: validity.DOMAINS order.
enum { D_ANY, D_SIDE, D_CARD, D_HIST, D_EFF, D_EFF_PICK, D_EFF_DISCARD, D_EFF_CHOICE, D_SOURCE,
       D_COUNT, D_OPS, D_PRINTED, D_TRACK, D_ROUND, D_FLAG, D_COUNTRY, D_MODE, D_KIND, D_VERB,
       D_CARD_OPT, D_LOG, D_ACTION };
// Action groups: validity.GROUPS order.
enum { G_CARD, G_COUNTRY, G_MODE, G_ORDER, G_MOD, G_SPEND, G_YES, G_NO, G_OPTION, G_DONE };

// Where a field is: a name and an index (-1: none); strings are made only on failure.
struct Where {
    const char* field;
    int k;
};

[[noreturn]] void fail(Where w, const std::string& why) {
    std::string where = std::string(w.field) + (w.k >= 0 ? "[" + std::to_string(w.k) + "]" : "");
    throw StateError("invalid native state: " + where + ": " + why);
}

[[noreturn]] void fail(const char* field, const std::string& why) { fail(Where{field, -1}, why); }

bool in_domain(const Tables& t, int dom, long v) {
    // (< 0: an order frame's nested action, checked with that frame's own domains)
    if (dom < 0 || dom == D_ANY || dom == D_LOG || dom == D_ACTION) return true;
    if (dom >= t.v_dom.rows) return false;
    if (v < t.v_dom(dom, 0) || v > t.v_dom(dom, 1)) return false;
    switch (dom) {
        case D_TRACK: return v == SOCIAL || v == ECONOMY;
        case D_MODE: return v == MODE_PLACE || v == MODE_REALIGN || v == MODE_TRADE;
        case D_EFF_PICK: {
            int op = t.effects(int(v), EF_OP);
            return op == E_ADD_INFLUENCE || op == E_REDUCE_INFLUENCE;
        }
        case D_EFF_DISCARD: return t.effects(int(v), EF_OP) == E_DISCARD;
        case D_EFF_CHOICE: return t.effects(int(v), EF_OP) == E_CHOICE;
        default: return true;
    }
}

bool is_action_op(int op) {
    return op == F_PLACE_START || op == F_REALIGN || op == F_TRADE || op == F_TECH ||
           op == F_IMPROVE;
}

bool special(int dom) {
    return dom == D_TRACK || dom == D_MODE || dom == D_EFF_PICK || dom == D_EFF_DISCARD ||
           dom == D_EFF_CHOICE;
}

void check_args(const Tables& t, int op, const int16_t* a, int n, Where where) {
    const int32_t* lo = &t.v_lo[size_t(op) * 6];
    const int32_t* hi = &t.v_hi[size_t(op) * 6];
    bool bad = false;
    for (int k = 0; k < n; ++k) bad |= (a[k] < lo[k]) | (a[k] > hi[k]);
    if (t.v_special[size_t(op)])
        for (int k = 0; k < n; ++k) bad |= !in_domain(t, t.v_frame(op, k), a[k]);
    if (!bad) return;
    for (int k = 0; k < n; ++k)
        if (a[k] < lo[k] || a[k] > hi[k] || !in_domain(t, t.v_frame(op, k), a[k]))
            fail(where, "frame op " + std::to_string(op) + " argument a[" + std::to_string(k) +
                            "] = " + std::to_string(a[k]) + " is outside its domain");
}

void check_frame(const Tables& t, const Frame& f, Where where) {
    if (f.op >= F_COUNT_) fail(where, "unknown frame op " + std::to_string(f.op));
    int op = f.op;
    check_args(t, op, f.a, 6, where);
    if (op == F_LOG) {
        int kind = f.a[0], side = f.a[1], box = f.a[2];
        int n = kind == 1 ? t.russia_boxes.rows : side == USA ? t.tech_usa.rows : t.tech_china.rows;
        if (box < 0 || box >= n || (kind == 1 && side != 0))
            fail(where, "a log frame names no track box");
    }
    if (op == F_ORDER || op == F_AI_EVENT) {  // the nested action frame
        if (!is_action_op(f.aux)) fail(where, "nested frame is not an action frame");
        check_args(t, f.aux, f.a + 3, 3, where);
    } else if (f.aux) {
        fail(where, "a frame without a nested action has aux set");
    }
    int seq = t.v_frame(op, 6);
    if (f.nseq > (seq ? MAXSEQ : 0)) fail(where, "tuple too long");
    for (int k = 0; k < f.nseq; ++k)
        if (!in_domain(t, seq, f.seq[k])) fail(where, "tuple value outside its domain");
    int set = t.v_frame(op, 7);
    if ((f.flags & ~1) || ((f.flags & 1) && !set) || (set == 1 && !(f.flags & 1)))
        fail(where, "country set flag does not match the frame");
    if ((f.flags & 1) && f.set.andnot(t.v_map).any())
        fail(where, "country set holds a country outside the map");
}

int group_of(const Tables& t, int a) {
    if (a < t.country0) return G_CARD;
    if (a < t.mode0) return G_COUNTRY;
    if (a < t.order0) return G_MODE;
    if (a < t.mod0) return G_ORDER;
    if (a < t.spend0) return G_MOD;
    if (a < t.yes) return G_SPEND;
    if (a == t.yes) return G_YES;
    if (a == t.no) return G_NO;
    if (a < t.done) return G_OPTION;
    return G_DONE;
}

void check_pending(const Tables& t, const State& s) {
    if (s.p_player != USA && s.p_player != CHINA) fail("pending", "player is not 0 or 1");
    if (s.p_kind < 0 || s.p_kind >= t.v_kind.rows) fail("pending", "unknown decision kind");
    int k = s.p_kind;
    if (s.p_frame.op != t.v_kind(k, 0) && s.p_frame.op != t.v_kind(k, 1))
        fail("pending", "its frame does not ask this kind of decision");
    check_frame(t, s.p_frame, Where{"pending frame", -1});
    if (s.p_nlegal < 2 || s.p_nlegal > MAXLEGAL)
        fail("pending", "expected 2.." + std::to_string(MAXLEGAL) + " legal actions");
    int groups = t.v_kind(k, 2);
    for (int j = 0; j < s.p_nlegal; ++j) {
        int a = s.p_legal[j];
        if (a >= t.n_actions || !((groups >> group_of(t, a)) & 1))
            fail("pending", "legal action " + std::to_string(a) + " does not fit the decision");
        if (group_of(t, a) == G_OPTION && a - t.option0 >= t.effects(s.p_frame.a[0], EF_OPTIONS_LEN))
            fail("pending", "legal option beyond the effect's options");
    }
    for (int j = 0; j < 4; ++j)
        if (!in_domain(t, t.v_kind(k, 3 + j), s.p_ctx[j]))
            fail("pending", "context value " + std::to_string(j) + " is outside its domain");
}

// Bounds of the element type (compared in it: the first pass vectorises).
template <class T> void check_range(const T* v, int n, T lo, T hi, const char* field) {
    T bad = 0;  // a branch-free pass first, the culprit only on failure
    for (int i = 0; i < n; ++i) bad |= T(v[i] < lo) | T(v[i] > hi);
    if (!bad) return;
    for (int i = 0; i < n; ++i)
        if (v[i] < lo || v[i] > hi)
            fail(Where{field, i}, std::to_string(long(v[i])) + " is outside " +
                                            std::to_string(lo) + ".." + std::to_string(hi));
}

}  // namespace

void prepare_validation(Tables& t) {
    if (t.v_frame.rows != F_COUNT_ || t.v_frame.cols != 8 || t.v_misc.rows != N_MISC ||
        t.v_misc.cols != 2 || t.v_kind.rows != K_COUNT_ || t.v_dom.cols != 2)
        throw EngineError("state checker tables differ from names_gen.h: regenerate");
    t.v_lo.assign(size_t(F_COUNT_) * 6, INT32_MIN);
    t.v_hi.assign(size_t(F_COUNT_) * 6, INT32_MAX);
    t.v_special.assign(size_t(F_COUNT_), 0);
    for (int op = 0; op < F_COUNT_; ++op)
        for (int k = 0; k < 6; ++k) {
            int dom = t.v_frame(op, k);
            if (dom <= 0 || dom == D_LOG || dom == D_ACTION) continue;
            t.v_lo[size_t(op) * 6 + k] = t.v_dom(dom, 0);
            t.v_hi[size_t(op) * 6 + k] = t.v_dom(dom, 1);
            if (special(dom)) t.v_special[size_t(op)] = 1;
        }
    t.v_map = CSet{};
    for (int i = 0; i < t.n; ++i) t.v_map.set(i);
}

void validate_state(const Tables& t, const State& s) {
    check_range<int16_t>(s.inf_cn, t.n, 0, 32767, "inf_cn");
    check_range<uint8_t>(s.non_realignable, t.n, 0, 1, "non_realignable");
    // Counters within +-COUNTER_MAX (validity.py): the engine's additions never overflow.
    // Reserves may be below 0 here: a scenario setter may leave a side unable to pay a
    // modifier it chose, and the engine then goes below 0, on both backends.
    constexpr int32_t CMAX = 1000000;
    check_range<int32_t>(s.vp, 2, -CMAX, CMAX, "vp");
    check_range<int32_t>(s.reserves, 2, -CMAX, CMAX, "reserves");
    check_range<int32_t>(s.vp_source[0], t.n_vp, -CMAX, CMAX, "vp_source[0]");
    check_range<int32_t>(s.vp_source[1], t.n_vp, -CMAX, CMAX, "vp_source[1]");
    check_range<int8_t>(s.card_loc, t.nc, DRAW, PLAYING, "card_loc");
    check_range<int8_t>(s.hist_loc, t.nh, H_OUT, H_DRAWN, "hist_loc");
    check_range<uint8_t>(s.event_played, t.nc, 0, 1, "event_played");
    check_range<int8_t>(s.event_side, t.nc, 0, 1, "event_side");
    check_range<uint8_t>(s.revealed[0], t.nc, 0, 1, "revealed[0]");
    check_range<uint8_t>(s.revealed[1], t.nc, 0, 1, "revealed[1]");
    check_range<uint8_t>(s.spare_used, t.n_spare, 0, 1, "spare_used");
    Machine m(t, const_cast<State&>(s));
    for (int k = 0; k < 9; ++k) {
        int lo = (k == RUSSIA || k == TECH || k == TECH + 1) ? 0 : 1;
        if (s.tracks[k] < lo || s.tracks[k] > m.track_max(k))
            fail(Where{"tracks", k}, "outside the track");
    }
    // (the decision counter only counts: it may pass 2**31-1, the most a snapshot holds,
    // up to 2**62, far from overflowing)
    auto hi = [&](int k) -> int64_t {
        return k == M_DECISIONS ? (int64_t(1) << 62) : t.v_misc.v[2 * k + 1];
    };
    bool bad_misc = false;
    for (int k = 0; k < N_MISC; ++k)
        bad_misc |= (s.misc[k] < t.v_misc.v[2 * k]) | (s.misc[k] > hi(k));
    for (int k = 0; k < N_MISC && bad_misc; ++k)
        if (s.misc[k] < t.v_misc(k, 0) || s.misc[k] > hi(k))
            fail(Where{"misc", k}, std::to_string(s.misc[k]) + " is outside " +
                                             std::to_string(t.v_misc(k, 0)) + ".." +
                                             std::to_string(t.v_misc(k, 1)));
    if (s.misc[M_RUSSIA_DEFERRED] > s.tracks[RUSSIA])
        fail("misc", "more Russia boxes waiting than the marker has passed");
    if (s.n_forced < 0 || s.n_forced > MAXFORCED) fail("forced", "count out of range");
    check_range<int32_t>(s.forced, s.n_forced, 1, 6, "forced");
    for (int k = s.n_forced; k < MAXFORCED; ++k)
        if (s.forced[k]) fail("forced", "values beyond the count");
    if ((s.over | s.has_result | s.has_pending) & ~1) fail("over", "flags are not 0 or 1");
    if (s.over != s.has_result || (s.over && (s.has_pending || s.depth)))
        fail("over", "a finished game has a result and no pending decision or frame");
    // (A game in progress may be between decisions: frames pushed to be run, as the
    // scenario setters do; with no frame either, running it raises EngineError.)
    if (s.has_result) {
        if (s.result[0] < -1 || s.result[0] > 1 || s.result[1] < R_COLLAPSE || s.result[1] > R_MORE)
            fail("result", "not a result the engine gives");
    }
    if (s.depth < 0 || s.depth > MAXSTACK) fail("stack", "depth out of range");
    for (int k = 0; k < s.depth; ++k) check_frame(t, s.stack[k], Where{"stack", k});
    if (s.has_pending) check_pending(t, s);
}

}  // namespace evenstar
