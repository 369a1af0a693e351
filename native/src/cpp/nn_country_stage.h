// The country-stage kernels (nn_kernels.h), included once per instruction set: the
// including file defines EVENSTAR_NS (the namespace) and is compiled with its flags.
// The loops run over the token width d, contiguous; for the usual widths d is a
// compile-time constant.
#include <algorithm>
#include <cmath>
#include <vector>

#include "nn_kernels.h"
#include "nn_row_ops.h"

namespace evenstar::nn::EVENSTAR_NS {
namespace {

// Ask for position b's country fields ahead of use (reading them field by field waits
// on memory otherwise: twelve short runs of the observation).
template <class T>
inline void prefetch_fields(const CountryStage<T>& a, int64_t b) {
    if (b >= a.batch) return;
    const T* o = a.obs + b * a.obs_size;
    for (int f = 0; f < a.fields; ++f)
        for (int i = 0; i < a.tokens; i += int(64 / sizeof(T))) __builtin_prefetch(o + a.starts[f] + i);
}

template <class T, int D>
void forward_d(const CountryStage<T>& a, T* H, T* Z, T* mean, T* std, int threads) {
    const int n = a.tokens, d = D ? D : a.d, F = a.fields;
    const auto win_t = transposed(a.w_in, d, F);
    std::vector<T> w_t = transposed(a.w_out, d, d), wnb_t = transposed(a.w_nb, d, d);
    w_t.insert(w_t.end(), wnb_t.begin(), wnb_t.end());  // [W_out W_nb]^T: 2d x d
    split(a.batch, threads, [&](int64_t lo, int64_t hi, int) {
        std::vector<T> x(size_t(n) * F), hn(size_t(n) * 2 * d);  // per country: h_i, (A h)_i
        std::vector<T> nb(size_t(n) * d);
        for (int64_t b = lo; b < hi; ++b) {
            const T* o = a.obs + b * a.obs_size;
            for (int f = 0; f < F; ++f)
                for (int i = 0; i < n; ++i) x[size_t(i) * F + f] = o[a.starts[f] + i];
            prefetch_fields(a, b + 1);
            T* h = H + b * n * d;
            T* z = Z + b * n * d;
            for (int i = 0; i < n; ++i) {
                combine<T, D>(h + size_t(i) * d, a.ident + size_t(i) * d, &x[size_t(i) * F], 1,
                              win_t.data(), F, d);
                for (int r = 0; r < d; ++r) h[i * d + r] = std::max(h[i * d + r], T(0));
            }
            spmm<T, D>(a.ptr, a.col, a.val, h, nb.data(), n, d);
            for (int i = 0; i < n; ++i) {
                std::copy(h + size_t(i) * d, h + size_t(i + 1) * d, &hn[size_t(i) * 2 * d]);
                std::copy(&nb[size_t(i) * d], &nb[size_t(i + 1) * d], &hn[size_t(i) * 2 * d + d]);
                combine<T, D>(z + size_t(i) * d, a.bias, &hn[size_t(i) * 2 * d], 1, w_t.data(), 2 * d, d);
                for (int r = 0; r < d; ++r) z[i * d + r] = std::max(z[i * d + r], T(0));
            }
            T* m = mean + b * d;
            T* s = std + b * d;
            std::fill(m, m + d, T(0));
            std::fill(s, s + d, T(0));
            for (int i = 0; i < n; ++i)
                for (int r = 0; r < d; ++r) m[r] += z[i * d + r];
            for (int r = 0; r < d; ++r) m[r] /= n;
            for (int i = 0; i < n; ++i)
                for (int r = 0; r < d; ++r) s[r] += (z[i * d + r] - m[r]) * (z[i * d + r] - m[r]);
            for (int r = 0; r < d; ++r) s[r] = s[r] > 0 ? std::sqrt(s[r] / (n - 1)) : T(0);
        }
    });
}

template <class T, int D>
void backward_d(const CountryStage<T>& a, const T* H, const T* Z, const T* mean, const T* std,
                const T* gZ, const T* gmean, const T* gstd, const CountryGrads<T>& g,
                int threads) {
    const int n = a.tokens, d = D ? D : a.d, F = a.fields;
    GradSums<T> sums(n, F, d, true, parts_for(a.batch, threads));
    split(a.batch, threads, [&](int64_t lo, int64_t hi, int part) {
        const auto [g_ident, g_win_t, g_wout_t, g_bias, g_wnb_t] = sums.part(part);
        const size_t nd = size_t(n) * d;
        std::vector<T> x(size_t(n) * F), nb(nd), gp(nd), gh(nd), gnb(nd), gq(nd), coef(d), gm(d);
        const std::vector<T> ones(n, T(1));
        for (int64_t b = lo; b < hi; ++b) {
            const T* o = a.obs + b * a.obs_size;
            const T* h = H + b * nd;
            const T* z = Z + b * nd;
            const T* m = mean + b * d;
            for (int r = 0; r < d; ++r) {
                const T s = std[b * d + r];
                coef[r] = s > 0 ? gstd[b * d + r] / ((n - 1) * s) : T(0);
                gm[r] = gmean[b * d + r] / n;
            }
            T* __restrict gpp = gp.data();
            const T* __restrict gzb = gZ ? gZ + b * nd : nullptr;
            for (int i = 0; i < n; ++i)
                for (int r = 0; r < d; ++r) {
                    const size_t k = size_t(i) * d + r;
                    gpp[k] = (gzb ? gzb[k] : T(0)) + gm[r] + coef[r] * (z[k] - m[r]);
                }
            gated(gpp, gpp, z, nd);
            spmm<T, D>(a.ptr, a.col, a.val, h, nb.data(), n, d);
            combine<T, D>(g_bias, g_bias, ones.data(), 1, gp.data(), n, d);
            outer_sum<T, D>(g_wout_t, h, d, d, gp.data(), n, d);
            outer_sum<T, D>(g_wnb_t, nb.data(), d, d, gp.data(), n, d);
            for (int i = 0; i < n; ++i) {
                combine<T, D>(&gh[size_t(i) * d], nullptr, &gp[size_t(i) * d], 1, a.w_out, d, d);
                combine<T, D>(&gnb[size_t(i) * d], nullptr, &gp[size_t(i) * d], 1, a.w_nb, d, d);
            }
            spmm<T, D>(a.tptr, a.tcol, a.tval, gnb.data(), gq.data(), n, d);
            for (size_t k = 0; k < nd; ++k) gq[k] += gh[k];
            gated(gq.data(), gq.data(), h, nd);
            for (size_t k = 0; k < nd; ++k) g_ident[k] += gq[k];
            for (int f = 0; f < F; ++f)
                for (int i = 0; i < n; ++i) x[size_t(i) * F + f] = o[a.starts[f] + i];
            prefetch_fields(a, b + 1);
            outer_sum<T, D>(g_win_t, x.data(), F, F, gq.data(), n, d);
        }
    });
    sums.write(g.ident, g.w_in, g.w_out, g.bias, g.w_nb);
}

}  // namespace

template <class T>
void forward(const CountryStage<T>& a, T* h, T* z, T* mean, T* std, int threads) {
    with_width(a.d, [&](auto w) { forward_d<T, decltype(w)::value>(a, h, z, mean, std, threads); });
}

template <class T>
void backward(const CountryStage<T>& a, const T* h, const T* z, const T* mean, const T* std,
              const T* gz, const T* gmean, const T* gstd, const CountryGrads<T>& g, int threads) {
    with_width(a.d, [&](auto w) {
        backward_d<T, decltype(w)::value>(a, h, z, mean, std, gz, gmean, gstd, g, threads);
    });
}

#define EVENSTAR_INSTANTIATE(T)                                                              \
    template void forward<T>(const CountryStage<T>&, T*, T*, T*, T*, int);                   \
    template void backward<T>(const CountryStage<T>&, const T*, const T*, const T*, const T*, \
                              const T*, const T*, const T*, const CountryGrads<T>&, int);
EVENSTAR_INSTANTIATE(float)
EVENSTAR_INSTANTIATE(double)
#undef EVENSTAR_INSTANTIATE

}  // namespace evenstar::nn::EVENSTAR_NS
