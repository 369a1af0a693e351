// The frame machine (evenstar_env/engine/machine.py) and the tables' derived members.
#include <algorithm>
#include <cstring>

#include "engine.h"

namespace evenstar {

void Tables::finish() {
    n = S(S_N); nc = S(S_NC); nh = S(S_NH); n_regions = S(S_N_REGIONS);
    n_sub = S(S_N_SUBREGIONS); n_spare = S(S_N_SPARE); n_vp = S(S_N_VP);
    taiwan = S(S_TAIWAN); india = S(S_INDIA); ukraine = S(S_UKRAINE);
    if (n > MAXN || nc > MAXC || nh > MAXH || n_spare > MAXSP || n_vp > MAXVP ||
        n_regions + n_sub > MAXVP)
        throw EngineError("content too large for the native core");
    // ActionSpace (actions.py)
    card0 = 0; country0 = nc; mode0 = country0 + n; order0 = mode0 + N_MODES;
    mod0 = order0 + 2; spend0 = mod0 + N_MODIFIERS; yes = spend0 + N_SPENDS; no = yes + 1;
    option0 = no + 1; done = option0 + N_OPTIONS; n_actions = done + 1;
    if (n_actions > 65535) throw EngineError("action space too large");
    auto setof = [&](const Table& tb, int row) {
        CSet c{};
        for (int i = 0; i < n; ++i)
            if (tb(row, i)) c.set(i);
        return c;
    };
    sel_mask.clear();
    for (int r = 0; r < sel_static.rows; ++r) sel_mask.push_back(setof(sel_static, r));
    adj_set.clear();
    for (int r = 0; r < n; ++r) adj_set.push_back(setof(adj, r));
    for (int p = 0; p < 2; ++p) adj_sp_set[p] = setof(adj_sp, p);
    for (int k = 0; k < 5; ++k) trade_set[k] = setof(trade_reach, k);
    has_stab_set = CSet{}; bg_set = CSet{}; au_set = CSet{};
    for (int i = 0; i < n; ++i) {
        if (has_stab(i)) has_stab_set.set(i);
        if (bg(i)) bg_set.set(i);
        if (au_ok(i)) au_set.set(i);
    }
    for (int r = 0; r < n_regions; ++r) region_set[r] = setof(region_matrix, r);
    for (int r = 0; r < n_sub; ++r) region_set[n_regions + r] = setof(subregion_matrix, r);
    std::memset(&init, 0, sizeof init);
    for (int i = 0; i < n; ++i) {
        init.inf_us[i] = int16_t(init_inf_us(i));
        init.inf_cn[i] = int16_t(init_inf_cn(i));
        init.non_realignable[i] = uint8_t(init_non_realignable(i));
    }
    for (int k = 0; k < 9; ++k) init.tracks[k] = int16_t(init_tracks(k));
    for (int p = 0; p < 2; ++p) init.reserves[p] = init_reserves(p);
    for (int i = 0; i < nc; ++i) init.card_loc[i] = int8_t(init_card_loc(i));
    for (int i = 0; i < nh; ++i) init.hist_loc[i] = int8_t(init_hist_loc(i));
    for (int k = 0; k < N_MISC; ++k) init.misc[k] = init_misc(k);
    init.depth = init_stack.rows;
    for (int k = 0; k < init_stack.rows; ++k) init.stack[k] = mk(init_stack(k));
}

void setup_game(const Tables& t, State& s, const uint64_t rng[3]) {
    std::memcpy(&s, &t.init, sizeof s);
    for (int k = 0; k < 3; ++k) s.rng[k] = rng[k];
}

void new_game(const Tables& t, State& s, const uint64_t rng[3]) {
    setup_game(t, s, rng);
    Machine m(t, s);
    m.run();
}

// ------------------------------------------------------------ running
void Machine::push1(const Frame& f) {
    if (s.depth >= MAXSTACK) throw EngineError("native frame stack overflow");
    s.stack[s.depth++] = f;
}

void Machine::push(std::initializer_list<Frame> frames) {
    push_list(frames.begin(), int(frames.size()));
}

void Machine::push_list(const Frame* frames, int k) {
    for (int i = k - 1; i >= 0; --i) push1(frames[i]);
}

void Machine::push_effects(int start, int len, int executor, int source) {
    if (len == 0) return;
    int old_source = int(s.misc[M_VP_SOURCE]);
    if (!s.misc[M_RESOLVING]) {
        s.misc[M_RESOLVING] = 1;
        push1(mk(F_RESOLVED));
    }
    if (source >= 0) push1(mk(F_VP_SOURCE, old_source));
    for (int k = 0; k < len; ++k) push1(mk(F_EFF, t.pool(start + len - 1 - k), executor));
    if (source >= 0) push1(mk(F_VP_SOURCE, source));
}

void Machine::add_vp(int p, int amount, int column, int cause, int cid) {
    s.vp[p] += amount;
    if (column < 0) column = source_column(int(s.misc[M_VP_SOURCE]));
    s.vp_source[p][column] += amount;
    if (amount) ev(EV_VP, {p, amount, s.vp[p], column, cause, cid});
}

// ------------------------------------------------------------ events
void Machine::ev_push(int type, std::initializer_list<int> f) {
    EventRec r{};
    r.type = type;
    r.turn = int32_t(s.misc[M_TURN]);
    r.round = int32_t(s.misc[M_ROUND]);
    int k = 0;
    for (int x : f) r.f[k++] = x;
    events->push_back(r);
}

void Machine::influence(int i, int kind, int points, int cause, int cid) {
    int us0 = s.inf_us[i], cn0 = s.inf_cn[i];
    if (points > 0) add(i, kind, points);
    else reduce(i, kind, -points);
    if (events) influence_event(i, kind, points, us0, cn0, cause, cid);
}

void Machine::remove_influence(int i, int kind, int cause, int cid) {
    int us0 = s.inf_us[i], cn0 = s.inf_cn[i], gone = amount(i, kind);
    remove_all(i, kind);
    if (events) influence_event(i, kind, -gone, us0, cn0, cause, cid);
}

void Machine::influence_event(int i, int kind, int points, int us0, int cn0, int cause, int cid) {
    int us1 = s.inf_us[i], cn1 = s.inf_cn[i];
    if (us0 != us1 || cn0 != cn1) ev(EV_INFLUENCE, {i, kind, points, us0, us1, cn0, cn1, cause, cid});
}

void Machine::set_reserves(int p, int value, int cause, int cid) {
    int before = s.reserves[p];
    s.reserves[p] = value;
    if (value != before) ev(EV_RESERVES, {p, before, value, cause, cid});
}

void Machine::score(int row, int cause, int cid) {
    int u, c;
    if (events) {
        int d[12];
        score_detail(row, d);
        ev(EV_SCORE, {row, cause, cid, d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8],
                      d[9], d[10], d[11]});
        u = d[5];
        c = d[11];
    } else {
        score_row(row, u, c);
    }
    add_vp(USA, u, row, cause, cid);
    add_vp(CHINA, c, row, cause, cid);
}

void Machine::ask(const Frame& f, int player, int kind, const int* legal, int nlegal, int c0,
                  int c1, int c2, int c3) {
    if (nlegal == 0) throw EngineError("engine bug: decision asked with no legal action");
    if (nlegal > MAXLEGAL) throw EngineError("too many legal actions for the native core");
    s.has_pending = 1;
    s.p_frame = f;
    s.p_player = player;
    s.p_kind = kind;
    s.p_nlegal = nlegal;
    for (int k = 0; k < nlegal; ++k) s.p_legal[k] = uint16_t(legal[k]);
    s.p_ctx[0] = c0; s.p_ctx[1] = c1; s.p_ctx[2] = c2; s.p_ctx[3] = c3;
}

void Machine::run() {
    while (!s.over) {
        if (s.has_pending) {
            if (s.p_nlegal != 1) return;
            apply(s.p_legal[0]);  // a forced choice is taken at once
            continue;
        }
        if (s.depth == 0) throw EngineError("engine bug: no frame left in a game that is not over");
        Frame f = s.stack[--s.depth];
        handle(f);
        if (s.misc[M_END_FLAG] && !s.misc[M_RESOLVING]) check_end();
        if (s.misc[M_RW_STATE] == RW_WAITING) check_ukraine();
    }
}

void Machine::apply(int action) {
    Frame f = s.p_frame;
    s.has_pending = 0;
    s.misc[M_DECISIONS] += 1;
    ev(EV_DECISION, {s.p_player, s.p_kind, action});
    resume(f, action);
    if (s.misc[M_END_FLAG] && !s.misc[M_RESOLVING]) check_end();
    if (s.misc[M_RW_STATE] == RW_WAITING) check_ukraine();
}

void Machine::handle(const Frame& f) {
    switch (f.op) {
        case F_LOG:  // a track box is reached: a = (0 tech / 1 Russia, side, level - 1)
            ev(EV_BOX, {f.a[0] ? RUSSIA : TECH + f.a[1], f.a[2] + 1});
            return;
        case F_RESOLVED: s.misc[M_RESOLVING] = 0; return;
        case F_VP_SOURCE: s.misc[M_VP_SOURCE] = f.a[0]; return;
        case F_EFF: run_effect(f.a[0], f.a[1]); return;
        case F_PICK: pick(f); return;
        case F_DISCARD: discard(f); return;
        case F_CHOICE: choice(f); return;
        case F_ROUND: case F_SPEND: case F_RUSSIA_STEP: case F_RUSSIA_DEFERRED: case F_PLAY:
        case F_MODE: case F_ORDER: case F_AI_EVENT: case F_AI_ACTION: case F_EVENT: case F_PAY:
        case F_CARD_DONE: case F_OPS_MODE: case F_PLACE_START: case F_PLACE: case F_REALIGN:
        case F_IMPROVE: case F_TECH: case F_TRADE:
            handle_play(f); return;
        default:
            handle_turn(f); return;
    }
}

void Machine::resume(const Frame& f, int a) {
    switch (f.op) {
        case F_PICK: pick_resume(f, a); return;
        case F_DISCARD: do_discard(f, a - t.card0); return;
        case F_CHOICE: {
            int eid = f.a[0];
            int row = t.effects(eid, EF_OPTIONS_START) + (a - t.option0);
            ev(EV_OPTION, {f.a[1], eid, a - t.option0});
            push_effects(t.options(row, OF_EFF_START), t.options(row, OF_EFF_LEN), f.a[1]);
            return;
        }
        case F_SPEND: case F_PLAY: case F_MODE: case F_ORDER: case F_AI_EVENT: case F_AI_ACTION:
        case F_PAY: case F_OPS_MODE: case F_PLACE: case F_REALIGN: case F_TRADE:
            resume_play(f, a); return;
        default:
            resume_turn(f, a); return;
    }
}

void Machine::check_ukraine() {
    int c = controller_of(t.ukraine);
    if (c != C_CHINA && c != C_ANTI_US) activate_rw();
}

void Machine::activate_rw() {
    s.misc[M_RW_STATE] = RW_ACTIVE;
    s.misc[M_RW_K] = 1;
    s.misc[M_RW_ADDED] = 0;
    ev(EV_RUSSIA_UKRAINE, {1, 1, 0});
}

int Machine::roll() {
    int d;
    if (s.n_forced > 0) {
        d = s.forced[0];
        std::memmove(s.forced, s.forced + 1, sizeof(int32_t) * size_t(s.n_forced - 1));
        s.forced[--s.n_forced] = 0;
    } else {
        d = below(6, 0) + 1;
    }
    if (trace) trace->insert(trace->end(), {0, d});
    return d;
}

int Machine::below(int n, int stream) {
    if (n <= 0) throw EngineError("below() needs n > 0");
    return int(splitmix_below(s.rng[stream], uint64_t(n)));
}

int Machine::hand(int p, int* out) const {
    int k = 0, loc = HAND_USA + p;
    for (int i = 0; i < t.nc; ++i)
        if (s.card_loc[i] == loc) out[k++] = i;
    return k;
}

bool Machine::hand_any(int p) const {
    int loc = HAND_USA + p;
    for (int i = 0; i < t.nc; ++i)
        if (s.card_loc[i] == loc) return true;
    return false;
}

// ------------------------------------------------------------ tracks
int Machine::track_max(int tr) const {
    if (tr == SOCIAL || tr == SOCIAL + 1) return t.S(S_SOCIAL_MAX);
    if (tr == ECONOMY || tr == ECONOMY + 1) return t.S(S_ECONOMY_MAX);
    if (tr == DIPLOMACY || tr == SECURITY) return 3;
    if (tr == RUSSIA) return t.S(S_N_RUSSIA);
    return tr == TECH ? t.S(S_N_TECH_USA) : t.S(S_N_TECH_CHINA);
}

void Machine::move_track(int tr, int delta, int cause, int cid) {
    int old = s.tracks[tr];
    int lo = (tr == RUSSIA || tr == TECH || tr == TECH + 1) ? 0 : 1;
    int nw = std::min(std::max(old + delta, lo), track_max(tr));
    if (nw == old) return;
    s.tracks[tr] = int16_t(nw);
    ev(EV_TRACK, {tr, old, nw, cause, cid});
    if ((tr == SOCIAL || tr == SOCIAL + 1 || tr == ECONOMY || tr == ECONOMY + 1) && nw == 1) {
        s.misc[M_COLLAPSE + (tr % 2)] = 1;
        s.misc[M_END_FLAG] = 1;
    } else if (tr == DIPLOMACY && nw == 1) {
        s.misc[M_DIPLO_LOSER] = s.misc[M_RESPONSIBLE] + 1;
        s.misc[M_END_FLAG] = 1;
    } else if (tr == RUSSIA && nw > old) {
        if (s.misc[M_RUSSIA_DEFERRED]) {  // R22
            s.misc[M_RUSSIA_DEFERRED] += nw - old;
            return;
        }
        push_russia_boxes(old + 1, nw);
    } else if (tr == TECH || tr == TECH + 1) {
        // A tech box pays once per game: re-entering a box left backwards pays nothing.
        int p = tr - TECH;
        const Table& boxes = p == USA ? t.tech_usa : t.tech_china;
        int paid = int(std::max<int64_t>(s.misc[M_TECH_PAID + p], old));
        s.misc[M_TECH_PAID + p] = std::max(paid, nw);
        for (int lvl = nw; lvl > std::max(old, paid); --lvl) {
            push_effects(boxes(lvl - 1, BF_EFF_START), boxes(lvl - 1, BF_EFF_LEN), p, SRC_TRACK);
            push1(mk(F_LOG, 0, p, lvl - 1));
        }
    }
}

void Machine::push_russia_boxes(int first, int last) {
    for (int lvl = last; lvl >= first; --lvl) {
        push_effects(t.russia_boxes(lvl - 1, BF_EFF_START), t.russia_boxes(lvl - 1, BF_EFF_LEN),
                     CHINA, SRC_TRACK);
        push1(mk(F_LOG, 1, 0, lvl - 1));
    }
}

void Machine::check_end() {
    s.misc[M_END_FLAG] = 0;
    if (s.over) return;
    int reason[2] = {0, 0};
    for (int p = 0; p < 2; ++p)
        if (s.misc[M_COLLAPSE + p]) reason[p] = R_COLLAPSE;
    if (s.misc[M_DIPLO_LOSER]) {
        int loser = int(s.misc[M_DIPLO_LOSER]) - 1;
        if (!reason[loser]) reason[loser] = R_DIPLOMACY;
    }
    if (reason[0] && reason[1]) {
        finish(-1, R_BOTH_LOST, reason[0], reason[1]);
    } else if (reason[0] || reason[1]) {
        int loser = reason[0] ? USA : CHINA;
        finish(1 - loser, reason[loser], loser);
    }
}

void Machine::finish(int winner, int code, int x, int y, int z) {
    s.has_result = 1;
    s.result[0] = winner; s.result[1] = code; s.result[2] = x; s.result[3] = y; s.result[4] = z;
    s.over = 1;
    s.depth = 0;
    s.has_pending = 0;
    s.misc[M_PHASE] = P_OVER;
    ev(EV_GAME_END, {winner, code, x, y, z});
}

// ------------------------------------------------------------ cards
int Machine::modified_ops(int card, int p, bool next_plus) const {
    int printed = t.cards(card, CD_OPS);
    return printed == 0 ? 0 : ops_for(printed, p, next_plus);
}

int Machine::ops_for(int printed, int p, bool next_plus) const {
    int down = 0, up = 0;
    for (int k = 0; k < t.ops_mod.rows; ++k) {
        if (s.card_loc[t.ops_mod(k, 0)] == IN_PLAY) {
            int d = t.ops_mod(k, 1 + p);
            if (d < 0) down += d; else up += d;
        }
    }
    if (next_plus) up += 1;
    return std::min(std::max(std::max(printed + down, 1) + up, 1), 4);
}

bool Machine::can_happen(int card, int executor) const {
    if (t.cards(card, CD_BANNED) || (t.cards(card, CD_PERSISTENT) && s.card_loc[card] == IN_PLAY))
        return false;
    int ps = t.cards(card, CD_PREV_START), pl = t.cards(card, CD_PREV_LEN);
    for (int k = 0; k < pl; ++k)
        if (s.card_loc[t.pool(ps + k)] == IN_PLAY) return false;
    return holds_all(t.cards(card, CD_REQ_START), t.cards(card, CD_REQ_LEN), executor, card);
}

bool Machine::holds_all(int start, int len, int executor, int playing) const {
    for (int k = 0; k < len; ++k)
        if (!holds(t.pool(start + k), executor, playing)) return false;
    return true;
}

bool Machine::holds(int ci, int executor, int playing) const {
    const Table& C = t.conds;
    int side = C(ci, CF_SIDE) < 0 ? -1 : rel_side(C(ci, CF_SIDE), executor);
    int x;
    if ((x = C(ci, CF_IN_PLAY)) >= 0 && s.card_loc[x] != IN_PLAY) return false;
    if ((x = C(ci, CF_NOT_IN_PLAY)) >= 0 && s.card_loc[x] == IN_PLAY) return false;
    if ((x = C(ci, CF_EVENT_PLAYED)) >= 0 && !s.event_played[x]) return false;
    if ((x = C(ci, CF_EVENT_NOT_PLAYED)) >= 0 && s.event_played[x]) return false;
    if (s.misc[M_TURN] < C(ci, CF_TURN_MIN)) return false;
    if (s.misc[M_TURN] > C(ci, CF_TURN_MAX)) return false;
    if ((x = C(ci, CF_CONTROLS)) >= 0) {
        int code = controller_of(x);
        bool ok = side == USA ? code == C_USA : (code == C_CHINA || code == C_ANTI_US);
        if (!ok) return false;
    }
    if ((x = C(ci, CF_HAND_MIN_OPS)) >= 0) {
        bool any = false;
        int loc = HAND_USA + side;
        for (int i = 0; i < t.nc && !any; ++i)
            any = s.card_loc[i] == loc && t.cards(i, CD_OPS) >= x && i != playing;
        if (!any) return false;
    }
    bool has_value = false;
    long value = 0;
    if (C(ci, CF_TRACK) >= 0) {
        value = s.tracks[track_index(C(ci, CF_TRACK), side)];
        has_value = true;
    } else if (C(ci, CF_COUNT) >= 0) {
        value = select(C(ci, CF_COUNT), executor).count();
        has_value = true;
    }
    if (has_value && (value < C(ci, CF_MIN) || value > C(ci, CF_MAX))) return false;
    return true;
}

}  // namespace evenstar
