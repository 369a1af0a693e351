// Effect primitives of the card vocabulary (evenstar_env/engine/effects.py).
#include <algorithm>

#include "engine.h"

namespace evenstar {

namespace {

int chooser(const Tables& t, int eid, int kind, int executor) {
    int ch = t.effects(eid, EF_CHOOSER);
    if (ch >= 0) return rel_side(ch, executor);
    int owner = kind == K_USA_ ? USA : CHINA;
    return t.effects(eid, EF_OP) == E_ADD_INFLUENCE ? owner : 1 - owner;  // R16, R17
}

}  // namespace

void Machine::run_effect(int eid, int executor) {
    const Table& E = t.effects;
    int op = E(eid, EF_OP);
    switch (op) {
        case E_ADD_INFLUENCE:
        case E_REDUCE_INFLUENCE: {
            int kind = kind_code(E(eid, EF_KIND), executor);
            CSet mask = select(E(eid, EF_WHERE), executor);
            if (op == E_REDUCE_INFLUENCE) mask = mask & has_kind(kind);
            Frame f = mk(F_PICK, eid, executor, kind, E(eid, EF_POINTS));
            f.flags = 1;
            f.set = mask;
            push1(f);
            return;
        }
        case E_REMOVE_ALL_INFLUENCE: {
            int kind = kind_code(E(eid, EF_KIND), executor);
            select(E(eid, EF_WHERE), executor).each([&](int i) {
                remove_influence(i, kind, CA_EFFECT, eid);
            });
            return;
        }
        case E_EACH_COUNTRY: {
            int kind = kind_code(E(eid, EF_KIND), executor), pts = E(eid, EF_POINTS);
            select(E(eid, EF_WHERE), executor).each([&](int i) {
                influence(i, kind, pts, CA_EFFECT, eid);
            });
            return;
        }
        case E_VP:
            add_vp(rel_side(E(eid, EF_SIDE), executor), E(eid, EF_AMOUNT), -1, CA_EFFECT, eid);
            return;
        case E_RESERVES: {
            int p = rel_side(E(eid, EF_SIDE), executor);
            set_reserves(p, std::max(s.reserves[p] + E(eid, EF_AMOUNT), 0), CA_EFFECT, eid);
            return;
        }
        case E_TRACK: {
            int side = E(eid, EF_SIDE) < 0 ? -1 : rel_side(E(eid, EF_SIDE), executor);
            move_track(track_index(E(eid, EF_TRACK), side), E(eid, EF_DELTA), CA_EFFECT, eid);
            return;
        }
        case E_DRAW: {
            int p = rel_side(E(eid, EF_SIDE), executor);
            for (int k = 0; k < E(eid, EF_COUNT); ++k) draw_cards(p, 1);
            return;
        }
        case E_DISCARD:
            push1(mk(F_DISCARD, eid, executor, rel_side(E(eid, EF_SIDE), executor),
                     E(eid, EF_COUNT)));
            return;
        case E_REVEAL_HAND: {
            int p = rel_side(E(eid, EF_SIDE), executor);
            for (int i = 0; i < t.nc; ++i) s.revealed[p][i] = s.card_loc[i] == HAND_USA + p;
            if (events)
                for (int i = 0; i < t.nc; ++i)
                    if (s.revealed[p][i]) ev(EV_REVEAL, {p, i});
            return;
        }
        case E_NEXT_CARD: {
            int p = rel_side(E(eid, EF_SIDE), executor);
            s.misc[E(eid, EF_SLOT) + p] = 1;
            ev(EV_NEXT_CARD, {p, (E(eid, EF_SLOT) - M_NEXT_OPS) / 2});
            return;
        }
        case E_CANCEL: {
            int i = E(eid, EF_CARD);
            if (s.card_loc[i] == IN_PLAY) {
                s.card_loc[i] = REMOVED;  // it leaves the game (rules 2.1)
                ev(EV_CANCEL, {i});
            }
            return;
        }
        case E_SCORE: {
            score(E(eid, EF_ROW), CA_EFFECT, eid);
            return;
        }
        case E_NON_REALIGNABLE: {
            uint8_t v = uint8_t(E(eid, EF_VALUE));
            CSet where = select(E(eid, EF_WHERE), executor);
            where.each([&](int i) { s.non_realignable[i] = v; });
            ev(EV_NON_REALIGNABLE, {eid, v, where.count()});
            return;
        }
        case E_CHOICE:
            push1(mk(F_CHOICE, eid, executor));
            return;
        case E_ROLL: {
            int die = roll();
            int per = E(eid, EF_MODIFIER_PER) >= 0 ? select(E(eid, EF_MODIFIER_PER), executor).count() : 0;
            int total = die + E(eid, EF_MODIFIER) + per;
            for (int k = 0; k < E(eid, EF_OUTCOMES_LEN); ++k) {
                int row = E(eid, EF_OUTCOMES_START) + k;
                if (total <= t.outcomes(row, OC_MAX)) {
                    ev(EV_ROLL, {rel_side(E(eid, EF_SIDE), executor), eid, die, E(eid, EF_MODIFIER),
                                 per, total, k});
                    push_effects(t.outcomes(row, OC_EFF_START), t.outcomes(row, OC_EFF_LEN),
                                 executor);
                    return;
                }
            }
            ev(EV_ROLL, {rel_side(E(eid, EF_SIDE), executor), eid, die, E(eid, EF_MODIFIER), per,
                         total, -1});
            return;
        }
        case E_IF: {
            bool ok = holds_all(E(eid, EF_COND_START), E(eid, EF_COND_LEN), executor);
            if (ok) push_effects(E(eid, EF_THEN_START), E(eid, EF_THEN_LEN), executor);
            else push_effects(E(eid, EF_ELSE_START), E(eid, EF_ELSE_LEN), executor);
            return;
        }
        case E_HISTORY_EVENT:
            push1(mk(F_HISTORY, E(eid, EF_CARD), 0));
            return;
        case E_OPS_ACTION: {
            int p = rel_side(E(eid, EF_SIDE), executor);
            Frame f = mk(F_OPS_MODE, p, ops_for(E(eid, EF_OPS), p));
            int ms = E(eid, EF_MODES_START), ml = E(eid, EF_MODES_LEN);
            if (ml > MAXSEQ) throw EngineError("too many modes for a native frame");
            f.nseq = uint8_t(ml);
            for (int k = 0; k < ml; ++k) f.seq[k] = uint8_t(t.pool(ms + k));
            if (E(eid, EF_WHERE) >= 0) {
                f.flags = 1;
                f.set = select(E(eid, EF_WHERE), executor);
            }
            push1(f);
            return;
        }
        case E_RUSSIA_UKRAINE_WAR:
            if (s.misc[M_RW_STATE] == RW_NONE) {
                s.misc[M_RW_STATE] = RW_WAITING;
                ev(EV_RUSSIA_UKRAINE, {0, 0, 0});
                check_ukraine();
            }
            return;
        case E_REPLACE_INFLUENCE: {
            int add_kind = kind_code(E(eid, EF_ADD), executor);
            int rs = E(eid, EF_REMOVE_START), rl = E(eid, EF_REMOVE_LEN);
            select(E(eid, EF_WHERE), executor).each([&](int i) {
                int total = 0;
                for (int k = 0; k < rl; ++k) {
                    int kd = kind_code(t.pool(rs + k), executor);
                    total += amount(i, kd);
                    remove_influence(i, kd, CA_EFFECT, eid);
                }
                if (total) influence(i, add_kind, total, CA_EFFECT, eid);
            });
            return;
        }
        case E_WAR: {
            int p = rel_side(E(eid, EF_SIDE), executor);
            int tg = E(eid, EF_TARGET);
            int us = 0, cn = 0;
            t.adj_set[tg].each([&](int i) {
                int c = controller_of(i);
                if (c == C_USA) us++;
                if (c == C_CHINA || c == C_ANTI_US) cn++;  // 2.1.8.3
            });
            int own = p == USA ? us : cn, enemy = p == USA ? cn : us;
            int die = roll();
            int total = die + own - enemy;
            bool won = total >= E(eid, EF_WIN_ON);
            ev(EV_WAR, {p, tg, die, own, enemy, total, E(eid, EF_WIN_ON), won});
            move_track(SECURITY, -E(eid, EF_SECURITY_LOSS), CA_EFFECT, eid);
            if (won) push_effects(E(eid, EF_SUCC_START), E(eid, EF_SUCC_LEN), executor);
            else push_effects(E(eid, EF_FAIL_START), E(eid, EF_FAIL_LEN), executor);
            return;
        }
        default:
            throw EngineError("effect op not ported to the native core: " + std::to_string(op));
    }
}

// ------------------------------------------------------------ pick (influence)
// Frame: a = (eid, executor, kind, left), set = cands, seq = chosen.
void Machine::pick(const Frame& f) {
    const Table& E = t.effects;
    int eid = f.a[0], kind = f.a[2];
    bool reducing = E(eid, EF_OP) == E_REDUCE_INFLUENCE;
    int cap = E(eid, EF_PER_COUNTRY), maxc = E(eid, EF_MAX_COUNTRIES);
    bool lump = E(eid, EF_LUMP) > 0;
    int counts[MAXN] = {0};
    int distinct = 0;
    for (int k = 0; k < f.nseq; ++k)
        if (counts[f.seq[k]]++ == 0) distinct++;
    bool full = maxc >= 0 && distinct >= maxc;
    int legal[MAXN], nl = 0;
    f.set.each([&](int i) {
        if (full && !counts[i]) return;
        if (cap >= 0 && (lump ? counts[i] > 0 : counts[i] >= cap)) return;
        if (reducing && kind != K_USA_ && amount(i, kind) <= 0) return;
        legal[nl++] = t.country0 + i;
    });
    if (!nl) return;
    int who = chooser(t, eid, kind, f.a[1]);
    ask(f, who, K_INFLUENCE, legal, nl, reducing ? 1 : 0, kind, f.a[3], eid);
}

void Machine::pick_resume(const Frame& f, int a) {
    const Table& E = t.effects;
    int eid = f.a[0], kind = f.a[2], left = f.a[3];
    int i = a - t.country0;
    int cap = E(eid, EF_PER_COUNTRY);
    int pts = (E(eid, EF_LUMP) > 0 && cap > 0) ? std::min(cap, left) : 1;
    influence(i, kind, E(eid, EF_OP) == E_ADD_INFLUENCE ? pts : -pts, CA_EFFECT, eid);
    if (left - pts > 0) {
        Frame g = f;
        g.a[3] = int16_t(left - pts);
        if (g.nseq >= MAXSEQ) throw EngineError("pick: too many picks for a native frame");
        g.seq[g.nseq++] = uint8_t(i);
        push1(g);
    }
}

// ------------------------------------------------------------ cards
int Machine::draw_cards(int p, int k) {
    int pile[MAXC], np = 0, drawn = 0;
    while (drawn < k) {
        if (np == 0) {
            for (int i = 0; i < t.nc; ++i)
                if (s.card_loc[i] == DRAW) pile[np++] = i;
            if (np == 0) {
                for (int i = 0; i < t.nc; ++i)
                    if (s.card_loc[i] == DISCARD) {  // reshuffled: no longer known (R20)
                        s.card_loc[i] = DRAW;
                        s.revealed[0][i] = s.revealed[1][i] = 0;
                    }
                for (int i = 0; i < t.nc; ++i)
                    if (s.card_loc[i] == DRAW) pile[np++] = i;
                if (np == 0) break;
                ev(EV_RESHUFFLE, {np});
            }
        }
        int j = below(np, 1);
        int card = pile[j];
        for (int q = j; q < np - 1; ++q) pile[q] = pile[q + 1];
        np--;
        s.card_loc[card] = int8_t(HAND_USA + p);
        ev(EV_DRAW, {p, card});
        if (trace) trace->insert(trace->end(), {1, card});
        drawn++;
    }
    return drawn;
}

// Frame: a = (eid, executor, p, left).
void Machine::discard(const Frame& f) {
    int eid = f.a[0], p = f.a[2], left = f.a[3];
    int minops = t.effects(eid, EF_MIN_OPS);
    int cards[MAXC], nc = 0, loc = HAND_USA + p;
    for (int i = 0; i < t.nc; ++i)
        if (s.card_loc[i] == loc && t.cards(i, CD_OPS) >= minops) cards[nc++] = t.card0 + i;
    if (!nc || left <= 0) return;
    if (t.effects(eid, EF_RANDOM) > 0) {
        do_discard(f, cards[below(nc, 2)] - t.card0);
        return;
    }
    int who = t.effects(eid, EF_CHOOSER) < 0 ? p : chooser(t, eid, -1, f.a[1]);
    ask(f, who, K_DISCARD, cards, nc, p);
}

void Machine::do_discard(const Frame& f, int card) {
    s.card_loc[card] = DISCARD;  // 5.4
    ev(EV_DISCARD, {f.a[2], card, CA_EFFECT, f.a[0]});
    if (f.a[3] > 1) {
        Frame g = f;
        g.a[3] = int16_t(f.a[3] - 1);
        push1(g);
    }
}

// Frame: a = (eid, executor).
void Machine::choice(const Frame& f) {
    int eid = f.a[0], executor = f.a[1];
    int legal[N_OPTIONS], nl = 0;
    int n = std::min(t.effects(eid, EF_OPTIONS_LEN), N_OPTIONS);
    for (int j = 0; j < n; ++j) {
        int row = t.effects(eid, EF_OPTIONS_START) + j;
        if (holds_all(t.options(row, OF_REQ_START), t.options(row, OF_REQ_LEN), executor))
            legal[nl++] = t.option0 + j;
    }
    if (!nl) return;
    ask(f, rel_side(t.effects(eid, EF_CHOOSER), executor), K_OPTION, legal, nl, eid);
}

}  // namespace evenstar
