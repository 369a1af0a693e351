// Game.resample_hidden (evenstar_env/game.py): the determinisation the agents search on.
//
// One SplitMix64 stream, started at the caller's 64-bit seed, draws in this order
// (the Python reference draws the same): a Fisher-Yates shuffle of the pool (the
// opponent's hidden hand cards, its secret headline card and the draw pile, sorted
// ascending so that its order tells nothing of where each card is), for i = n-1 down to 1 swapping pool[i] with pool[below(i+1)]; the
// opponent's hidden modifier card when one is pending, afford[below(len(afford))];
// then the three new stream states (dice, deck, other), three next64() outputs.
#include <algorithm>

#include "search.h"

namespace evenstar {

void resample_hidden(const Tables& t, State& s, int player, uint64_t seed) {
    const int o = 1 - player;
    const int hand_o = o == USA ? HAND_USA : HAND_CHINA;
    const int head_o = o == USA ? HEADLINE_USA : HEADLINE_CHINA;
    const bool pend = s.has_pending != 0;
    int face_up = -1;  // the card chosen to play is face up
    if (pend && s.p_kind == K_MODE) face_up = s.p_ctx[0];
    int pool[MAXC];
    int n = 0, n_hand = 0, n_head = 0;
    for (int k = 0; k < t.nc; ++k) {
        if (s.card_loc[k] != hand_o) continue;
        if ((s.revealed[o][k] && s.card_loc[k] == hand_o) || k == face_up) continue;
        pool[n++] = k;
    }
    n_hand = n;
    if (pend && s.p_kind == K_HEADLINE) {  // the opponent's headline is secret (4.6.F)
        for (int k = 0; k < t.nc; ++k)
            if (s.card_loc[k] == head_o) pool[n++] = k;
    }
    n_head = n - n_hand;
    for (int k = 0; k < t.nc; ++k)
        if (s.card_loc[k] == DRAW) pool[n++] = k;
    std::sort(pool, pool + n);
    uint64_t r = seed;
    for (int i = n - 1; i > 0; --i) {
        int j = int(splitmix_below(r, uint64_t(i + 1)));
        int x = pool[i];
        pool[i] = pool[j];
        pool[j] = x;
    }
    for (int k = 0; k < n; ++k) s.card_loc[pool[k]] = DRAW;
    for (int k = 0; k < n_hand; ++k) s.card_loc[pool[k]] = int8_t(hand_o);
    if (n_head) {
        int card = pool[n_hand];
        s.card_loc[card] = int8_t(head_o);
        s.misc[M_HEADLINE + o] = card;
    }
    if (o == USA && pend && s.p_kind == K_MODIFIER && s.p_player == CHINA) {
        int afford[N_MODIFIERS], na = 0;
        for (int k = 0; k < N_MODIFIERS; ++k)
            if (t.modifier_costs(k) <= s.reserves[USA]) afford[na++] = k;
        s.misc[M_MOD] = afford[splitmix_below(r, uint64_t(na))];
    }
    for (int k = 0; k < 3; ++k) s.rng[k] = splitmix_next(r);
}

}  // namespace evenstar
