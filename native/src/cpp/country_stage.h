// The country stage of the structured policy network (agents/networks.py), fused:
// forward and backward of
//     h_i = relu(W_in x_i + ident_i)            x_i: country i's fields of the observation
//     z_i = relu(W_out h_i + W_nb sum_j A_ij h_j + bias)
//     mean = mean_i z_i,  std = std_i z_i       (over the n countries, unbiased)
// per position, in one pass over each position's n x d values instead of a dozen
// tensor-wide passes.  Not part of the rules engine: no bit-identity promise (the order
// of the sums differs from PyTorch's); tests hold it to PyTorch within rounding.
#pragma once

#include <cstdint>

namespace evenstar::nn {

constexpr int kMaxWidth = 256;  // the largest token width d

template <class T>
struct CountryStage {
    const T* obs = nullptr;          // B x obs_size
    int64_t batch = 0, obs_size = 0;
    const int64_t* starts = nullptr;  // field f of country i is obs[b, starts[f] + i]
    int fields = 0, n = 0, d = 0;
    const T* ident = nullptr;   // n x d: the country's own term (the first layer's bias included)
    const T* w_in = nullptr;    // d x fields
    const T* w_out = nullptr;   // d x d
    const T* w_nb = nullptr;    // d x d
    const T* bias = nullptr;    // d
    const int64_t *ptr = nullptr, *col = nullptr;  // A in CSR (n rows)
    const T* val = nullptr;
    const int64_t *tptr = nullptr, *tcol = nullptr;  // A transposed, in CSR
    const T* tval = nullptr;
};

template <class T>
struct CountryGrads {
    T *ident, *w_in, *w_out, *w_nb, *bias;  // shaped as the parameters
};

// One instruction-set build of the kernels (country_stage_impl.h).
#define EVENSTAR_COUNTRY_STAGE_DECLARE(ns)                                                  \
    namespace ns {                                                                          \
    template <class T>                                                                      \
    void forward(const CountryStage<T>& a, T* h, T* z, T* mean, T* std, int threads);       \
    template <class T>                                                                      \
    void backward(const CountryStage<T>& a, const T* h, const T* z, const T* mean,          \
                  const T* std, const T* gz, const T* gmean, const T* gstd,                 \
                  const CountryGrads<T>& g, int threads);                                   \
    }

EVENSTAR_COUNTRY_STAGE_DECLARE(generic)
EVENSTAR_COUNTRY_STAGE_DECLARE(avx2)

}  // namespace evenstar::nn
