// The country-stage kernels (country_stage.h), included once per instruction set: the
// including file defines EVENSTAR_NS (the namespace) and is compiled with its flags.
// The loops run over the token width d, contiguous, which the compiler vectorises; for
// the usual widths d is a compile-time constant.
#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "country_stage.h"

namespace evenstar::nn::EVENSTAR_NS {
namespace {

template <class T>
std::vector<T> transposed(const T* w, int rows, int cols) {
    std::vector<T> t(size_t(rows) * cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) t[size_t(c) * rows + r] = w[size_t(r) * cols + c];
    return t;
}

// Run f(lo, hi, part) on `threads` parts of [0, batch) (the caller's thread takes one).
template <class F>
void split(int64_t batch, int threads, F f) {
    int parts = int(std::max<int64_t>(1, std::min<int64_t>(threads, batch / 64)));
    std::vector<std::thread> pool;
    for (int p = 1; p < parts; ++p)
        pool.emplace_back(f, batch * p / parts, batch * (p + 1) / parts, p);
    f(0, batch / parts, 0);
    for (auto& t : pool) t.join();
}

// A row of D values as GCC/Clang vectors of 32 bytes (two AVX registers for 16 floats;
// pairs of SSE registers in the generic build): the loops over a row are written on
// them, because the compiler's own vectorisation of these short loops picks the wrong
// loop and shuffles.  D = 0 (a width known only at run time) takes plain loops.
// The loops have no branches on the data: a mispredicted branch per value costs more
// than the multiply it would skip.
template <class T>
struct VecOf;
template <>
struct VecOf<float> {
    typedef float type __attribute__((vector_size(32)));
};
template <>
struct VecOf<double> {
    typedef double type __attribute__((vector_size(32)));
};
template <class T>
using Vec = typename VecOf<T>::type;

template <class T>
inline Vec<T> load(const T* p) {
    Vec<T> x;
    __builtin_memcpy(&x, p, sizeof(x));
    return x;
}

template <class T>
inline void store(T* p, Vec<T> x) {
    __builtin_memcpy(p, &x, sizeof(x));
}

// out[0..d) = init[0..d) (or 0) + sum_k coef[k * cs] * rows[k * d .. k * d + d),  k < count
template <class T, int D>
inline void combine(T* out, const T* init, const T* __restrict coef, int64_t cs,
                    const T* __restrict rows, int count, int d) {
    if constexpr (D > 0) {
        constexpr int L = int(32 / sizeof(T)), N = D / L;
        static_assert(D % L == 0, "the width is a multiple of the vector length");
        // Two sets of sums (even and odd k), so that the additions do not wait on each other.
        Vec<T> acc[N], odd[N] = {};
#pragma GCC unroll 8
        for (int j = 0; j < N; ++j) acc[j] = init ? load(init + j * L) : Vec<T>{};
        int k = 0;
        for (; k + 1 < count; k += 2) {
            const Vec<T> b = coef[k * cs] - Vec<T>{}, c = coef[(k + 1) * cs] - Vec<T>{};
#pragma GCC unroll 8
            for (int j = 0; j < N; ++j) {
                acc[j] += b * load(rows + size_t(k) * D + j * L);
                odd[j] += c * load(rows + size_t(k + 1) * D + j * L);
            }
        }
        if (k < count) {
            const Vec<T> b = coef[k * cs] - Vec<T>{};
#pragma GCC unroll 8
            for (int j = 0; j < N; ++j) acc[j] += b * load(rows + size_t(k) * D + j * L);
        }
#pragma GCC unroll 8
        for (int j = 0; j < N; ++j) store(out + j * L, acc[j] + odd[j]);
    } else {
        std::vector<T> acc(d, T(0));
        if (init) std::copy(init, init + d, acc.begin());
        for (int k = 0; k < count; ++k)
            for (int r = 0; r < d; ++r) acc[r] += coef[k * cs] * rows[size_t(k) * d + r];
        std::copy(acc.begin(), acc.end(), out);
    }
}

// out (n x d) = A x (n x d), A in CSR (ptr, col, val)
template <class T, int D>
inline void spmm(const int64_t* ptr, const int64_t* col, const T* val, const T* x, T* out,
                 int n, int d) {
    for (int i = 0; i < n; ++i) {
        if constexpr (D > 0) {
            constexpr int L = int(32 / sizeof(T)), N = D / L;
            Vec<T> acc[N] = {};
            for (int64_t p = ptr[i]; p < ptr[i + 1]; ++p) {
                const Vec<T> b = val[p] - Vec<T>{};
#pragma GCC unroll 8
                for (int j = 0; j < N; ++j) acc[j] += b * load(x + col[p] * D + j * L);
            }
#pragma GCC unroll 8
            for (int j = 0; j < N; ++j) store(out + size_t(i) * D + j * L, acc[j]);
        } else {
            std::fill(out + size_t(i) * d, out + size_t(i + 1) * d, T(0));
            for (int64_t p = ptr[i]; p < ptr[i + 1]; ++p)
                for (int r = 0; r < d; ++r) out[size_t(i) * d + r] += val[p] * x[col[p] * d + r];
        }
    }
}

// g (rows x d) += sum_i a[i, 0..rows) (outer) b[i, 0..d),  i < n  (a is n x rows, row stride as)
template <class T, int D>
inline void outer_sum(T* __restrict g, const T* __restrict a, int64_t as, int rows,
                      const T* __restrict b, int n, int d) {
    for (int c = 0; c < rows; ++c) combine<T, D>(g + size_t(c) * (D ? D : d), g + size_t(c) * (D ? D : d),
                                                 a + c, as, b, n, d);
}

template <class T, int D>
void forward_d(const CountryStage<T>& a, T* H, T* Z, T* mean, T* std, int threads) {
    const int n = a.n, d = D ? D : a.d, F = a.fields;
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
    const int n = a.n, d = D ? D : a.d, F = a.fields;
    // Per part: d(ident) n x d, d(W_in)^T F x d, d(W_out)^T d x d, d(W_nb)^T d x d, d(bias).
    const size_t sizes[5] = {size_t(n) * d, size_t(F) * d, size_t(d) * d, size_t(d) * d, size_t(d)};
    size_t total = 0;
    for (size_t s : sizes) total += s;
    const int parts = int(std::max<int64_t>(1, std::min<int64_t>(threads, a.batch / 64)));
    std::vector<T> acc_all(total * parts, T(0));
    split(a.batch, threads, [&](int64_t lo, int64_t hi, int part) {
        T* g_ident = &acc_all[total * part];
        T* g_win_t = g_ident + sizes[0];
        T* g_wout_t = g_win_t + sizes[1];
        T* g_wnb_t = g_wout_t + sizes[2];
        T* g_bias = g_wnb_t + sizes[3];
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
            for (int i = 0; i < n; ++i)
                for (int r = 0; r < d; ++r) {
                    const size_t k = size_t(i) * d + r;
                    gp[k] = z[k] > 0 ? (gZ ? gZ[b * nd + k] : T(0)) + gm[r] + coef[r] * (z[k] - m[r]) : T(0);
                }
            spmm<T, D>(a.ptr, a.col, a.val, h, nb.data(), n, d);
            combine<T, D>(g_bias, g_bias, ones.data(), 1, gp.data(), n, d);
            outer_sum<T, D>(g_wout_t, h, d, d, gp.data(), n, d);
            outer_sum<T, D>(g_wnb_t, nb.data(), d, d, gp.data(), n, d);
            for (int i = 0; i < n; ++i) {
                combine<T, D>(&gh[size_t(i) * d], nullptr, &gp[size_t(i) * d], 1, a.w_out, d, d);
                combine<T, D>(&gnb[size_t(i) * d], nullptr, &gp[size_t(i) * d], 1, a.w_nb, d, d);
            }
            spmm<T, D>(a.tptr, a.tcol, a.tval, gnb.data(), gq.data(), n, d);
            for (size_t k = 0; k < nd; ++k) gq[k] = h[k] > 0 ? gq[k] + gh[k] : T(0);
            for (size_t k = 0; k < nd; ++k) g_ident[k] += gq[k];
            for (int f = 0; f < F; ++f)
                for (int i = 0; i < n; ++i) x[size_t(i) * F + f] = o[a.starts[f] + i];
            outer_sum<T, D>(g_win_t, x.data(), F, F, gq.data(), n, d);
        }
    });
    for (int p = 1; p < parts; ++p)
        for (size_t k = 0; k < total; ++k) acc_all[k] += acc_all[total * p + k];
    const T* s = acc_all.data();
    std::copy(s, s + sizes[0], g.ident);
    s += sizes[0];
    for (int f = 0; f < F; ++f)
        for (int r = 0; r < d; ++r) g.w_in[size_t(r) * F + f] = s[size_t(f) * d + r];
    s += sizes[1];
    for (T* out : {g.w_out, g.w_nb}) {
        for (int c = 0; c < d; ++c)
            for (int r = 0; r < d; ++r) out[size_t(r) * d + c] = s[size_t(c) * d + r];
        s += sizes[2];
    }
    std::copy(s, s + sizes[4], g.bias);
}

}  // namespace

template <class T>
void forward(const CountryStage<T>& a, T* h, T* z, T* mean, T* std, int threads) {
    if (a.d == 16) return forward_d<T, 16>(a, h, z, mean, std, threads);
    if (a.d == 32) return forward_d<T, 32>(a, h, z, mean, std, threads);
    forward_d<T, 0>(a, h, z, mean, std, threads);
}

template <class T>
void backward(const CountryStage<T>& a, const T* h, const T* z, const T* mean, const T* std,
              const T* gz, const T* gmean, const T* gstd, const CountryGrads<T>& g, int threads) {
    if (a.d == 16) return backward_d<T, 16>(a, h, z, mean, std, gz, gmean, gstd, g, threads);
    if (a.d == 32) return backward_d<T, 32>(a, h, z, mean, std, gz, gmean, gstd, g, threads);
    backward_d<T, 0>(a, h, z, mean, std, gz, gmean, gstd, g, threads);
}

#define EVENSTAR_INSTANTIATE(T)                                                              \
    template void forward<T>(const CountryStage<T>&, T*, T*, T*, T*, int);                   \
    template void backward<T>(const CountryStage<T>&, const T*, const T*, const T*, const T*, \
                              const T*, const T*, const T*, const CountryGrads<T>&, int);
EVENSTAR_INSTANTIATE(float)
EVENSTAR_INSTANTIATE(double)
#undef EVENSTAR_INSTANTIATE

}  // namespace evenstar::nn::EVENSTAR_NS
