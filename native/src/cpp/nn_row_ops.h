// Loops over rows of d values shared by the network kernels (nn_kernels.h), included
// once per instruction-set build: the including file defines EVENSTAR_NS.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <type_traits>
#include <vector>

namespace evenstar::nn::EVENSTAR_NS {
namespace {

template <class T>
std::vector<T> transposed(const T* w, int rows, int cols) {
    std::vector<T> t(size_t(rows) * cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) t[size_t(c) * rows + r] = w[size_t(r) * cols + c];
    return t;
}

// The number of parts `split` makes: one per thread, each of at least 64 items.
inline int parts_for(int64_t batch, int threads) {
    return int(std::max<int64_t>(1, std::min<int64_t>(threads, batch / 64)));
}

// Run f(cut[p], cut[p + 1], p) for each part p of the increasing `cut`.  Built with
// OpenMP, the parts run on its threads: PyTorch's own pool (the module loads the
// libgomp that torch already has), so no thread of ours competes with a pool thread
// still spinning after PyTorch's last operation (which made two threads slower than
// one in the trainer).  Without OpenMP, the caller's thread takes the first part and
// std::threads the others.
template <class F>
void run_parts(const std::vector<int64_t>& cut, F f) {
    const int parts = int(cut.size()) - 1;
    if (parts == 1) return f(cut[0], cut[1], 0);
#ifdef _OPENMP
#pragma omp parallel for num_threads(parts) schedule(static, 1)
    for (int p = 0; p < parts; ++p) f(cut[p], cut[p + 1], p);
#else
    std::vector<std::thread> pool;
    for (int p = 1; p < parts; ++p) pool.emplace_back(f, cut[p], cut[p + 1], p);
    f(cut[0], cut[1], 0);
    for (auto& t : pool) t.join();
#endif
}

// Run f(lo, hi, part) on the parts of [0, batch) (`parts_for`, equal sizes).
template <class F>
void split(int64_t batch, int threads, F f) {
    const int parts = parts_for(batch, threads);
    std::vector<int64_t> cut(parts + 1);
    for (int p = 0; p <= parts; ++p) cut[p] = batch * p / parts;
    run_parts(cut, f);
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

// out[k] = g[k] where ref[k] > 0, else 0 (k < len): a ReLU's backward, as vector
// selects (the compiler turns the plain loop into a branch per value, mispredicted).
template <class T>
inline void gated(T* out, const T* g, const T* ref, size_t len) {
    constexpr size_t L = 32 / sizeof(T);
    size_t k = 0;
    for (; k + L <= len; k += L) {
        const Vec<T> r = load(ref + k), v = load(g + k);
        store(out + k, r > Vec<T>{} ? v : Vec<T>{});
    }
    for (; k < len; ++k) out[k] = ref[k] > 0 ? g[k] : T(0);
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


// f(std::integral_constant<int, D>{}): D = d for the widths with compile-time loops (16,
// 32), else 0 (loops on the run-time width).
template <class F>
void with_width(int d, F f) {
    if (d == 16) return f(std::integral_constant<int, 16>{});
    if (d == 32) return f(std::integral_constant<int, 32>{});
    f(std::integral_constant<int, 0>{});
}

// out (rows x cols) = in transposed (in: cols x rows)
template <class T>
void transpose_into(T* out, const T* in, int rows, int cols) {
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) out[size_t(r) * cols + c] = in[size_t(c) * rows + r];
}

// The parameter gradients of a stage, summed by each thread part, then over the parts.
// The weight gradients are kept transposed (a row per input, as the loops add them).
template <class T>
class GradSums {
  public:
    struct Part {
        T *ident, *w_in_t, *w_out_t, *bias, *w_nb_t;
    };

    GradSums(int tokens, int fields, int d, bool w_nb, int parts)
        : fields_(fields), d_(d), w_nb_(w_nb),
          total_(size_t(tokens + fields + d + 1 + (w_nb ? d : 0)) * d),
          sums_(total_ * parts, T(0)) {}

    Part part(int p) {
        T* s = &sums_[total_ * p];
        const size_t ident = total_ - size_t(fields_ + d_ + 1 + (w_nb_ ? d_ : 0)) * d_;
        Part q{s, s + ident, nullptr, nullptr, nullptr};
        q.w_out_t = q.w_in_t + size_t(fields_) * d_;
        q.bias = q.w_out_t + size_t(d_) * d_;
        q.w_nb_t = w_nb_ ? q.bias + d_ : nullptr;
        return q;
    }

    // Sum the parts into the gradients, shaped as the parameters.
    void write(T* ident, T* w_in, T* w_out, T* bias, T* w_nb = nullptr) {
        for (size_t p = 1; p < sums_.size() / total_; ++p)
            for (size_t k = 0; k < total_; ++k) sums_[k] += sums_[total_ * p + k];
        const Part s = part(0);
        std::copy(s.ident, s.w_in_t, ident);
        transpose_into(w_in, s.w_in_t, d_, fields_);
        transpose_into(w_out, s.w_out_t, d_, d_);
        std::copy(s.bias, s.bias + d_, bias);
        if (w_nb_) transpose_into(w_nb, s.w_nb_t, d_, d_);
    }

  private:
    int fields_, d_;
    bool w_nb_;
    size_t total_;
    std::vector<T> sums_;
};

}  // namespace
}  // namespace evenstar::nn::EVENSTAR_NS
