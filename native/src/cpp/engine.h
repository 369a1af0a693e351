// The native Evenstar engine: the same frame machine as evenstar_env/engine, in C++17.
//
// State is one POD struct (clone = copy); tables are the flat int32 arrays exported
// by evenstar_env/native/export.py.  Every function mirrors a Python function of the
// same name (machine.py, board.py, effects.py, play.py, turn.py) and must stay
// bit-identical with it: same random streams, same frame order, same legal actions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "names_gen.h"

namespace evenstar {

constexpr int MAXN = 128;       // countries
constexpr int MAXC = 160;       // cards
constexpr int MAXH = 64;        // history cards
constexpr int MAXSP = 8;        // spare scoring cards
constexpr int MAXVP = 16;       // VP-source columns
constexpr int MAXSTACK = 128;   // frames
constexpr int MAXLEGAL = 256;   // legal actions of one decision
constexpr int MAXFORCED = 64;   // forced dice
constexpr int MAXSEQ = 16;      // ordered small tuples in a frame
constexpr int N_MISC = 42;
constexpr int ABI_VERSION = 6;  // 3: the observation encoder (obs_* tables); 4: resample, agents, search; 5: scoring_held/due; 6: the event stream

// ---------------------------------------------------------------- constants.py
enum { USA = 0, CHINA = 1, NEUTRAL = 2 };
enum { DRAW, HAND_USA, HAND_CHINA, DISCARD, REMOVED, IN_PLAY, OUT, HEADLINE_USA,
       HEADLINE_CHINA, PLAYING };
enum { H_OUT, H_DECK, H_DONE, H_DRAWN };
enum { SOCIAL = 0, ECONOMY = 2, DIPLOMACY = 4, SECURITY = 5, RUSSIA = 6, TECH = 7 };
enum { NOBODY, C_USA, C_CHINA, C_ANTI_US };
enum { M_TURN, M_PHASE, M_ROUND, M_PHASING, M_RESPONSIBLE, M_HAND_SIZE, M_1, M_IMPROVE_LEFT,
       M_2, M_TECH_DONE, M_3, M_TRADE_DONE, M_4, M_DISCARD_RIGHT, M_5, M_ROUND8, M_6,
       M_RW_STATE, M_RW_K, M_RW_ADDED, M_NEXT_OPS, M_7, M_NEXT_NO_EVENT, M_8, M_NEXT_BOTH, M_9,
       M_MOD, M_10, M_HEADLINE, M_11, M_END_FLAG, M_COLLAPSE, M_12, M_DIPLO_LOSER,
       M_DECISIONS, M_VP_SOURCE, M_RUSSIA_DEFERRED, M_RESOLVING, M_HIST_DRAWN, M_13, M_TECH_PAID, M_14 };
enum { RW_NONE, RW_WAITING, RW_ACTIVE };
enum { P_SETUP, P_HISTORY, P_DEAL, P_HEADLINE, P_ACTION, P_ECONOMY, P_SCORING, P_FINAL,
       P_IMPROVE, P_RUSSIA_UKRAINE, P_OVER };
enum { MODE_EVENT, MODE_PLACE, MODE_REALIGN, MODE_SOCIAL, MODE_ECONOMY, MODE_TECH,
       MODE_TRADE, N_MODES };
enum { MOD_COUNTER = 5, N_MODIFIERS = 6 };
enum { SPEND_RUSSIA, SPEND_TECH, SPEND_DIPLOMACY, N_SPENDS };
constexpr int N_OPTIONS = 8;
enum { SRC_EVENT, SRC_HISTORY, SRC_TRACK, SRC_ECONOMY, SRC_UKRAINE_WAR, SRC_FINAL_SOCIAL,
       SRC_FINAL_ECONOMY };
// Influence kinds (board.py strings) and relative sides (machine._rel).
enum { K_USA_ = 0, K_CHINA_ = 1, K_ANTI_US_ = 2, K_OWN_ = 3, K_OTHER_ = 4 };
enum { R_SELF = 0, R_OPPONENT = 1, R_USA = 2, R_CHINA = 3 };
enum { T_SOCIAL, T_ECONOMY, T_DIPLOMACY, T_SECURITY, T_RUSSIA, T_TECH };
// Result reasons (machine.check_end, turn._scoring_held, turn._final); see frames.py.
enum { R_NONE, R_COLLAPSE, R_DIPLOMACY, R_BOTH_LOST, R_BOTH_HELD, R_HELD, R_EQUAL, R_MORE };

// ---------------------------------------------------------------- sets of countries
struct CSet {
    uint64_t w[2];
    bool has(int i) const { return (w[i >> 6] >> (i & 63)) & 1u; }
    void set(int i) { w[i >> 6] |= uint64_t(1) << (i & 63); }
    void clear(int i) { w[i >> 6] &= ~(uint64_t(1) << (i & 63)); }
    bool any() const { return (w[0] | w[1]) != 0; }
    int count() const { return __builtin_popcountll(w[0]) + __builtin_popcountll(w[1]); }
    CSet operator&(const CSet& o) const { return CSet{{w[0] & o.w[0], w[1] & o.w[1]}}; }
    CSet operator|(const CSet& o) const { return CSet{{w[0] | o.w[0], w[1] | o.w[1]}}; }
    CSet andnot(const CSet& o) const { return CSet{{w[0] & ~o.w[0], w[1] & ~o.w[1]}}; }
    // Ascending indices (numpy.flatnonzero order).
    template <class F> void each(F f) const {
        for (int k = 0; k < 2; ++k) {
            uint64_t x = w[k];
            while (x) {
                int b = __builtin_ctzll(x);
                f(k * 64 + b);
                x &= x - 1;
            }
        }
    }
};

// ---------------------------------------------------------------- frames
// One frame (a Python tuple): op, small ints a[], an ordered tuple seq[], a country set.
// The per-op meaning of the fields is FRAME_SCHEMA in evenstar_env/native/frames.py.
struct Frame {
    uint8_t op, aux, flags, nseq;   // aux: nested frame op (order, ai_event); flags bit0: set present
    int16_t a[6];
    uint8_t seq[MAXSEQ];
    CSet set;
};
static_assert(sizeof(Frame) == 48, "Frame layout is shared with frames.py");

inline Frame mk(int op, int a0 = 0, int a1 = 0, int a2 = 0, int a3 = 0) {
    Frame f{};
    f.op = uint8_t(op);
    f.a[0] = int16_t(a0); f.a[1] = int16_t(a1); f.a[2] = int16_t(a2); f.a[3] = int16_t(a3);
    return f;
}

// ---------------------------------------------------------------- state (state.py)
struct State {
    int16_t inf_us[MAXN];
    int16_t inf_cn[MAXN];
    int16_t tracks[16];
    uint8_t non_realignable[MAXN];
    int32_t vp[2];
    int32_t reserves[2];
    int8_t card_loc[MAXC];
    int8_t hist_loc[MAXH];
    uint8_t event_played[MAXC];
    int8_t event_side[MAXC];
    uint8_t revealed[2][MAXC];
    uint8_t spare_used[MAXSP];
    int32_t vp_source[2][MAXVP];
    int64_t misc[N_MISC];
    uint64_t rng[3];
    int32_t forced[MAXFORCED];
    int32_t n_forced;
    int32_t over;
    int32_t has_result;
    int32_t result[5];          // winner (-1: draw), reason code, three ints
    int32_t depth;
    int32_t has_pending;
    int32_t p_player;
    int32_t p_kind;
    int32_t p_nlegal;
    int32_t p_ctx[4];
    int32_t pad_;
    Frame p_frame;
    uint16_t p_legal[MAXLEGAL];
    Frame stack[MAXSTACK];
};

// ---------------------------------------------------------------- tables (export.py)
struct ObsTables;  // observation.h

struct Table {
    std::vector<int32_t> v;
    int rows = 0, cols = 1;
    int operator()(int r, int c = 0) const { return v[size_t(r) * cols + c]; }
};

struct Tables {
    Table scalars, effects, conds, selectors, sel_static, options, outcomes, cards, hist,
        russia_boxes, tech_usa, tech_china, social_zone, economy_zone, improve_attempts,
        improve_success, modifier_costs, modifier_values, era_turns, spare_turns, spare_rows,
        persistent, ops_mod, ctrl_stab, stab, has_stab, bg, au_ok, adj, adj_sp, trade_reach,
        region_matrix, subregion_matrix, region_values, pool, init_inf_us, init_inf_cn,
        init_non_realignable, init_tracks, init_reserves, init_card_loc, init_hist_loc,
        init_misc, init_stack;
    // Derived
    int n = 0, nc = 0, nh = 0, n_regions = 0, n_sub = 0, n_spare = 0, n_vp = 0;
    int taiwan = -1, india = -1, ukraine = -1;
    int card0 = 0, country0 = 0, mode0 = 0, order0 = 0, mod0 = 0, spend0 = 0, yes = 0, no = 0,
        option0 = 0, done = 0, n_actions = 0;
    std::vector<CSet> sel_mask;   // static part of each selector
    std::vector<CSet> adj_set;    // neighbours of each country
    CSet adj_sp_set[2], has_stab_set, trade_set[5], bg_set, au_set, region_set[MAXVP];
    State init{};
    std::shared_ptr<const ObsTables> obs;  // the observation encoder's tables (or none)

    int S(int k) const { return scalars(k); }
    void finish();  // derived members, checks
};

// ---------------------------------------------------------------- machine (machine.py)
struct EngineError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// One event record (evenstar_env/events.py): type, turn, round and the type's fields.
struct EventRec {
    int32_t type, turn, round;
    int32_t f[EV_NF];
};

struct Machine {
    const Tables& t;
    State& s;
    std::vector<int32_t>* trace = nullptr;  // chance outcomes (kind, value): 0 die, 1 draw
    std::vector<EventRec>* events = nullptr;  // the event stream, when it is on
    Machine(const Tables& tables, State& state) : t(tables), s(state) {}

    // events (machine.py ev and the recording helpers)
    void ev(int type, std::initializer_list<int> f) { if (events) ev_push(type, f); }
    void ev_push(int type, std::initializer_list<int> f);
    void influence(int i, int kind, int points, int cause, int cid = -1);
    void remove_influence(int i, int kind, int cause, int cid = -1);
    void influence_event(int i, int kind, int points, int us0, int cn0, int cause, int cid);
    void set_reserves(int p, int value, int cause, int cid = -1);
    void score(int row, int cause, int cid);
    void score_detail(int row, int out[12]) const;

    // running
    void push1(const Frame& f);
    void push(std::initializer_list<Frame> frames);
    void push_list(const Frame* frames, int k);  // first given runs first
    void push_effects(int start, int len, int executor, int source = -1);
    void add_vp(int p, int amount, int column, int cause, int cid = -1);
    int source_column(int source) const { return t.n_regions + t.n_sub + source; }
    void ask(const Frame& f, int player, int kind, const int* legal, int nlegal,
             int c0 = 0, int c1 = 0, int c2 = 0, int c3 = 0);
    void run();
    void apply(int action);
    void handle(const Frame& f);
    void resume(const Frame& f, int a);
    void check_ukraine();
    void activate_rw();
    int roll();
    int below(int n, int stream);
    int hand(int p, int* out) const;
    bool hand_any(int p) const;

    // tracks
    int track_max(int tr) const;
    void move_track(int tr, int delta, int cause, int cid = -1);
    void push_russia_boxes(int first, int last);
    void check_end();
    void finish(int winner, int code, int x = 0, int y = 0, int z = 0);

    // cards
    int modified_ops(int card, int p, bool next_plus = false) const;
    int ops_for(int printed, int p, bool next_plus = false) const;
    bool can_happen(int card, int executor) const;
    bool holds(int cond, int executor, int playing = -1) const;
    bool holds_all(int start, int len, int executor, int playing = -1) const;

    // board.py
    int controller_of(int i) const;
    CSet select(int sel, int executor) const;
    CSet placement_eligible(int p) const;
    int placement_cost(int p, int i) const;
    CSet realign_targets(int p) const;
    CSet trade_targets(int p, int ops) const;
    CSet has_kind(int kind) const;
    int amount(int i, int kind) const;
    void add(int i, int kind, int points);
    void reduce(int i, int kind, int points);
    void remove_all(int i, int kind);
    void score_row(int row, int& us, int& cn, const int* ctrl = nullptr) const;

    // effects.py
    void run_effect(int eid, int executor);
    void pick(const Frame& f);
    void pick_resume(const Frame& f, int a);
    void discard(const Frame& f);
    void do_discard(const Frame& f, int card);
    void choice(const Frame& f);
    int draw_cards(int p, int k);

    // play.py
    int executor_of(int card, int p) const;
    bool risks_total_war(int card, int p) const;
    int legal_modes(int p, int card, int ops, int* out) const;
    Frame action_frame(int p, int card, int mode, int ops);
    void fire_event(int card, int executor);
    void handle_play(const Frame& f);
    void resume_play(const Frame& f, int a);
    void realign(int p, int i, int ops);

    // turn.py
    void handle_turn(const Frame& f);
    void resume_turn(const Frame& f, int a);
};

inline int rel_side(int code, int executor) {
    switch (code) {
        case R_SELF: return executor;
        case R_OPPONENT: return 1 - executor;
        case R_USA: return USA;
        default: return CHINA;
    }
}

inline int kind_code(int kind, int executor) {
    if (kind == K_OWN_) return executor == USA ? K_USA_ : K_CHINA_;
    if (kind == K_OTHER_) return executor == USA ? K_CHINA_ : K_USA_;
    return kind;
}

inline int track_index(int code, int side) {
    switch (code) {
        case T_DIPLOMACY: return DIPLOMACY;
        case T_SECURITY: return SECURITY;
        case T_RUSSIA: return RUSSIA;
        default: break;
    }
    if (side < 0) throw EngineError("track needs a side");
    return (code == T_SOCIAL ? SOCIAL : code == T_ECONOMY ? ECONOMY : TECH) + side;
}

// SplitMix64 (rng.py)
inline uint64_t splitmix_next(uint64_t& state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

inline uint64_t splitmix_below(uint64_t& state, uint64_t n) {
    uint64_t limit = UINT64_MAX - ((UINT64_MAX % n) + 1) % n;
    for (;;) {
        uint64_t x = splitmix_next(state);
        if (x <= limit) return x % n;
    }
}

void setup_game(const Tables& t, State& s, const uint64_t rng[3]);  // the set-up board
void new_game(const Tables& t, State& s, const uint64_t rng[3]);    // ... run to a decision

}  // namespace evenstar
