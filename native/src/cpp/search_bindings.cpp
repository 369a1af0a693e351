// Python bindings of search.h: module functions over Engine objects (used by
// evenstar_env/native/game.py and agents/, see docs/native.md "Agents").
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cmath>

#include "engine_py.h"
#include "search.h"

namespace nb = nanobind;
using namespace evenstar;

namespace {

using I64Array = nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

bool fine(const State& s) {
    return s.p_kind == K_PLACE || s.p_kind == K_INFLUENCE || s.p_kind == K_REALIGN ||
           s.p_kind == K_TRADE;
}

// agents/ismcts.py ISMCTSAgent._rollout on the game in place: (reward, policy stream).
std::pair<double, uint64_t> rollout(Engine& e, int me, int depth, uint64_t rng,
                                    const EvalWeights& w, double w_forced_war,
                                    double eval_scale) {
    if (me != USA && me != CHINA) throw EngineError("player is 0 or 1");
    State& s = e.checked();
    const Tables& t = *e.t;
    for (int k = 0; k < depth; ++k) {
        if (s.over || (k && s.p_kind == K_CARD && s.p_player == me)) break;
        step_state(t, s, fast_policy_act(t, s, rng));
    }
    double v = evaluate(t, s, me, w);
    if (std::fabs(v) >= w.win) {
        e.leave();
        return {std::copysign(1.0, v), rng};
    }
    v -= w_forced_war * double(forced_war_plays(t, s, me));
    e.leave();
    return {std::tanh(v / eval_scale), rng};
}

}  // namespace

void bind_search(nb::module_& m) {
    nb::class_<EvalWeights>(m, "EvalWeights")
        .def("__init__", [](EvalWeights* w, std::vector<double> v) {
            if (v.size() != 10) throw EngineError("EvalWeights: ten weights");
            new (w) EvalWeights{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]};
        }, "win, vp, region, subregion, level, danger, reserves, tech, bg_influence, "
           "held_scoring (agents/evaluation.py)");
    m.def("resample_hidden", [](const Engine& e, int player, uint64_t seed) {
        if (player != USA && player != CHINA) throw EngineError("player is 0 or 1");
        Engine out = e.clone();
        resample_hidden(*out.t, *out.s, player, seed);
        return out;
    }, "a copy with what `player` cannot see redrawn from a SplitMix64 stream at `seed`");
    m.def("evaluate", [](const Engine& e, int p, const EvalWeights& w) {
        if (p != USA && p != CHINA) throw EngineError("player is 0 or 1");
        return evaluate(*e.t, e.checked(), p, w);
    }, "agents.evaluation.evaluate for side p");
    m.def("action_values", [](const Engine& e, int p, I64Array actions, const EvalWeights& w) {
        if (p != USA && p != CHINA) throw EngineError("player is 0 or 1");
        const size_t n = actions.shape(0);
        const State& s = e.checked();
        for (size_t k = 0; k < n; ++k) {
            bool ok = false;
            for (int j = 0; j < s.p_nlegal && !ok; ++j) ok = s.p_legal[j] == actions(k);
            if (!ok || !s.has_pending) throw EngineError("action_values: an action is not legal");
        }
        auto* out = new double[n + 1];
        {
            nb::gil_scoped_release release;
            std::unique_ptr<State> sim(new State);
            for (size_t k = 0; k < n; ++k) {
                copy_state(*sim, s);
                step_state(*e.t, *sim, int(actions(k)));
                out[k] = evaluate(*e.t, *sim, p, w);
            }
        }
        nb::capsule owner(out, [](void* q) noexcept { delete[] static_cast<double*>(q); });
        size_t shape[1] = {n};
        return nb::ndarray<nb::numpy, double, nb::ndim<1>>(out, 1, shape, owner);
    }, "evaluate(p) after each action, each on its own copy of the game");
    m.def("fast_policy_act", [](const Engine& e, uint64_t rng) {
        if (!e.checked().has_pending) throw EngineError("the game is over");
        int a = fast_policy_act(*e.t, *e.s, rng);
        return std::make_pair(a, rng);
    }, "FastPolicy.act: (action, new stream state)");
    m.def("advance_fine", [](Engine& e, uint64_t rng) {
        e.checked();
        while (!e.s->over && fine(*e.s)) step_state(*e.t, *e.s, fast_policy_act(*e.t, *e.s, rng));
        e.leave();
        return rng;
    }, "FastPolicy steps while the decision is a fine-grained one (ismcts.FINE_KINDS)");
    m.def("pending_parts", [](const Engine& e) -> nb::object {
        const State& s = *e.s;  // read only (no check): the count is clamped
        if (!s.has_pending) return nb::none();
        nb::list legal;
        for (int k = 0; k < std::clamp(s.p_nlegal, 0, MAXLEGAL); ++k) legal.append(int(s.p_legal[k]));
        return nb::make_tuple(s.p_player, s.p_kind, nb::tuple(legal),
                              nb::make_tuple(s.p_ctx[0], s.p_ctx[1], s.p_ctx[2], s.p_ctx[3]));
    }, "(player, kind index, legal tuple, ctx ints) of the pending decision, or None");
    m.def("forced_war_plays", [](const Engine& e, int p) {
        if (p != USA && p != CHINA) throw EngineError("player is 0 or 1");
        return forced_war_plays(*e.t, e.checked(), p);
    });
    m.def("rollout", &rollout, nb::arg("engine"), nb::arg("me"), nb::arg("depth"),
          nb::arg("rng"), nb::arg("weights"), nb::arg("w_forced_war"), nb::arg("eval_scale"),
          "ISMCTSAgent._rollout in place: (reward, new policy stream state)");
}
