// The turn sequence A-K (turn.py; 4.6, R13), the headline (R14) and history events (R16).
#include <algorithm>

#include "engine.h"

namespace evenstar {

namespace {

int hand_count(const Tables& t, const State& s, int p) {
    int k = 0;
    for (int i = 0; i < t.nc; ++i) k += s.card_loc[i] == HAND_USA + p;
    return k;
}

}  // namespace

void Machine::handle_turn(const Frame& f) {
    int legal[MAXLEGAL], nl = 0;
    switch (f.op) {
        case F_TURN: {
            int turn = int(s.misc[M_TURN]);
            for (int era = 1; era < 3; ++era) {
                if (turn == t.era_turns(era)) {  // R12
                    for (int i = 0; i < t.nc; ++i)
                        if (t.cards(i, CD_ERA) == era && s.card_loc[i] == OUT) s.card_loc[i] = DRAW;
                    for (int h = 0; h < t.nh; ++h)
                        if (t.hist(h, HF_ERA) == era && s.hist_loc[h] == H_OUT &&
                            t.hist(h, HF_SPECIAL) == 0)
                            s.hist_loc[h] = H_DECK;
                    ev(EV_ERA, {era});
                }
            }
            ev(EV_TURN, {});
            push({mk(F_PHASE_A), mk(F_PHASE_B), mk(F_PHASE_C), mk(F_PHASE_D), mk(F_PHASE_E),
                  mk(F_PHASE_F), mk(F_PHASE_G), mk(F_PHASE_H), mk(F_PHASE_I), mk(F_PHASE_J)});
            return;
        }
        case F_PHASE_A: {
            s.misc[M_PHASE] = P_IMPROVE;
            ev(EV_PHASE, {P_IMPROVE});
            move_track(DIPLOMACY, 1, CA_UPKEEP);
            move_track(SECURITY, 1, CA_UPKEEP);
            for (int k = 0; k < t.persistent.rows; ++k) {
                int i = t.persistent(k);
                if (s.card_loc[i] == IN_PLAY && t.cards(i, CD_EACH_LEN))
                    push_effects(t.cards(i, CD_EACH_START), t.cards(i, CD_EACH_LEN),
                                 s.event_side[i], SRC_EVENT);
            }
            return;
        }
        case F_PHASE_B:
            s.misc[M_PHASE] = P_RUSSIA_UKRAINE;
            ev(EV_PHASE, {P_RUSSIA_UKRAINE});
            if (s.misc[M_RW_STATE] == RW_ACTIVE) {
                s.misc[M_RW_K] += 1;
                s.misc[M_RW_ADDED] = 0;
                ev(EV_RUSSIA_UKRAINE, {2, int(s.misc[M_RW_K]), 0});
            }
            return;
        case F_PHASE_C:
            for (int p = 0; p < 2; ++p) {
                int lvl = s.tracks[SOCIAL + p];
                s.misc[M_HAND_SIZE + p] = t.social_zone(lvl, SZ_HAND);
                s.misc[M_DISCARD_RIGHT + p] = t.social_zone(lvl, SZ_DISCARD);
                s.misc[M_ROUND8 + 1 - p] = t.social_zone(lvl, SZ_ROUND8);
                s.misc[M_IMPROVE_LEFT + p] = t.improve_attempts(s.tracks[ECONOMY + p]);
                s.misc[M_TECH_DONE + p] = 0;
                s.misc[M_TRADE_DONE + p] = 0;
            }
            return;
        case F_PHASE_D: {
            s.misc[M_PHASE] = P_HISTORY;
            ev(EV_PHASE, {P_HISTORY});
            Frame frames[MAXH + 1];
            int nf = 0;
            s.misc[M_HIST_DRAWN] = s.misc[M_HIST_DRAWN + 1] = 0;
            if (s.misc[M_TURN] == 1) {  // [engine]: China's card first (stable sort)
                for (int side = 1; side >= 0; --side)
                    for (int h = 0; h < t.nh; ++h)
                        if (t.hist(h, HF_SPECIAL) == 1 && t.hist(h, HF_SIDE) == side)
                            frames[nf++] = mk(F_HISTORY, h, 0);
            }
            frames[nf++] = mk(F_HISTORY_DRAW);
            push_list(frames, nf);
            return;
        }
        case F_HISTORY_DRAW: {
            int turn = int(s.misc[M_TURN]);
            int era = -1, best = 0;
            for (int e = 0; e < 3; ++e)  // max(..., key=era_turns): the first maximum
                if (t.era_turns(e) <= turn && (era < 0 || t.era_turns(e) > best)) {
                    era = e;
                    best = t.era_turns(e);
                }
            if (era < 0) throw EngineError("no era for this turn");
            Frame frames[2];
            int nf = 0;
            for (int p = 0; p < 2; ++p) {
                int deck[MAXH], nd = 0;
                for (int h = 0; h < t.nh; ++h)
                    if (s.hist_loc[h] == H_DECK && t.hist(h, HF_SIDE) == p && t.hist(h, HF_ERA) == era)
                        deck[nd++] = h;
                if (nd) {
                    int h = deck[below(nd, 2)];
                    s.hist_loc[h] = H_DRAWN;
                    s.misc[M_HIST_DRAWN + p] = h + 1;
                    ev(EV_HISTORY_DRAW, {p, h});
                    frames[nf++] = mk(F_HISTORY, h, 1);
                }
            }
            push_list(frames, nf);
            return;
        }
        case F_HISTORY: {
            int h = f.a[0], mods = f.a[1];
            s.misc[M_RESPONSIBLE] = t.hist(h, HF_SIDE);  // R21
            ev(EV_HISTORY, {h, t.hist(h, HF_SIDE), mods});
            if (mods) push({mk(F_MODIFIER, h, USA), mk(F_MODIFIER, h, CHINA), mk(F_HISTORY_ROLL, h, 1)});
            else push1(mk(F_HISTORY_ROLL, h, 0));
            return;
        }
        case F_MODIFIER: {
            int p = f.a[1], res = s.reserves[p];
            for (int k = 0; k < N_MODIFIERS; ++k)
                if (t.modifier_costs(k) <= res) legal[nl++] = t.mod0 + k;
            ask(f, p, K_MODIFIER, legal, nl, f.a[0]);
            return;
        }
        case F_HISTORY_ROLL: {
            int h = f.a[0], mods = f.a[1];
            int owner = t.hist(h, HF_SIDE);
            int total = 0;
            int picks[2] = {-1, -1};
            if (mods) {
                picks[0] = int(s.misc[M_MOD]);
                picks[1] = int(s.misc[M_MOD + 1]);
                for (int p = 0; p < 2; ++p)  // R16
                    set_reserves(p, s.reserves[p] - t.modifier_costs(picks[p]), CA_MODIFIER, picks[p]);
                for (int p = 0; p < 2; ++p)
                    if (picks[1 - p] != MOD_COUNTER) total += t.modifier_values(picks[p]);
            }
            int die = roll();
            int r = die + total;
            int outcome = r <= 1 ? 0 : r <= 3 ? 1 : r <= 5 ? 2 : 3;
            s.hist_loc[h] = H_DONE;
            ev(EV_HISTORY_ROLL, {h, owner, picks[0], picks[1], total, die, r, outcome});
            push_effects(t.hist(h, HF_O0_START + 2 * outcome), t.hist(h, HF_O0_LEN + 2 * outcome),
                         owner, SRC_HISTORY);
            return;
        }
        case F_PHASE_E:
            s.misc[M_PHASE] = P_DEAL;
            ev(EV_PHASE, {P_DEAL});
            for (int p = 0; p < 2; ++p) {
                long missing = s.misc[M_HAND_SIZE + p] - hand_count(t, s, p);
                if (missing > 0) draw_cards(p, int(missing));
            }
            return;
        case F_PHASE_F:
            s.misc[M_PHASE] = P_HEADLINE;
            ev(EV_PHASE, {P_HEADLINE});
            push({mk(F_HEADLINE, USA), mk(F_HEADLINE, CHINA), mk(F_HEADLINE_RESOLVE)});
            return;
        case F_HEADLINE: {
            int p = f.a[0];
            s.misc[M_HEADLINE + p] = -1;
            int cards[MAXC];
            int n = hand(p, cards);
            for (int i = 0; i < n; ++i) legal[i] = t.card0 + cards[i];
            if (n) ask(f, p, K_HEADLINE, legal, n);
            return;
        }
        case F_HEADLINE_RESOLVE: {
            int card[2], side[2], np = 0;
            for (int p = 0; p < 2; ++p)
                if (s.misc[M_HEADLINE + p] >= 0) {
                    card[np] = int(s.misc[M_HEADLINE + p]);
                    side[np++] = p;
                }
            if (np == 2) {  // higher ops first, ties China first (R14)
                int o0 = modified_ops(card[0], side[0]), o1 = modified_ops(card[1], side[1]);
                if (o1 > o0 || (o1 == o0 && side[1] > side[0])) {
                    std::swap(card[0], card[1]);
                    std::swap(side[0], side[1]);
                }
            }
            Frame frames[6];
            int nf = 0;
            for (int k = 0; k < np; ++k) {
                ev(EV_HEADLINE, {side[k], card[k], modified_ops(card[k], side[k])});
                frames[nf++] = mk(F_HEADLINE_EVENT, card[k], side[k]);
                frames[nf++] = mk(F_CARD_DONE, card[k]);
                if (t.cards(card[k], CD_RUSSIA)) frames[nf++] = mk(F_RUSSIA_STEP);
            }
            push_list(frames, nf);
            return;
        }
        case F_HEADLINE_EVENT: {
            int card = f.a[0], p = f.a[1];
            s.card_loc[card] = PLAYING;
            s.misc[M_HEADLINE + p] = -1;
            s.misc[M_RESPONSIBLE] = p;  // R21
            push1(mk(F_EVENT, card, executor_of(card, p), p));
            return;
        }
        case F_PHASE_G: {
            s.misc[M_PHASE] = P_ACTION;
            ev(EV_PHASE, {P_ACTION});
            Frame frames[2 * 16 + 3];
            int nf = 0;
            int rounds = t.S(S_ACTION_ROUNDS);
            if (2 * rounds + 3 > int(sizeof frames / sizeof frames[0]))
                throw EngineError("too many action rounds for the native core");
            for (int r = 1; r <= rounds; ++r)
                for (int p = 0; p < 2; ++p) frames[nf++] = mk(F_ROUND, r, p);
            for (int p = 0; p < 2; ++p)
                if (s.misc[M_ROUND8 + p]) frames[nf++] = mk(F_ROUND8, p);
            frames[nf++] = mk(F_END_G);
            push_list(frames, nf);
            return;
        }
        case F_ROUND8:
            if (hand_any(f.a[0])) {
                int l[2] = {t.yes, t.no};
                ask(f, f.a[0], K_ROUND8, l, 2);
            }
            return;
        case F_END_G: {
            s.misc[M_PHASING] = -1;
            s.misc[M_ROUND] = 0;
            Frame frames[4];
            int nf = 0;
            if (s.misc[M_RW_STATE] == RW_ACTIVE && s.misc[M_RW_ADDED] < s.misc[M_RW_K]) {
                ev(EV_RUSSIA_UKRAINE, {3, int(s.misc[M_RW_K]), int(s.misc[M_RW_ADDED])});
                s.misc[M_RESPONSIBLE] = CHINA;
                add_vp(CHINA, 2, source_column(SRC_UKRAINE_WAR), CA_UKRAINE_WAR);
                remove_influence(t.ukraine, K_USA_, CA_UKRAINE_WAR);
                influence(t.ukraine, K_ANTI_US_, 3, CA_UKRAINE_WAR);
                frames[nf++] = mk(F_RW_REDUCE);
            }
            frames[nf++] = mk(F_SCORING_HELD);
            frames[nf++] = mk(F_END_DISCARD, USA);
            frames[nf++] = mk(F_END_DISCARD, CHINA);
            push_list(frames, nf);
            return;
        }
        case F_RW_REDUCE:
            push_effects(t.S(S_UKR_START), t.S(S_UKR_LEN), CHINA);
            return;
        case F_SCORING_HELD: {
            bool held[2] = {false, false};
            for (int i = 0; i < t.nc; ++i)
                if (t.cards(i, CD_SCORING)) {
                    if (s.card_loc[i] == HAND_USA) held[0] = true;
                    if (s.card_loc[i] == HAND_CHINA) held[1] = true;
                }
            if (held[0] && held[1]) finish(-1, R_BOTH_HELD);
            else if (held[0] || held[1]) {
                int loser = held[0] ? USA : CHINA;
                finish(1 - loser, R_HELD, loser);
            }
            return;
        }
        case F_END_DISCARD: {
            int p = f.a[0];
            if (s.misc[M_DISCARD_RIGHT + p]) {
                int cards[MAXC];
                int n = hand(p, cards);
                if (n) {
                    for (int i = 0; i < n; ++i) legal[i] = t.card0 + cards[i];
                    legal[n] = t.done;
                    ask(f, p, K_END_DISCARD, legal, n + 1);
                }
            }
            return;
        }
        case F_PHASE_H: {
            s.misc[M_PHASE] = P_ECONOMY;
            ev(EV_PHASE, {P_ECONOMY});
            for (int p = 0; p < 2; ++p)
                set_reserves(p, s.reserves[p] + t.economy_zone(s.tracks[ECONOMY + p], EZ_INCOME),
                             CA_INCOME);
            push({mk(F_UPGRADE, USA), mk(F_UPGRADE, CHINA), mk(F_DECLINE)});
            for (int k = t.persistent.rows - 1; k >= 0; --k) {  // R26
                int i = t.persistent(k);
                if (s.card_loc[i] == IN_PLAY && t.cards(i, CD_ECON_LEN))
                    push_effects(t.cards(i, CD_ECON_START), t.cards(i, CD_ECON_LEN),
                                 s.event_side[i], SRC_EVENT);
            }
            return;
        }
        case F_UPGRADE: {
            int p = f.a[0], level = s.tracks[ECONOMY + p];
            if (level < t.S(S_ECONOMY_MAX) && s.reserves[p] >= t.economy_zone(level, EZ_PRICE)) {
                int l[2] = {t.yes, t.no};
                ask(f, p, K_UPGRADE, l, 2);
            }
            return;
        }
        case F_DECLINE:
            for (int p = 0; p < 2; ++p) {  // 10.3.2
                move_track(ECONOMY + p, -1, CA_DECLINE);
                if (s.tracks[ECONOMY + p] < 4) move_track(SOCIAL + p, -1, CA_DECLINE);
            }
            if (s.misc[M_COLLAPSE] || s.misc[M_COLLAPSE + 1]) {
                s.misc[M_END_FLAG] = 1;
                return;
            }
            for (int p : {CHINA, USA}) {
                int lvl = s.tracks[ECONOMY + p];
                push_effects(t.economy_zone(lvl, EZ_EFF_START), t.economy_zone(lvl, EZ_EFF_LEN), p,
                             SRC_ECONOMY);
            }
            return;
        case F_PHASE_I: {
            bool spare_turn = false;
            for (int k = 0; k < t.spare_turns.rows; ++k) spare_turn |= t.spare_turns(k) == s.misc[M_TURN];
            if (!spare_turn) return;
            s.misc[M_PHASE] = P_SCORING;
            ev(EV_PHASE, {P_SCORING});
            int left[MAXSP], n = 0;
            for (int k = 0; k < t.n_spare; ++k)
                if (!s.spare_used[k]) left[n++] = k;
            if (!n) return;
            int k = left[below(n, 2)];
            s.spare_used[k] = 1;
            int row = t.spare_rows(k);
            score(row, CA_SCORING, row);
            return;
        }
        case F_PHASE_J:
            if (s.misc[M_TURN] >= t.S(S_TURNS)) {
                push1(mk(F_FINAL));
                return;
            }
            s.misc[M_TURN] += 1;
            push1(mk(F_TURN));
            return;
        case F_FINAL: {
            s.misc[M_PHASE] = P_FINAL;
            ev(EV_PHASE, {P_FINAL});
            for (int r = 0; r < t.n_regions; ++r) score(r, CA_FINAL, r);
            const int bases[2] = {SOCIAL, ECONOMY}, srcs[2] = {SRC_FINAL_SOCIAL, SRC_FINAL_ECONOMY};
            for (int k = 0; k < 2; ++k) {
                int diff = s.tracks[bases[k] + USA] - s.tracks[bases[k] + CHINA];
                if (diff)
                    add_vp(diff > 0 ? USA : CHINA, std::abs(diff), source_column(srcs[k]), CA_FINAL);
            }
            int u = s.vp[USA], ch = s.vp[CHINA];
            if (u == ch) finish(-1, R_EQUAL, u);
            else {
                int w = u > ch ? USA : CHINA;
                finish(w, R_MORE, w, u, ch);
            }
            return;
        }
        default:
            throw EngineError("frame op not ported to the native core: " + std::to_string(f.op));
    }
}

void Machine::resume_turn(const Frame& f, int a) {
    switch (f.op) {
        case F_MODIFIER:
            s.misc[M_MOD + f.a[1]] = a - t.mod0;
            return;
        case F_HEADLINE: {
            int card = a - t.card0;
            s.misc[M_HEADLINE + f.a[0]] = card;
            s.card_loc[card] = int8_t(HEADLINE_USA + f.a[0]);
            return;
        }
        case F_ROUND8:
            if (a == t.yes) push1(mk(F_ROUND, t.S(S_ACTION_ROUNDS) + 1, f.a[0]));
            return;
        case F_END_DISCARD:
            if (a != t.done) {
                s.card_loc[a - t.card0] = DISCARD;
                ev(EV_DISCARD, {f.a[0], a - t.card0, CA_END_TURN, -1});
            }
            return;
        case F_UPGRADE:
            if (a == t.yes) {
                int p = f.a[0];
                set_reserves(p, s.reserves[p] - t.economy_zone(s.tracks[ECONOMY + p], EZ_PRICE),
                             CA_UPGRADE);
                move_track(ECONOMY + p, 1, CA_UPGRADE);
            }
            return;
        default:
            throw EngineError("resume not ported to the native core: " + std::to_string(f.op));
    }
}

}  // namespace evenstar
