// Action rounds: reserve spends, playing a card, the five actions (play.py; 5, 6, 7).
#include <algorithm>

#include "engine.h"

namespace evenstar {

int Machine::executor_of(int card, int p) const {
    int side = t.cards(card, CD_SIDE);
    return side == NEUTRAL ? p : side;
}

bool Machine::risks_total_war(int card, int p) const {
    int threat = t.cards(card, CD_THREAT);
    return threat > 0 && s.tracks[DIPLOMACY] - threat <= 1 && can_happen(card, executor_of(card, p));
}

int Machine::legal_modes(int p, int card, int ops, int* out) const {
    int k = 0;
    if (t.cards(card, CD_SCORING)) {
        out[k++] = MODE_EVENT;  // R4
        return k;
    }
    int side = t.cards(card, CD_SIDE);
    if ((side == p || side == NEUTRAL) && can_happen(card, p)) out[k++] = MODE_EVENT;
    out[k++] = MODE_PLACE;
    if (realign_targets(p).any()) out[k++] = MODE_REALIGN;
    int printed = t.cards(card, CD_OPS);
    if (printed >= 2 && s.misc[M_IMPROVE_LEFT + p] > 0) {
        if (s.tracks[SOCIAL + p] < t.S(S_SOCIAL_MAX)) out[k++] = MODE_SOCIAL;
        if (s.tracks[ECONOMY + p] < t.S(S_ECONOMY_MAX)) out[k++] = MODE_ECONOMY;
    }
    if (ops >= 2 && !s.misc[M_TECH_DONE + p]) {
        bool room = p == CHINA ? s.tracks[TECH + CHINA] < track_max(TECH + CHINA)
                               : s.tracks[SOCIAL + CHINA] > 1;
        if (room) out[k++] = MODE_TECH;
    }
    if (!s.misc[M_TRADE_DONE + p] && trade_targets(p, ops).any()) out[k++] = MODE_TRADE;
    return k;
}

Frame Machine::action_frame(int p, int card, int mode, int ops) {
    if (mode == MODE_PLACE) return mk(F_PLACE_START, p, ops);
    if (mode == MODE_REALIGN) return mk(F_REALIGN, p, ops);
    if (mode == MODE_TRADE) {
        s.misc[M_TRADE_DONE + p] = 1;
        return mk(F_TRADE, p, ops);
    }
    if (mode == MODE_TECH) {
        s.misc[M_TECH_DONE + p] = 1;
        return mk(F_TECH, p, card);
    }
    s.misc[M_IMPROVE_LEFT + p] -= 1;
    return mk(F_IMPROVE, p, mode == MODE_SOCIAL ? SOCIAL : ECONOMY, t.cards(card, CD_OPS));
}

namespace {

// An order / ai_event frame holds its action frame: aux = op, a[3..5] = its args.
Frame with_action(Frame f, const Frame& action) {
    f.aux = action.op;
    f.a[3] = action.a[0]; f.a[4] = action.a[1]; f.a[5] = action.a[2];
    return f;
}

Frame nested_action(const Frame& f) { return mk(f.aux, f.a[3], f.a[4], f.a[5]); }

bool allowed(const Frame& f, int i) { return !(f.flags & 1) || f.set.has(i); }

CSet allowed_mask(const Frame& f, CSet x) { return (f.flags & 1) ? (x & f.set) : x; }

}  // namespace

void Machine::handle_play(const Frame& f) {
    int legal[MAXLEGAL], nl = 0;
    switch (f.op) {
        case F_ROUND: {
            int r = f.a[0], p = f.a[1];
            s.misc[M_ROUND] = r;
            s.misc[M_PHASING] = p;
            s.misc[M_RESPONSIBLE] = p;
            if (!hand_any(p)) {
                ev(EV_SKIP, {p});
                return;
            }
            ev(EV_ROUND, {p});
            push({mk(F_SPEND, p), mk(F_PLAY, p)});
            return;
        }
        case F_SPEND: {
            int p = f.a[0], res = s.reserves[p];
            if (p == CHINA && res >= t.S(S_RUSSIA_PRICE) && s.tracks[RUSSIA] < track_max(RUSSIA))
                legal[nl++] = t.spend0 + SPEND_RUSSIA;
            int level = s.tracks[TECH + USA];
            if (p == USA && level < track_max(TECH) && res >= t.tech_usa(level, BF_PRICE))
                legal[nl++] = t.spend0 + SPEND_TECH;
            if (res >= t.S(S_DIP_PRICE) && s.tracks[DIPLOMACY] < 3)
                legal[nl++] = t.spend0 + SPEND_DIPLOMACY;
            if (nl) {
                legal[nl++] = t.done;
                ask(f, p, K_SPEND, legal, nl);
            }
            return;
        }
        case F_RUSSIA_STEP:
            move_track(RUSSIA, 1, CA_RUSSIA_CARD);
            return;
        case F_RUSSIA_DEFERRED: {
            int k = int(s.misc[M_RUSSIA_DEFERRED]);
            if (!k) return;
            s.misc[M_RUSSIA_DEFERRED] = k - 1;
            if (k > 1) push1(f);
            int level = s.tracks[RUSSIA] - k + 1;
            push_russia_boxes(level, level);
            return;
        }
        case F_PLAY: {
            int cards[MAXC];
            int n = hand(f.a[0], cards);
            for (int i = 0; i < n; ++i) legal[i] = t.card0 + cards[i];
            if (n) ask(f, f.a[0], K_CARD, legal, n);
            return;
        }
        case F_MODE: {
            int p = f.a[0], card = f.a[1];
            int ops = modified_ops(card, p, s.misc[M_NEXT_OPS + p] != 0);
            int modes[N_MODES];
            int n = legal_modes(p, card, ops, modes);
            for (int i = 0; i < n; ++i) legal[i] = t.mode0 + modes[i];
            ask(f, p, K_MODE, legal, n, card, ops);
            return;
        }
        case F_ORDER: {
            int l[2] = {t.order0, t.order0 + 1};
            ask(f, f.a[0], K_ORDER, l, 2, f.a[1]);
            return;
        }
        case F_AI_EVENT: {
            int l[3] = {t.order0, t.order0 + 1, t.no};
            ask(f, f.a[0], K_AI_EVENT, l, 3, f.a[1]);
            return;
        }
        case F_AI_ACTION: {
            int p = f.a[0], card = f.a[1], ops = f.a[2];
            int modes[N_MODES];
            int n = legal_modes(p, card, ops, modes);
            for (int i = 0; i < n; ++i)
                if (modes[i] != MODE_EVENT && modes[i] != MODE_TECH) legal[nl++] = t.mode0 + modes[i];
            legal[nl++] = t.no;
            ask(f, p, K_AI_ACTION, legal, nl, card, ops);
            return;
        }
        case F_EVENT: {
            int card = f.a[0], executor = f.a[1], p = f.a[2];
            if (!can_happen(card, executor)) {
                ev(EV_EVENT_BLOCKED, {card});
                return;
            }
            if (t.cards(card, CD_PAY_DISCARD)) push1(mk(F_PAY, card, executor, p));
            else fire_event(card, executor);
            return;
        }
        case F_PAY: {  // 5.3: the owner discards a card of >= pay_discard printed ops
            int card = f.a[0], executor = f.a[1], p = f.a[2];
            int cards[MAXC], nc = hand(executor, cards), need = t.cards(card, CD_PAY_DISCARD);
            for (int k = 0; k < nc; ++k)
                if (t.cards(cards[k], CD_OPS) >= need) legal[nl++] = t.card0 + cards[k];
            if (!nl) {
                ev(EV_EVENT_BLOCKED, {card});
                return;
            }
            if (p != executor) legal[nl++] = t.no;
            ask(f, executor, K_DISCARD, legal, nl, executor, card + 1);
            return;
        }
        case F_CARD_DONE:
            if (s.card_loc[f.a[0]] == PLAYING) {
                s.card_loc[f.a[0]] = DISCARD;
                ev(EV_DISCARD, {-1, f.a[0], CA_PLAYED, -1});
            }
            return;
        case F_OPS_MODE: {
            int p = f.a[0], ops = f.a[1];
            for (int k = 0; k < f.nseq; ++k) {
                int mode = f.seq[k];
                CSet x = mode == MODE_PLACE ? placement_eligible(p)
                         : mode == MODE_REALIGN ? realign_targets(p) : trade_targets(p, ops);
                if (allowed_mask(f, x).any()) legal[nl++] = t.mode0 + mode;
            }
            if (nl) ask(f, p, K_GRANTED, legal, nl, ops);
            return;
        }
        case F_PLACE_START: {
            int p = f.a[0];
            Frame g = mk(F_PLACE, p, f.a[1]);
            g.flags = 1;
            g.set = allowed_mask(f, placement_eligible(p));
            push1(g);
            return;
        }
        case F_PLACE: {
            int p = f.a[0], left = f.a[1];
            f.set.each([&](int i) {
                if (left >= 2 || placement_cost(p, i) == 1) legal[nl++] = t.country0 + i;
            });
            if (nl) ask(f, p, K_PLACE, legal, nl, left);
            return;
        }
        case F_REALIGN: {
            int p = f.a[0];
            allowed_mask(f, realign_targets(p)).each([&](int i) { legal[nl++] = t.country0 + i; });
            if (nl) ask(f, p, K_REALIGN, legal, nl, f.a[1]);
            return;
        }
        case F_IMPROVE: {
            int p = f.a[0], tr = f.a[1], printed = f.a[2];
            int die = roll();
            int need = t.improve_success(std::min(printed, 4));
            ev(EV_IMPROVE, {p, tr + p, printed, die, need, die <= need});
            if (die <= need) move_track(tr + p, 1, CA_IMPROVE);
            return;
        }
        case F_TECH: {
            int p = f.a[0], card = f.a[1];
            int die = roll();
            if (p == CHINA) {
                int need = t.cards(card, CD_SIDE) == USA ? 3 : 4;
                ev(EV_TECH, {p, card, die, need, die <= need});
                if (die <= need) move_track(TECH + CHINA, 1, CA_TECH_RACE, card);
            } else {
                int level = s.tracks[SOCIAL + CHINA];
                int z1 = t.social_zone(level, SZ_ZONE);
                int z0 = level - 1 >= 0 ? t.social_zone(level - 1, SZ_ZONE) : -2;
                int need = (z1 == z0 && z1 >= 0) || (z1 < 0 && z0 < 0) ? 3 : 2;
                ev(EV_TECH, {p, card, die, need, die <= need});
                if (die <= need) move_track(SOCIAL + CHINA, -1, CA_SABOTAGE, card);
            }
            s.card_loc[card] = DISCARD;
            ev(EV_DISCARD, {-1, card, CA_PLAYED, -1});
            return;
        }
        case F_TRADE: {
            int p = f.a[0];
            allowed_mask(f, trade_targets(p, f.a[1])).each([&](int i) { legal[nl++] = t.country0 + i; });
            if (nl) ask(f, p, K_TRADE, legal, nl, f.a[1]);
            return;
        }
        default:
            throw EngineError("frame op not ported to the native core: " + std::to_string(f.op));
    }
    (void)allowed;
}

void Machine::fire_event(int card, int executor) {
    s.event_played[card] = 1;
    s.event_side[card] = int8_t(executor);
    if (t.cards(card, CD_PERSISTENT)) s.card_loc[card] = IN_PLAY;
    else if (t.cards(card, CD_REMOVED)) s.card_loc[card] = REMOVED;
    ev(EV_EVENT, {card, executor, s.card_loc[card]});
    push_effects(t.cards(card, CD_EFF_START), t.cards(card, CD_EFF_LEN), executor, SRC_EVENT);
}

void Machine::resume_play(const Frame& f, int a) {
    switch (f.op) {
        case F_PAY:
            if (a == t.no) {
                ev(EV_NO_PAY, {f.a[1], f.a[0]});
                return;
            }
            s.card_loc[a - t.card0] = DISCARD;  // 5.4: a discarded card's event does not happen
            ev(EV_DISCARD, {f.a[1], a - t.card0, CA_PAY, f.a[0]});
            fire_event(f.a[0], f.a[1]);
            return;
        case F_SPEND: {
            int p = f.a[0];
            if (a == t.done) return;
            int what = a - t.spend0;
            push1(f);  // ask again after this spend
            if (what == SPEND_RUSSIA) {
                set_reserves(p, s.reserves[p] - t.S(S_RUSSIA_PRICE), CA_SPEND, what);
                if (!s.misc[M_RUSSIA_DEFERRED]) {  // R22: stack.insert(len - 2, ...)
                    int idx = s.depth - 2;
                    if (idx < 0) idx = 0;
                    if (s.depth >= MAXSTACK) throw EngineError("native frame stack overflow");
                    for (int k = s.depth; k > idx; --k) s.stack[k] = s.stack[k - 1];
                    s.stack[idx] = mk(F_RUSSIA_DEFERRED);
                    s.depth++;
                }
                s.misc[M_RUSSIA_DEFERRED] += 1;
                s.tracks[RUSSIA] += 1;
                ev(EV_TRACK, {RUSSIA, s.tracks[RUSSIA] - 1, s.tracks[RUSSIA], CA_SPEND, what});
            } else if (what == SPEND_TECH) {
                set_reserves(p, s.reserves[p] - t.tech_usa(s.tracks[TECH], BF_PRICE), CA_SPEND, what);
                move_track(TECH + USA, 1, CA_SPEND, what);  // R11
            } else {
                set_reserves(p, s.reserves[p] - t.S(S_DIP_PRICE), CA_SPEND, what);
                move_track(DIPLOMACY, 1, CA_SPEND, what);
            }
            return;
        }
        case F_PLAY:
            push1(mk(F_MODE, f.a[0], a - t.card0));
            return;
        case F_MODE: {
            int p = f.a[0], card = f.a[1];
            int mode = a - t.mode0;
            bool scoring = t.cards(card, CD_SCORING) != 0;
            bool plus = false, no_event = false, both = false;
            if (!scoring) {
                plus = s.misc[M_NEXT_OPS + p] != 0;
                no_event = s.misc[M_NEXT_NO_EVENT + p] != 0;
                both = s.misc[M_NEXT_BOTH + p] != 0;
                s.misc[M_NEXT_OPS + p] = s.misc[M_NEXT_NO_EVENT + p] = s.misc[M_NEXT_BOTH + p] = 0;
            }
            int ops = modified_ops(card, p, plus);
            s.card_loc[card] = PLAYING;
            ev(EV_PLAY, {p, card, mode, ops});
            Frame frames[5];
            int nf = 0;
            int executor = executor_of(card, p);
            Frame tail[2];
            int nt = 0;
            tail[nt++] = mk(F_CARD_DONE, card);
            if (t.cards(card, CD_RUSSIA)) tail[nt++] = mk(F_RUSSIA_STEP);
            if (mode == MODE_EVENT) {
                if (!no_event) frames[nf++] = mk(F_EVENT, card, executor, p);
                if (both) frames[nf++] = mk(F_AI_ACTION, p, card, ops);  // R25
            } else {
                Frame action = action_frame(p, card, mode, ops);
                if (mode == MODE_TECH || no_event || !can_happen(card, executor))
                    frames[nf++] = action;
                else if (t.cards(card, CD_SIDE) == 1 - p)  // R5
                    frames[nf++] = with_action(mk(F_ORDER, p, card, executor), action);
                else if (both)  // R25
                    frames[nf++] = with_action(mk(F_AI_EVENT, p, card, executor), action);
                else
                    frames[nf++] = action;
            }
            for (int k = 0; k < nt; ++k) frames[nf++] = tail[k];
            push_list(frames, nf);
            return;
        }
        case F_ORDER:
        case F_AI_EVENT: {
            Frame action = nested_action(f);
            if (f.op == F_AI_EVENT && a == t.no) {
                push1(action);
                return;
            }
            Frame event = mk(F_EVENT, f.a[1], f.a[2], f.a[0]);
            if (a == t.order0) push({event, action});
            else push({action, event});
            return;
        }
        case F_AI_ACTION:
            if (a != t.no) push1(action_frame(f.a[0], f.a[1], a - t.mode0, f.a[2]));
            return;
        case F_OPS_MODE: {
            int mode = a - t.mode0;
            int op = mode == MODE_PLACE ? F_PLACE_START : mode == MODE_REALIGN ? F_REALIGN : F_TRADE;
            Frame g = mk(op, f.a[0], f.a[1]);
            g.flags = f.flags;
            g.set = f.set;
            push1(g);
            return;
        }
        case F_PLACE: {
            int p = f.a[0], left = f.a[1];
            int i = a - t.country0;
            int cost = placement_cost(p, i);  // 6.1.2
            influence(i, p == USA ? K_USA_ : K_CHINA_, 1, CA_PLACE, cost);
            if (left - cost > 0) {
                Frame g = f;
                g.a[1] = int16_t(left - cost);
                push1(g);
            }
            return;
        }
        case F_REALIGN:
            realign(f.a[0], a - t.country0, f.a[1]);
            return;
        case F_TRADE: {
            int p = f.a[0], i = a - t.country0;
            int die = roll(), opp_die = roll();
            int econ = s.tracks[ECONOMY + p], opp_econ = s.tracks[ECONOMY + 1 - p];
            int mine = die + econ - 1, theirs = opp_die + opp_econ - 1;
            ev(EV_TRADE, {p, i, die, econ, opp_die, opp_econ, mine, theirs, mine >= theirs});
            if (mine >= theirs) influence(i, p == USA ? K_USA_ : K_CHINA_, 3, CA_TRADE, i);
            return;
        }
        default:
            throw EngineError("resume not ported to the native core: " + std::to_string(f.op));
    }
}

void Machine::realign(int p, int i, int ops) {
    int die = roll();
    int mod = t.adj_sp(p, i) - t.adj_sp(1 - p, i);
    int result = ops + die + mod - (t.stab(i) + 2);
    int security_before = s.tracks[SECURITY];
    ev(EV_REALIGN, {p, i, ops, die, mod, t.stab(i) + 2, result});
    if (result > 0) {
        if (p == USA) {
            int au = amount(i, K_ANTI_US_);
            int take = std::min(au, result);
            influence(i, K_USA_, take, CA_REALIGN, i);
            int rest = result - take;
            int cn = s.inf_cn[i];
            influence(i, K_CHINA_, -std::min(cn, rest), CA_REALIGN, i);
            rest -= std::min(cn, rest);
            if (rest) influence(i, K_USA_, rest, CA_REALIGN, i);
        } else {
            influence(i, K_ANTI_US_, result, CA_REALIGN, i);
        }
    }
    int us = amount(i, K_USA_), cn = amount(i, K_CHINA_), au = amount(i, K_ANTI_US_);
    int own = p == USA ? us : cn + au, oth = p == USA ? cn + au : us;
    bool bg = t.bg_set.has(i);
    if (own <= oth) move_track(SECURITY, -1, CA_REALIGN, i);
    bool dip = (own > oth && bg) || (p == CHINA && bg && au > 0) || security_before == 1;
    if (dip) move_track(DIPLOMACY, -1, CA_REALIGN, i);
}

}  // namespace evenstar
