// Fused kernels of the structured policy network (agents/networks.py); not part of the
// rules engine: no bit-identity promise (the order of the sums differs from PyTorch's);
// tests hold them to PyTorch within rounding.
//
// The country stage:
// forward and backward of
//     h_i = relu(W_in x_i + ident_i)            x_i: country i's fields of the observation
//     z_i = relu(W_out h_i + W_nb sum_j A_ij h_j + bias)
//     mean = mean_i z_i,  std = std_i z_i       (over the n countries, unbiased)
// per position, in one pass over each position's n x d values instead of a dozen
// tensor-wide passes.
//
// The card rows: for the (position b, card k) pairs whose fields x are not all 0,
//     h = relu(W_in x + ident_k),  z = relu(W_out h + bias)
// and per position the sum of z and the sum of x_0 z (x_0: the card is in one's hand).
#pragma once

#include <cstdint>
#include <vector>

namespace evenstar::nn {

constexpr int kMaxWidth = 256;  // the largest token width d (agents/kernels.py: MAX_WIDTH)

// What both stages read: the observations, where each token's fields lie in them, and
// the two layers every token goes through.
template <class T>
struct TokenLayers {
    const T* obs = nullptr;  // B x obs_size
    int64_t batch = 0, obs_size = 0;
    const int64_t* starts = nullptr;  // field f of token i is obs[b, starts[f] + i]
    int fields = 0, tokens = 0, d = 0;
    const T* ident = nullptr;  // tokens x d: the token's own term (the first layer's bias included)
    const T* w_in = nullptr;   // d x fields
    const T* w_out = nullptr;  // d x d
    const T* bias = nullptr;   // d
};

template <class T>
struct CountryStage : TokenLayers<T> {  // tokens: the n countries
    const T* w_nb = nullptr;  // d x d
    const int64_t *ptr = nullptr, *col = nullptr;  // A in CSR (n rows)
    const T* val = nullptr;
    const int64_t *tptr = nullptr, *tcol = nullptr;  // A transposed, in CSR
    const T* tval = nullptr;
};

template <class T>
struct CountryGrads {
    T *ident, *w_in, *w_out, *w_nb, *bias;  // shaped as the parameters
};

template <class T>
struct CardRows : TokenLayers<T> {  // tokens: the cards
    int64_t rows = 0;
    const int64_t *pos = nullptr, *card = nullptr;  // the rows' (b, k), sorted by b
};

template <class T>
struct CardGrads {
    T *ident, *w_in, *w_out, *bias;  // shaped as the parameters
};

// A dense layer y = W x + b, with W given transposed (in x out: a row per input).
template <class T>
struct Dense {
    const T* w_t = nullptr;
    const T* b = nullptr;
    int in = 0, out = 0;
};

constexpr double kIllegalLogit = -1e9;  // agents/networks.py: NEG

// The whole structured network for inference (nn_infer.h): its two token stages (the
// card rows' pos, card and rows are found by the pass itself), the absent cards'
// tokens, where the trunk's global fields lie, the trunk (a ReLU after each layer) and
// the heads.  The corrections are d weights then a bias each.
template <class T>
struct PolicyNet {
    CountryStage<T> country;
    CardRows<T> cards;
    const T* base = nullptr;    // cards x d
    std::vector<int64_t> glob;  // the global fields: [lo, hi) ranges of the observation, in order
    std::vector<Dense<T>> trunk;
    Dense<T> policy, value, country_query, card_query;
    const T *country_corr = nullptr, *card_corr = nullptr;
    int country0 = 0, card0 = 0, n_actions = 0;
};

// One instruction-set build of the kernels (nn_country_stage.h, nn_card_stage.h).
#define EVENSTAR_COUNTRY_STAGE_DECLARE(ns)                                                  \
    namespace ns {                                                                          \
    template <class T>                                                                      \
    void forward(const CountryStage<T>& a, T* h, T* z, T* mean, T* std, int threads);       \
    template <class T>                                                                      \
    void backward(const CountryStage<T>& a, const T* h, const T* z, const T* mean,          \
                  const T* std, const T* gz, const T* gmean, const T* gstd,                 \
                  const CountryGrads<T>& g, int threads);                                   \
    template <class T>                                                                      \
    int64_t find_card_rows(const TokenLayers<T>& a, bool* present, int64_t* row,            \
                           int64_t* pos, int64_t* card);                                    \
    template <class T>                                                                      \
    void card_forward(const CardRows<T>& a, T* h, T* z, T* sums, T* hand, int threads);     \
    template <class T>                                                                      \
    void infer(const PolicyNet<T>& p, const bool* mask, T* logits, T* value);               \
    template <class T>                                                                      \
    void card_backward(const CardRows<T>& a, const T* h, const T* z, const T* gz,           \
                       const T* gsums, const T* ghand, const CardGrads<T>& g, int threads); \
    }

EVENSTAR_COUNTRY_STAGE_DECLARE(generic)
EVENSTAR_COUNTRY_STAGE_DECLARE(avx2)

}  // namespace evenstar::nn
