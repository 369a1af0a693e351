// The card-row kernels (nn_kernels.h), included once per instruction set like
// nn_country_stage.h.
#include <algorithm>
#include <vector>

#include "nn_kernels.h"
#include "nn_row_ops.h"

namespace evenstar::nn::EVENSTAR_NS {
namespace {

constexpr int kBlock = 64;  // rows whose weight gradients are summed in registers at once

// Run f(lo, hi, part) on parts of the rows [0, rows) that never split a position's rows
// (each cut moves on to the next position's first row, so the cuts stay in order).
template <class T, class F>
void split_rows(const CardRows<T>& a, int threads, F f) {
    const int parts = parts_for(a.rows, threads);
    std::vector<int64_t> cut(parts + 1, a.rows);
    for (int p = 0; p < parts; ++p) {
        int64_t c = a.rows * p / parts;
        while (c > 0 && c < a.rows && a.pos[c] == a.pos[c - 1]) ++c;
        cut[p] = c;
    }
    run_parts(cut, f);
}

// Row r's fields into x (twelve places of the observation, each read waits on memory
// unless it is in cache: the next position's fields are asked for ahead when the
// position changes).
template <class T>
inline void fields_of(const CardRows<T>& a, int64_t r, T* x, int64_t& loaded) {
    const T* o = a.obs + a.pos[r] * a.obs_size;
    if (a.pos[r] != loaded) {
        loaded = a.pos[r];
        if (loaded + 1 < a.batch)
            for (int f = 0; f < a.fields; ++f)
                for (int k = 0; k < a.tokens; k += int(64 / sizeof(T)))
                    __builtin_prefetch(o + a.obs_size + a.starts[f] + k);
    }
    for (int f = 0; f < a.fields; ++f) x[f] = o[a.starts[f] + a.card[r]];
}

template <class T, int D>
void card_forward_d(const CardRows<T>& a, T* H, T* Z, T* sums, T* hand, int threads) {
    const int d = D ? D : a.d, F = a.fields;
    const auto win_t = transposed(a.w_in, d, F), wout_t = transposed(a.w_out, d, d);
    std::fill(sums, sums + a.batch * d, T(0));
    std::fill(hand, hand + a.batch * d, T(0));
    split_rows(a, threads, [&](int64_t lo, int64_t hi, int) {
        std::vector<T> xr(F);
        const T* x = xr.data();
        int64_t loaded = -1;
        for (int64_t r = lo; r < hi; ++r) {
            fields_of(a, r, xr.data(), loaded);
            T* h = H + r * d;
            T* z = Z + r * d;
            combine<T, D>(h, a.ident + a.card[r] * d, x, 1, win_t.data(), F, d);
            for (int c = 0; c < d; ++c) h[c] = std::max(h[c], T(0));
            combine<T, D>(z, a.bias, h, 1, wout_t.data(), d, d);
            for (int c = 0; c < d; ++c) z[c] = std::max(z[c], T(0));
            T* s = sums + a.pos[r] * d;
            T* k = hand + a.pos[r] * d;
            for (int c = 0; c < d; ++c) {
                s[c] += z[c];
                k[c] += x[0] * z[c];
            }
        }
    });
}

template <class T, int D>
void card_backward_d(const CardRows<T>& a, const T* H, const T* Z, const T* gZ,
                     const T* gsums, const T* ghand, const CardGrads<T>& g, int threads) {
    const int d = D ? D : a.d, F = a.fields;
    GradSums<T> sums(a.tokens, F, d, false, parts_for(a.rows, threads));
    split_rows(a, threads, [&](int64_t lo, int64_t hi, int part) {
        [[maybe_unused]] const auto [g_ident, g_win_t, g_wout_t, g_bias, no_w_nb] = sums.part(part);
        // a block of rows: their fields, the gradients before each ReLU
        std::vector<T> x(size_t(kBlock) * F), gp(size_t(kBlock) * d), gq(size_t(kBlock) * d);
        int64_t loaded = -1;
        for (int64_t r0 = lo; r0 < hi; r0 += kBlock) {
            const int m = int(std::min<int64_t>(kBlock, hi - r0));
            for (int j = 0; j < m; ++j) {
                const int64_t r = r0 + j, b = a.pos[r];
                T* xj = &x[size_t(j) * F];
                fields_of(a, r, xj, loaded);
                const T* z = Z + r * d;
                const T* h = H + r * d;
                T* __restrict p = &gp[size_t(j) * d];
                const T* __restrict gzr = gZ ? gZ + r * d : nullptr;
                const T* __restrict gs = gsums ? gsums + b * d : nullptr;
                const T* __restrict gk = ghand ? ghand + b * d : nullptr;
                for (int c = 0; c < d; ++c)
                    p[c] = (gzr ? gzr[c] : T(0)) + (gs ? gs[c] : T(0)) + (gk ? xj[0] * gk[c] : T(0));
                gated(p, p, z, d);
                T* q = &gq[size_t(j) * d];
                combine<T, D>(q, nullptr, p, 1, a.w_out, d, d);  // W_out^T p
                gated(q, q, h, d);
                T* gi = g_ident + a.card[r] * d;
                for (int c = 0; c < d; ++c) gi[c] += q[c];
            }
            std::vector<T> ones(m, T(1));
            combine<T, D>(g_bias, g_bias, ones.data(), 1, gp.data(), m, d);
            outer_sum<T, D>(g_wout_t, H + r0 * d, d, d, gp.data(), m, d);
            outer_sum<T, D>(g_win_t, x.data(), F, F, gq.data(), m, d);
        }
    });
    sums.write(g.ident, g.w_in, g.w_out, g.bias);
}

}  // namespace

// The (position b, card k) pairs whose card has a non-zero field in obs (a's obs, batch,
// starts, fields and tokens): present[b, k], their rows in order as (pos[r], card[r])
// and row[b, k] = r (-1 where absent).  Returns the number of rows.
template <class T>
int64_t find_card_rows(const TokenLayers<T>& a, bool* present, int64_t* row, int64_t* pos,
                       int64_t* card) {
    const int n = a.tokens;
    std::vector<unsigned char> any(n);
    int64_t r = 0;
    for (int64_t b = 0; b < a.batch; ++b) {
        const T* o = a.obs + b * a.obs_size;
        std::fill(any.begin(), any.end(), 0);
        for (int f = 0; f < a.fields; ++f) {  // one field of every card: a vector loop
            const T* x = o + a.starts[f];
            unsigned char* y = any.data();
            for (int k = 0; k < n; ++k) y[k] |= x[k] != T(0);
        }
        for (int k = 0; k < n; ++k) {
            present[b * n + k] = any[k];
            row[b * n + k] = any[k] ? r : -1;
            if (any[k]) pos[r] = b, card[r++] = k;
        }
    }
    return r;
}

template <class T>
void card_forward(const CardRows<T>& a, T* h, T* z, T* sums, T* hand, int threads) {
    with_width(a.d, [&](auto w) { card_forward_d<T, decltype(w)::value>(a, h, z, sums, hand, threads); });
}

template <class T>
void card_backward(const CardRows<T>& a, const T* h, const T* z, const T* gz, const T* gsums,
                   const T* ghand, const CardGrads<T>& g, int threads) {
    with_width(a.d, [&](auto w) {
        card_backward_d<T, decltype(w)::value>(a, h, z, gz, gsums, ghand, g, threads);
    });
}

#define EVENSTAR_INSTANTIATE(T)                                                              \
    template int64_t find_card_rows<T>(const TokenLayers<T>&, bool*, int64_t*, int64_t*,      \
                                       int64_t*);                                            \
    template void card_forward<T>(const CardRows<T>&, T*, T*, T*, T*, int);                  \
    template void card_backward<T>(const CardRows<T>&, const T*, const T*, const T*,         \
                                   const T*, const T*, const CardGrads<T>&, int);
EVENSTAR_INSTANTIATE(float)
EVENSTAR_INSTANTIATE(double)
#undef EVENSTAR_INSTANTIATE

}  // namespace evenstar::nn::EVENSTAR_NS
