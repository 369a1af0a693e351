// The structured policy network's whole forward pass without gradients (nn_kernels.h,
// PolicyNet), included once per instruction set like nn_country_stage.h: for the few
// positions of a search, a league opponent or one move in play, where PyTorch spends
// about a millisecond on the overhead of some sixty operations whatever the batch.
// Same computation as agents/networks.py (StructuredPolicyValue.forward with a mask),
// which stays the reference; tests hold the two together within rounding.
#include <algorithm>
#include <cmath>
#include <vector>

#include "nn_kernels.h"
#include "nn_row_ops.h"

namespace evenstar::nn::EVENSTAR_NS {
namespace {

// y = W x + b (then max(y, 0) if relu).  W is given transposed, a row per input, so the
// loop adds whole rows (vectorised); inputs equal to 0 (most of the observation's global
// fields, about half of a ReLU's outputs) are skipped.
template <class T>
void dense(const Dense<T>& L, const T* __restrict x, T* __restrict y, bool relu) {
    std::copy(L.b, L.b + L.out, y);
    for (int k = 0; k < L.in; ++k) {
        const T a = x[k];
        if (a == T(0)) continue;
        const T* __restrict w = L.w_t + size_t(k) * L.out;
        for (int o = 0; o < L.out; ++o) y[o] += a * w[o];
    }
    if (relu)
        for (int o = 0; o < L.out; ++o) y[o] = std::max(y[o], T(0));
}

// y[a] = (W x + b)[a] for the legal actions a only (the rest are masked out anyway): for a
// position with few legal actions, far fewer products than the whole head; each output
// sums in dense()'s order (by input, zeros skipped), so it is the same number.
template <class T>
void dense_at(const Dense<T>& L, const T* __restrict x, const int* rows, int k_rows,
              T* __restrict y) {
    for (int j = 0; j < k_rows; ++j) y[rows[j]] = L.b[rows[j]];
    for (int k = 0; k < L.in; ++k) {
        const T a = x[k];
        if (a == T(0)) continue;
        const T* __restrict w = L.w_t + size_t(k) * L.out;
        for (int j = 0; j < k_rows; ++j) y[rows[j]] += a * w[rows[j]];
    }
}

// w . relu(token + query) + bias (w: d weights, then the bias)
template <class T>
T correction(const T* token, const T* query, const T* w, int d) {
    T s = w[d];
    for (int r = 0; r < d; ++r) s += w[r] * std::max(token[r] + query[r], T(0));
    return s;
}

}  // namespace

template <class T>
void infer(const PolicyNet<T>& p, const bool* mask, T* logits, T* value) {
    const CountryStage<T>& cs = p.country;
    const int64_t B = cs.batch;
    const int n = cs.tokens, nc = p.cards.tokens, d = cs.d, A = p.n_actions;
    std::vector<T> h(size_t(B) * n * d), z(size_t(B) * n * d), mean(size_t(B) * d), sd(size_t(B) * d);
    forward<T>(cs, h.data(), z.data(), mean.data(), sd.data(), 1);

    std::vector<unsigned char> present(size_t(B) * nc);
    std::vector<int64_t> row(size_t(B) * nc), pos(size_t(B) * nc), card(size_t(B) * nc);
    CardRows<T> cr = p.cards;
    cr.rows = find_card_rows<T>(cr, reinterpret_cast<bool*>(present.data()), row.data(), pos.data(),
                                card.data());
    cr.pos = pos.data(), cr.card = card.data();
    std::vector<T> hr(size_t(cr.rows) * d), zr(size_t(cr.rows) * d), sums(size_t(B) * d), hand(size_t(B) * d);
    card_forward<T>(cr, hr.data(), zr.data(), sums.data(), hand.data(), 1);
    std::vector<T> base_sum(d, T(0));
    for (int k = 0; k < nc; ++k)
        for (int r = 0; r < d; ++r) base_sum[r] += p.base[size_t(k) * d + r];

    int64_t width = 4 * d;  // the trunk's input, then the widest layer
    for (size_t j = 0; j + 1 < p.glob.size(); j += 2) width += p.glob[j + 1] - p.glob[j];
    for (const auto& L : p.trunk) width = std::max<int64_t>(width, L.out);
    std::vector<T> x(width), y(width), qc(d), qq(d);
    std::vector<int> legal(static_cast<size_t>(A));
    for (int64_t b = 0; b < B; ++b) {
        const T* o = cs.obs + b * cs.obs_size;
        // the trunk's input: the global fields, then the pooled tokens
        T* in = x.data();
        for (size_t j = 0; j + 1 < p.glob.size(); j += 2) in = std::copy(o + p.glob[j], o + p.glob[j + 1], in);
        in = std::copy(&mean[b * d], &mean[(b + 1) * d], in);
        in = std::copy(&sd[b * d], &sd[(b + 1) * d], in);
        T count = 0;
        for (int k = 0; k < nc; ++k) count += o[p.cards.starts[0] + k];  // the cards in one's hand
        for (int r = 0; r < d; ++r) in[r] = base_sum[r] + sums[b * d + r];
        for (int k = 0; k < nc; ++k)
            if (present[b * nc + k])
                for (int r = 0; r < d; ++r) in[r] -= p.base[size_t(k) * d + r];
        for (int r = 0; r < d; ++r) in[r] /= T(nc);
        for (int r = 0; r < d; ++r) in[d + r] = hand[b * d + r] / std::max(count, T(1));

        const T* t = x.data();
        for (const auto& L : p.trunk) {
            dense(L, t, t == x.data() ? y.data() : x.data(), true);
            t = t == x.data() ? y.data() : x.data();
        }
        T* lg = logits + b * A;
        const bool* m = mask + b * A;
        int n_legal = 0;
        for (int a = 0; a < A; ++a)
            if (m[a]) legal[size_t(n_legal++)] = a;
        if (n_legal * 8 < A)  // few legal actions: their logits only
            dense_at(p.policy, t, legal.data(), n_legal, lg);
        else
            dense(p.policy, t, lg, false);
        T v;
        dense(p.value, t, &v, false);
        value[b] = std::tanh(v);
        dense(p.card_query, t, qc.data(), false);
        dense(p.country_query, t, qq.data(), false);
        for (int k = 0; k < nc; ++k)
            if (m[p.card0 + k]) {
                const int64_t r = row[b * nc + k];
                const T* tok = r >= 0 ? &zr[size_t(r) * d] : p.base + size_t(k) * d;
                lg[p.card0 + k] += correction(tok, qc.data(), p.card_corr, d);
            }
        for (int i = 0; i < n; ++i)
            if (m[p.country0 + i])
                lg[p.country0 + i] += correction(&z[(size_t(b) * n + i) * d], qq.data(), p.country_corr, d);
        for (int a = 0; a < A; ++a)
            if (!m[a]) lg[a] = T(kIllegalLogit);
    }
}

#define EVENSTAR_INSTANTIATE(T) template void infer<T>(const PolicyNet<T>&, const bool*, T*, T*);
EVENSTAR_INSTANTIATE(float)
EVENSTAR_INSTANTIATE(double)
#undef EVENSTAR_INSTANTIATE

}  // namespace evenstar::nn::EVENSTAR_NS
