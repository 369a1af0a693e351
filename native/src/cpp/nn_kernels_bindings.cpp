// Python bindings of the network kernels (nn_kernels.h): the module
// evenstar_native._kernels, separate from the rules engine's _core.  Arrays are CPU,
// C-contiguous buffers of one type, float32 or float64 (int64 for indices), never
// converted: a converted output would be a copy, and the results would be lost.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "nn_kernels.h"

namespace nb = nanobind;
using namespace evenstar::nn;

namespace {

template <class T>
using In = nb::ndarray<const T, nb::c_contig, nb::device::cpu>;
template <class T>
using Out = nb::ndarray<T, nb::c_contig, nb::device::cpu>;
using Idx = nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

bool has_avx2() {
#if defined(__x86_64__) || defined(__i386__)
    static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return yes;
#else
    return false;
#endif
}

bool generic_only = false;  // tests run the generic build on AVX2 CPUs too

bool use_avx2() { return has_avx2() && !generic_only; }

// The message is built only on failure (the checks run once a row).
void expect(bool ok, const char* what, const char* name = "") {
    if (!ok) throw std::invalid_argument(std::string("network kernel: ") + name + what);
}

template <class A>
size_t count(const A& a) {
    size_t k = 1;
    for (size_t i = 0; i < a.ndim(); ++i) k *= a.shape(i);
    return k;
}

// The inputs both stages share (TokenLayers), checked against each other's shapes.
template <class T>
void fill_layers(TokenLayers<T>& a, In<T> obs, Idx starts, In<T> ident, In<T> w_in,
                 In<T> w_out, In<T> bias) {
    expect(obs.ndim() == 2 && ident.ndim() == 2 && w_in.ndim() == 2, "obs, ident and w_in are 2-d");
    a.obs = obs.data();
    a.batch = int64_t(obs.shape(0));
    a.obs_size = int64_t(obs.shape(1));
    a.tokens = int(ident.shape(0));
    a.d = int(ident.shape(1));
    a.fields = int(starts.shape(0));
    expect(a.fields > 0 && a.d > 0 && a.d <= kMaxWidth, "fields > 0 and a width d <= 256");
    expect(w_in.shape(0) == size_t(a.d) && w_in.shape(1) == size_t(a.fields), "w_in is d x fields");
    expect(count(w_out) == size_t(a.d) * a.d && count(bias) == size_t(a.d), "w_out is d x d, bias d");
    for (size_t f = 0; f < starts.shape(0); ++f)
        expect(starts.data()[f] >= 0 && starts.data()[f] + a.tokens <= a.obs_size, "field outside obs");
    a.starts = starts.data();
    a.ident = ident.data();
    a.w_in = w_in.data();
    a.w_out = w_out.data();
    a.bias = bias.data();
}

// The country stage's inputs, checked against each other's shapes.
template <class T>
CountryStage<T> stage(In<T> obs, Idx starts, In<T> ident, In<T> w_in, In<T> w_out, In<T> w_nb,
                      In<T> bias, Idx ptr, Idx col, In<T> val, Idx tptr, Idx tcol, In<T> tval) {
    CountryStage<T> a;
    fill_layers<T>(a, obs, starts, ident, w_in, w_out, bias);
    const int n = a.tokens;
    expect(n > 1, "n > 1 countries");
    expect(count(w_nb) == size_t(a.d) * a.d, "w_nb is d x d");
    expect(ptr.shape(0) == size_t(n) + 1 && tptr.shape(0) == size_t(n) + 1, "CSR rows are n");
    expect(col.shape(0) == count(val) && tcol.shape(0) == count(tval), "CSR columns and values");
    expect(col.shape(0) == size_t(ptr.data()[n]) && tcol.shape(0) == size_t(tptr.data()[n]),
           "CSR row pointers end at the number of entries");
    for (size_t k = 0; k < col.shape(0); ++k) expect(col.data()[k] >= 0 && col.data()[k] < n, "CSR column");
    for (size_t k = 0; k < tcol.shape(0); ++k) expect(tcol.data()[k] >= 0 && tcol.data()[k] < n, "CSR column");
    a.w_nb = w_nb.data();
    a.ptr = ptr.data();
    a.col = col.data();
    a.val = val.data();
    a.tptr = tptr.data();
    a.tcol = tcol.data();
    a.tval = tval.data();
    return a;
}

template <class T>
void expect_size(const Out<T>& o, size_t k, const char* name) {
    expect(count(o) == k, " has the wrong size", name);
}

auto array_arg(const char* name) { return nb::arg(name).noconvert(); }

template <class T>
void bind(nb::module_& m) {
    m.def("country_forward",
          [](In<T> obs, Idx starts, In<T> ident, In<T> w_in, In<T> w_out, In<T> w_nb, In<T> bias,
             Idx ptr, Idx col, In<T> val, Idx tptr, Idx tcol, In<T> tval, Out<T> h, Out<T> z,
             Out<T> mean, Out<T> std, int threads) {
              auto a = stage<T>(obs, starts, ident, w_in, w_out, w_nb, bias, ptr, col, val, tptr, tcol, tval);
              const size_t tokens = size_t(a.batch) * a.tokens * a.d, pooled = size_t(a.batch) * a.d;
              expect_size(h, tokens, "h");
              expect_size(z, tokens, "z");
              expect_size(mean, pooled, "mean");
              expect_size(std, pooled, "std");
              nb::gil_scoped_release unlocked;
              (use_avx2() ? avx2::forward<T> : generic::forward<T>)(a, h.data(), z.data(), mean.data(),
                                                                    std.data(), threads);
          },
          array_arg("obs"), array_arg("starts"), array_arg("ident"), array_arg("w_in"), array_arg("w_out"),
          array_arg("w_nb"), array_arg("bias"), array_arg("ptr"), array_arg("col"), array_arg("val"),
          array_arg("tptr"), array_arg("tcol"), array_arg("tval"), array_arg("h"), array_arg("z"),
          array_arg("mean"), array_arg("std"), nb::arg("threads") = 1,
          "Fill h, z (B x n x d), mean and std (B x d) for the observations obs (B x obs_size).");
    m.def("country_backward",
          [](In<T> obs, Idx starts, In<T> ident, In<T> w_in, In<T> w_out, In<T> w_nb, In<T> bias,
             Idx ptr, Idx col, In<T> val, Idx tptr, Idx tcol, In<T> tval, In<T> h, In<T> z,
             In<T> mean, In<T> std, std::optional<In<T>> gz, In<T> gmean, In<T> gstd,
             Out<T> g_ident, Out<T> g_w_in, Out<T> g_w_out, Out<T> g_w_nb, Out<T> g_bias,
             int threads) {
              auto a = stage<T>(obs, starts, ident, w_in, w_out, w_nb, bias, ptr, col, val, tptr, tcol, tval);
              const size_t tokens = size_t(a.batch) * a.tokens * a.d, pooled = size_t(a.batch) * a.d;
              expect(count(h) == tokens && count(z) == tokens, "h and z are B x n x d");
              expect(count(mean) == pooled && count(std) == pooled, "mean and std are B x d");
              expect(count(gmean) == pooled && count(gstd) == pooled, "gmean and gstd are B x d");
              expect(!gz || count(*gz) == tokens, "gz is B x n x d");
              expect_size(g_ident, size_t(a.tokens) * a.d, "g_ident");
              expect_size(g_w_in, size_t(a.d) * a.fields, "g_w_in");
              expect_size(g_w_out, size_t(a.d) * a.d, "g_w_out");
              expect_size(g_w_nb, size_t(a.d) * a.d, "g_w_nb");
              expect_size(g_bias, size_t(a.d), "g_bias");
              CountryGrads<T> g{g_ident.data(), g_w_in.data(), g_w_out.data(), g_w_nb.data(), g_bias.data()};
              const T* gzp = gz ? gz->data() : nullptr;
              nb::gil_scoped_release unlocked;
              (use_avx2() ? avx2::backward<T> : generic::backward<T>)(
                  a, h.data(), z.data(), mean.data(), std.data(), gzp, gmean.data(), gstd.data(), g, threads);
          },
          array_arg("obs"), array_arg("starts"), array_arg("ident"), array_arg("w_in"), array_arg("w_out"),
          array_arg("w_nb"), array_arg("bias"), array_arg("ptr"), array_arg("col"), array_arg("val"),
          array_arg("tptr"), array_arg("tcol"), array_arg("tval"), array_arg("h"), array_arg("z"),
          array_arg("mean"), array_arg("std"), array_arg("gz").none(), array_arg("gmean"), array_arg("gstd"),
          array_arg("g_ident"), array_arg("g_w_in"), array_arg("g_w_out"), array_arg("g_w_nb"),
          array_arg("g_bias"), nb::arg("threads") = 1,
          "Fill the parameter gradients g_* from the output gradients gz (or None), gmean, gstd.");
}


// The card rows' inputs, checked against each other's shapes.
template <class T>
CardRows<T> card_rows(In<T> obs, Idx starts, Idx pos, Idx card, In<T> ident, In<T> w_in,
                      In<T> w_out, In<T> bias) {
    CardRows<T> a;
    fill_layers<T>(a, obs, starts, ident, w_in, w_out, bias);
    a.rows = int64_t(pos.shape(0));
    expect(card.shape(0) == pos.shape(0), "pos and card have one entry a row");
    for (int64_t r = 0; r < a.rows; ++r) {
        const int64_t b = pos.data()[r], k = card.data()[r];
        expect(b >= 0 && b < a.batch && k >= 0 && k < a.tokens, "row outside the batch or the cards");
        expect(r == 0 || b >= pos.data()[r - 1], "rows sorted by position");
    }
    a.pos = pos.data();
    a.card = card.data();
    return a;
}

template <class T>
const T* data_or_null(const std::optional<In<T>>& a, size_t k, const char* name) {
    if (!a) return nullptr;
    expect(count(*a) == k, " has the wrong size", name);
    return a->data();
}

template <class T>
void bind_cards(nb::module_& m) {
    m.def("card_forward",
          [](In<T> obs, Idx starts, Idx pos, Idx card, In<T> ident, In<T> w_in, In<T> w_out,
             In<T> bias, Out<T> h, Out<T> z, Out<T> sums, Out<T> hand, int threads) {
              auto a = card_rows<T>(obs, starts, pos, card, ident, w_in, w_out, bias);
              const size_t rows = size_t(a.rows) * a.d, pooled = size_t(a.batch) * a.d;
              expect_size(h, rows, "h");
              expect_size(z, rows, "z");
              expect_size(sums, pooled, "sums");
              expect_size(hand, pooled, "hand");
              nb::gil_scoped_release unlocked;
              (use_avx2() ? avx2::card_forward<T> : generic::card_forward<T>)(
                  a, h.data(), z.data(), sums.data(), hand.data(), threads);
          },
          array_arg("obs"), array_arg("starts"), array_arg("pos"), array_arg("card"),
          array_arg("ident"), array_arg("w_in"), array_arg("w_out"), array_arg("bias"),
          array_arg("h"), array_arg("z"), array_arg("sums"), array_arg("hand"),
          nb::arg("threads") = 1,
          "Fill h, z (rows x d) and per position sums and hand (B x d) of the rows (pos, card).");
    m.def("card_backward",
          [](In<T> obs, Idx starts, Idx pos, Idx card, In<T> ident, In<T> w_in, In<T> w_out,
             In<T> bias, In<T> h, In<T> z, std::optional<In<T>> gz, std::optional<In<T>> gsums,
             std::optional<In<T>> ghand, Out<T> g_ident, Out<T> g_w_in, Out<T> g_w_out,
             Out<T> g_bias, int threads) {
              auto a = card_rows<T>(obs, starts, pos, card, ident, w_in, w_out, bias);
              const size_t rows = size_t(a.rows) * a.d, pooled = size_t(a.batch) * a.d;
              expect(count(h) == rows && count(z) == rows, "h and z are rows x d");
              const T* gzp = data_or_null(gz, rows, "gz");
              const T* gsp = data_or_null(gsums, pooled, "gsums");
              const T* ghp = data_or_null(ghand, pooled, "ghand");
              expect_size(g_ident, size_t(a.tokens) * a.d, "g_ident");
              expect_size(g_w_in, size_t(a.d) * a.fields, "g_w_in");
              expect_size(g_w_out, size_t(a.d) * a.d, "g_w_out");
              expect_size(g_bias, size_t(a.d), "g_bias");
              CardGrads<T> g{g_ident.data(), g_w_in.data(), g_w_out.data(), g_bias.data()};
              nb::gil_scoped_release unlocked;
              (use_avx2() ? avx2::card_backward<T> : generic::card_backward<T>)(
                  a, h.data(), z.data(), gzp, gsp, ghp, g, threads);
          },
          array_arg("obs"), array_arg("starts"), array_arg("pos"), array_arg("card"),
          array_arg("ident"), array_arg("w_in"), array_arg("w_out"), array_arg("bias"),
          array_arg("h"), array_arg("z"), array_arg("gz").none(), array_arg("gsums").none(),
          array_arg("ghand").none(), array_arg("g_ident"), array_arg("g_w_in"),
          array_arg("g_w_out"), array_arg("g_bias"), nb::arg("threads") = 1,
          "Fill the parameter gradients g_* from the output gradients (each may be None).");
    m.def("card_rows",
          [](In<T> obs, Idx starts, int cards, nb::ndarray<bool, nb::ndim<2>, nb::c_contig, nb::device::cpu> present,
             nb::ndarray<int64_t, nb::ndim<2>, nb::c_contig, nb::device::cpu> row,
             nb::ndarray<int64_t, nb::ndim<2>, nb::c_contig, nb::device::cpu> rows) {
              const size_t batch = obs.shape(0), size = obs.shape(1);
              expect(present.shape(0) == batch && present.shape(1) == size_t(cards) &&
                         row.shape(0) == batch && row.shape(1) == size_t(cards),
                     "present and row are B x cards");
              expect(rows.shape(0) == 2 && rows.shape(1) == batch * cards, "rows is 2 x B*cards");
              for (size_t f = 0; f < starts.shape(0); ++f)
                  expect(starts.data()[f] >= 0 && starts.data()[f] + cards <= int64_t(size), "field outside obs");
              TokenLayers<T> a;
              a.obs = obs.data(), a.batch = int64_t(batch), a.obs_size = int64_t(size);
              a.starts = starts.data(), a.fields = int(starts.shape(0)), a.tokens = cards;
              int64_t* pos = rows.data();
              nb::gil_scoped_release unlocked;
              const int64_t r = (use_avx2() ? avx2::find_card_rows<T> : generic::find_card_rows<T>)(
                  a, present.data(), row.data(), pos, pos + batch * cards);
              return r;
          },
          array_arg("obs"), array_arg("starts"), nb::arg("cards"), array_arg("present"), array_arg("row"),
          array_arg("rows"),
          "The card rows of the observations obs (B x obs_size): present[b, k] whether card k has a\n"
          "non-zero field in position b; such (b, k) in order as rows[0, r], rows[1, r], with\n"
          "row[b, k] = r (-1 for the others).  Returns the number of rows.");
}

// A dense layer from its transposed weights (in x out) and bias, checked.
template <class T>
Dense<T> dense_layer(const In<T>& w_t, const In<T>& b) {
    expect(w_t.ndim() == 2 && b.ndim() == 1 && b.shape(0) == w_t.shape(1),
           "a layer is (in x out) weights, transposed, and out biases");
    return Dense<T>{w_t.data(), b.data(), int(w_t.shape(0)), int(w_t.shape(1))};
}

using Mask = nb::ndarray<const bool, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

template <class T>
void bind_infer(nb::module_& m) {
    m.def("infer",
          [](In<T> obs, Mask mask, Idx c_starts, In<T> c_ident, In<T> c_w_in, In<T> c_w_out, In<T> c_w_nb,
             In<T> c_bias, Idx ptr, Idx col, In<T> val, Idx tptr, Idx tcol, In<T> tval, Idx k_starts,
             In<T> k_ident, In<T> k_w_in, In<T> k_w_out, In<T> k_bias, In<T> base, Idx glob,
             std::vector<In<T>> weights, std::vector<In<T>> biases, In<T> country_corr, In<T> card_corr,
             int country0, int card0, Out<T> logits, Out<T> value) {
              PolicyNet<T> p;
              p.country = stage<T>(obs, c_starts, c_ident, c_w_in, c_w_out, c_w_nb, c_bias, ptr, col, val,
                                   tptr, tcol, tval);
              fill_layers<T>(p.cards, obs, k_starts, k_ident, k_w_in, k_w_out, k_bias);
              const int d = p.country.d, n = p.country.tokens, nc = p.cards.tokens;
              const size_t batch = obs.shape(0);
              expect(p.cards.d == d, "both stages have one token width");
              expect(base.ndim() == 2 && base.shape(0) == size_t(nc) && base.shape(1) == size_t(d),
                     "base is cards x d");
              p.base = base.data();
              expect(glob.shape(0) % 2 == 0, "glob holds [lo, hi) pairs");
              int64_t width = 0, last = 0;
              for (size_t j = 0; j < glob.shape(0); j += 2) {
                  const int64_t lo = glob.data()[j], hi = glob.data()[j + 1];
                  expect(last <= lo && lo <= hi && hi <= p.country.obs_size, "glob ranges in order inside obs");
                  width += hi - lo, last = hi;
              }
              p.glob.assign(glob.data(), glob.data() + glob.shape(0));
              expect(weights.size() == biases.size() && weights.size() >= 4,
                     "weights and biases of the trunk's layers, then of policy, value, country and card queries");
              std::vector<Dense<T>> layers;
              for (size_t j = 0; j < weights.size(); ++j) layers.push_back(dense_layer<T>(weights[j], biases[j]));
              p.trunk.assign(layers.begin(), layers.end() - 4);
              p.policy = layers.end()[-4], p.value = layers.end()[-3];
              p.country_query = layers.end()[-2], p.card_query = layers.end()[-1];
              int in = int(width + 4 * d);
              for (const auto& L : p.trunk) {
                  expect(L.in == in, "the trunk's layers chain from the global fields and 4 d pooled values");
                  in = L.out;
              }
              const int A = p.policy.out;
              expect(p.policy.in == in && p.value.in == in && p.country_query.in == in && p.card_query.in == in,
                     "the heads read the trunk's output");
              expect(p.value.out == 1 && p.country_query.out == d && p.card_query.out == d,
                     "a value, and queries of width d");
              expect(count(country_corr) == size_t(d) + 1 && count(card_corr) == size_t(d) + 1,
                     "each correction is d weights and a bias");
              p.country_corr = country_corr.data(), p.card_corr = card_corr.data();
              expect(country0 >= 0 && country0 + n <= A && card0 >= 0 && card0 + nc <= A,
                     "the country and card actions lie among the actions");
              p.country0 = country0, p.card0 = card0, p.n_actions = A;
              expect(mask.shape(0) == batch && mask.shape(1) == size_t(A), "mask is B x actions");
              expect_size(logits, batch * A, "logits");
              expect_size(value, batch, "value");
              nb::gil_scoped_release unlocked;
              (use_avx2() ? avx2::infer<T> : generic::infer<T>)(p, mask.data(), logits.data(), value.data());
          },
          array_arg("obs"), array_arg("mask"), array_arg("c_starts"), array_arg("c_ident"), array_arg("c_w_in"),
          array_arg("c_w_out"), array_arg("c_w_nb"), array_arg("c_bias"), array_arg("ptr"), array_arg("col"),
          array_arg("val"), array_arg("tptr"), array_arg("tcol"), array_arg("tval"), array_arg("k_starts"),
          array_arg("k_ident"), array_arg("k_w_in"), array_arg("k_w_out"), array_arg("k_bias"), array_arg("base"),
          array_arg("glob"), array_arg("weights"), array_arg("biases"), array_arg("country_corr"),
          array_arg("card_corr"), nb::arg("country0"), nb::arg("card0"), array_arg("logits"), array_arg("value"),
          "The structured network's masked logits (B x actions) and values (B) of obs under mask,\n"
          "without gradients (agents/networks.py, StructuredPolicyValue.forward).");
}

}  // namespace

NB_MODULE(_kernels, m) {
    m.doc() = "Fused neural-network kernels of the structured policy (not the rules engine).";
    m.attr("VERSION") = 3;  // agents/kernels.py uses only the version it speaks
#ifdef _OPENMP
    m.attr("OPENMP") = true;  // the threads are OpenMP's (PyTorch's pool), see run_parts
#else
    m.attr("OPENMP") = false;
#endif
    bind<float>(m);
    bind<double>(m);
    bind_infer<float>(m);
    bind_infer<double>(m);
    bind_cards<float>(m);
    bind_cards<double>(m);
    m.def("has_avx2", &has_avx2, "Whether this CPU can run the kernels' AVX2/FMA build.");
    m.def("uses_avx2", &use_avx2, "Whether the kernels run their AVX2/FMA build.");
    m.def("force_generic", [](bool on) { generic_only = on; }, nb::arg("on"),
          "Run the generic build even where the AVX2/FMA one could run (tests).");
}
