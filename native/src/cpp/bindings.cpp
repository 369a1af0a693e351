// Python bindings of the native core (nanobind): Tables, Engine, an all-C++ random loop.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>

#include "engine.h"
#include "batch.h"
#include "observation.h"
#include "engine_py.h"
#include "validate.h"

namespace nb = nanobind;
using namespace evenstar;

void bind_search(nb::module_& m);  // search_bindings.cpp

namespace {

using I32Array = nb::ndarray<const int32_t, nb::c_contig, nb::device::cpu>;
using ObsRow = nb::ndarray<float, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using ObsRows = nb::ndarray<float, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

int obs_size(const Tables& t) {
    if (!t.obs) throw EngineError("these tables have no observation encoder");
    return t.obs->size;
}

void load(Table& tb, nb::dict d, const char* name) {
    if (!d.contains(name)) throw EngineError(std::string("missing table ") + name);
    auto a = nb::cast<I32Array>(d[name]);
    if (a.ndim() > 2) throw EngineError(std::string("table has more than 2 dimensions: ") + name);
    tb.rows = a.ndim() == 0 ? 1 : int(a.shape(0));
    tb.cols = a.ndim() == 2 ? int(a.shape(1)) : 1;
    tb.v.assign(a.data(), a.data() + size_t(tb.rows) * size_t(tb.cols));
}

std::shared_ptr<Tables> make_tables(nb::dict d) {
    auto t = std::make_shared<Tables>();
#define L(x) load(t->x, d, #x);
    L(scalars) L(effects) L(conds) L(selectors) L(sel_static) L(options) L(outcomes) L(cards)
    L(hist) L(russia_boxes) L(tech_usa) L(tech_china) L(social_zone) L(economy_zone)
    L(improve_attempts) L(improve_success) L(modifier_costs) L(modifier_values) L(era_turns)
    L(spare_turns) L(spare_rows) L(persistent) L(ops_mod) L(ctrl_stab) L(stab) L(has_stab) L(bg)
    L(au_ok) L(adj) L(adj_sp) L(trade_reach) L(region_matrix) L(subregion_matrix)
    L(region_values) L(pool) L(init_inf_us) L(init_inf_cn) L(init_non_realignable)
    L(init_tracks) L(init_reserves) L(init_card_loc) L(init_hist_loc) L(init_misc) L(init_stack)
    L(v_frame) L(v_dom) L(v_misc) L(v_kind)
#undef L
    if (t->effects.cols != EF_COUNT_ || t->conds.cols != CF_COUNT_ ||
        t->cards.cols != CD_COUNT_ || t->hist.cols != HF_COUNT_ || t->scalars.rows != S_COUNT_)
        throw EngineError("table layout differs from names_gen.h: regenerate and rebuild");
    t->finish();
    prepare_validation(*t);
    std::map<std::string, Table> obs;  // the observation encoder's tables (obs_tables.py)
    for (auto item : d) {
        std::string key = nb::cast<std::string>(item.first);
        if (key.rfind("obs_", 0) == 0) load(obs[key], d, key.c_str());
    }
    if (!obs.empty()) t->obs = make_obs_tables(obs, *t);
    return t;
}

// Nanoseconds per clone of `e`'s state inside C++ (what a C++ search loop pays).
double clone_ns(const Engine& e, long n) {
    std::unique_ptr<State> dst(new State());
    auto t0 = std::chrono::steady_clock::now();
    for (long k = 0; k < n; ++k) {
        copy_state(*dst, *e.s);
        asm volatile("" : : "r"(dst.get()) : "memory");
    }
    auto dt = std::chrono::steady_clock::now() - t0;
    return std::chrono::duration<double, std::nano>(dt).count() / double(n);
}

void check_card_side(const Tables& t, int card, int side) {
    if (card < 0 || card >= t.nc || (side != USA && side != CHINA))
        throw EngineError("no such card or side");
}

uint64_t seed_state(uint64_t seed) { return seed * 0x2545F4914F6CDD1Dull + 0x1234567ull; }

// Uniform random play entirely in C++: the agent draws legal indices from its own
// SplitMix64 stream.  Returns (games, decisions).
std::pair<long, long> random_games(std::shared_ptr<Tables> t, uint64_t seed, long n_games) {
    State* s = new State();
    long decisions = 0;
    uint64_t agent = seed ^ 0x5DEECE66Dull;
    {
        nb::gil_scoped_release release;
        for (long g = 0; g < n_games; ++g) {
            uint64_t base = seed_state(seed + uint64_t(g));
            uint64_t r[3];
            for (auto& x : r) x = splitmix_next(base);
            new_game(*t, *s, r);
            Machine m(*t, *s);
            while (!s->over) {
                int a = s->p_legal[splitmix_below(agent, uint64_t(s->p_nlegal))];
                m.apply(a);
                m.run();
                decisions++;
            }
        }
    }
    delete s;
    return {n_games, decisions};
}

}  // namespace

NB_MODULE(_core, m) {
    m.doc() = "The native Evenstar engine (C++17), bit-identical to evenstar_env.engine";
    m.attr("ABI_VERSION") = ABI_VERSION;
    nb::exception<StateError>(m, "StateError", PyExc_ValueError);
    nb::class_<Tables>(m, "Tables")
        .def_prop_ro("n_actions", [](const Tables& t) { return t.n_actions; })
        .def_prop_ro("obs_size", &obs_size);
    m.def("obs_names", &obs_names, "the names the observation tables are filled by");
    m.def("make_tables", &make_tables, "Tables from the dict of evenstar_env.native.export");
    m.def("layout", []() {
        nb::dict d;
#define O(x) d[#x] = offsetof(State, x);
        O(inf_us) O(inf_cn) O(tracks) O(non_realignable) O(vp) O(reserves) O(card_loc) O(hist_loc)
        O(event_played) O(event_side) O(revealed) O(spare_used) O(vp_source) O(misc) O(rng)
        O(forced) O(n_forced) O(over) O(has_result) O(result) O(depth) O(has_pending)
        O(p_player) O(p_kind) O(p_nlegal) O(p_ctx) O(p_frame) O(p_legal) O(stack)
#undef O
        d["itemsize"] = sizeof(State);
        d["MAXN"] = MAXN; d["MAXC"] = MAXC; d["MAXH"] = MAXH; d["MAXSP"] = MAXSP;
        d["MAXVP"] = MAXVP; d["MAXSTACK"] = MAXSTACK; d["MAXLEGAL"] = MAXLEGAL;
        d["MAXFORCED"] = MAXFORCED; d["MAXSEQ"] = MAXSEQ; d["N_MISC"] = N_MISC;
        return d;
    });
    nb::class_<Batch>(m, "Batch")
        .def(nb::init<std::shared_ptr<Tables>, int, uint64_t, int>(),
             nb::arg("tables"), nb::arg("n"), nb::arg("seed"),
             nb::arg("threads") = 1)
        .def("reset", &Batch::reset, nb::call_guard<nb::gil_scoped_release>())
        .def("step", [](Batch& b, nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig,
                                              nb::device::cpu> actions) {
            if (int(actions.shape(0)) != b.n) throw EngineError("one action per game");
            const int64_t* a = actions.data();
            nb::gil_scoped_release release;
            b.step(a);
        }, "apply one action per game (GIL released); finished games restart on the next step")
        .def("observe", [](const Batch& b,
                           nb::ndarray<const int32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>
                               players, ObsRows out) {
            if (int(players.shape(0)) != b.n || int(out.shape(0)) != b.n ||
                out.shape(1) != size_t(obs_size(*b.t)))
                throw EngineError("observe: one player and one row per game");
            const int32_t* pl = players.data();
            for (int i = 0; i < b.n; ++i)
                if (pl[i] < -2 || pl[i] > 1) throw EngineError("observe: players are -2..1");
            float* o = out.data();
            nb::gil_scoped_release release;
            b.observe(pl, o);
        }, nb::arg("players"), nb::arg("out").noconvert(),
           "row i: players[i]'s observation of game i (zeros for -1, untouched for -2), GIL released")
        .def("play_random", [](Batch& b,
                               nb::ndarray<const int32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> sides,
                               nb::ndarray<uint64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> rng) {
            if (int(sides.shape(0)) != b.n || int(rng.shape(0)) != b.n)
                throw EngineError("play_random: one side and one stream state per game");
            const int32_t* sd = sides.data();
            for (int i = 0; i < b.n; ++i)
                if (sd[i] < 0 || sd[i] > 1) throw EngineError("play_random: sides are 0..1");
            uint64_t* r = rng.data();
            nb::gil_scoped_release release;
            b.play_random(sd, r);
        }, nb::arg("sides"), nb::arg("rng").noconvert(),
           "a random opponent in the batch: side sides[i] plays uniformly random legal actions "
           "(SplitMix64 stream rng[i], advanced in place) until the other side is to move or "
           "the game ends (done), GIL released")
        .def("restart", [](Batch& b,
                           nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> slots,
                           nb::ndarray<const uint64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> seeds) {
            if (slots.shape(0) != seeds.shape(0)) throw EngineError("one seed per slot");
            const int64_t* sl = slots.data();
            const uint64_t* se = seeds.data();
            int k = int(slots.shape(0));
            nb::gil_scoped_release release;
            b.restart(sl, se, k);
        }, "start the games of `slots` with the given seeds")
        .def("state_bytes", [](Batch& b) {
            size_t shape[2] = {size_t(b.n), sizeof(State)};
            return nb::ndarray<nb::numpy, uint8_t, nb::ndim<2>>(
                reinterpret_cast<uint8_t*>(b.states.data()), 2, shape, nb::handle());
        }, nb::rv_policy::reference_internal, "the N states as bytes (zero-copy)")
        .def_ro("n", &Batch::n)
        .def("views", [](Batch& b) {
            nb::handle self = nb::find(&b);
            size_t n = size_t(b.n), na = size_t(b.t->n_actions);
            nb::dict d;
            d["mask"] = nb::ndarray<nb::numpy, uint8_t, nb::ndim<2>>(b.mask.data(), {n, na}, self);
            d["player"] = nb::ndarray<nb::numpy, int32_t, nb::ndim<1>>(b.player.data(), {n}, self);
            d["done"] = nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>>(b.done.data(), {n}, self);
            d["winner"] = nb::ndarray<nb::numpy, int8_t, nb::ndim<1>>(b.winner.data(), {n}, self);
            d["vp"] = nb::ndarray<nb::numpy, int32_t, nb::ndim<2>>(b.vp.data(), {n, 2}, self);
            d["error"] = nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>>(b.error.data(), {n}, self);
            d["seed"] = nb::ndarray<nb::numpy, uint64_t, nb::ndim<1>>(b.seeds.data(), {n}, self);
            return d;
        }, "zero-copy numpy views of the output buffers")
        .def("game", [](const Batch& b, int i) {
            if (i < 0 || i >= b.n) throw EngineError("no such game");
            Engine e(b.t, false);
            std::memcpy(e.s.get(), &b.states[size_t(i)], sizeof(State));
            return e;
        }, "a copy of game i as an Engine");
    m.def("random_games", &random_games, nb::arg("tables"), nb::arg("seed"), nb::arg("n_games"));
    nb::class_<Engine>(m, "Engine")
        .def(nb::init<std::shared_ptr<Tables>>())
        .def("reset", &Engine::reset)
        .def("step", &Engine::step)
        .def("run", &Engine::run)
        .def("refresh", &Engine::refresh)
        .def("clone", &Engine::clone)
        .def("copy_from", [](Engine& e, const Engine& o) { copy_state(*e.s, o.checked()); })
        .def("clone_ns", &clone_ns, "nanoseconds per state copy inside C++")
        .def("state_bytes", [](Engine& e) {
            e.exposed = true;  // Python may write it from now on: checked before every use
            size_t shape[1] = {sizeof(State)};
            return nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>>(
                reinterpret_cast<uint8_t*>(e.s.get()), 1, shape, nb::handle());
        }, nb::rv_policy::reference_internal)
        .def("legal", [](const Engine& e) {
            // Read only (no check): the count is clamped, the values are as written.
            size_t n = e.s->has_pending ? size_t(std::clamp(e.s->p_nlegal, 0, MAXLEGAL)) : 0;
            auto* data = new int64_t[n + 1];
            for (size_t k = 0; k < n; ++k) data[k] = e.s->p_legal[k];
            nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<int64_t*>(p); });
            size_t shape[1] = {n};
            return nb::ndarray<nb::numpy, int64_t, nb::ndim<1>>(data, 1, shape, owner);
        })
        .def("observe", [](const Engine& e, int p, ObsRow out) {
            if (out.shape(0) != size_t(obs_size(*e.t))) throw EngineError("observe: wrong size");
            if (p != USA && p != CHINA) throw EngineError("observe: the player is 0 or 1");
            encode_observation(*e.t, e.checked(), p, out.data());
        }, nb::arg("p"), nb::arg("out").noconvert(), "player p's observation into out (float32, no allocation)")
        .def("is_over", [](const Engine& e) { return e.s->over != 0; })
        .def("player", [](const Engine& e) { return e.s->has_pending ? e.s->p_player : -1; })
        .def("pending_kind", [](const Engine& e) { return e.s->has_pending ? e.s->p_kind : -1; })
        .def("can_happen", [](const Engine& e, int card, int executor) {
            check_card_side(*e.t, card, executor);
            return Machine(*e.t, e.checked()).can_happen(card, executor);
        })
        .def("risks_total_war", [](const Engine& e, int card, int p) {
            check_card_side(*e.t, card, p);
            return Machine(*e.t, e.checked()).risks_total_war(card, p);
        })
        .def("set_tracing", [](Engine& e, bool on) { e.tracing = on; e.trace.clear(); })
        .def("take_trace", [](Engine& e) {
            std::vector<int32_t> out;
            out.swap(e.trace);
            return out;
        })
        .def("set_events", [](Engine& e, bool on) { e.eventing = on; e.events.clear(); },
             "record the event stream (off: nothing is recorded)")
        .def("take_events", [](Engine& e) {
            // The records since the last call, as an (n, 3 + EV_NF) int32 array.
            size_t n = e.events.size(), w = 3 + EV_NF;
            static_assert(sizeof(EventRec) == sizeof(int32_t) * (3 + EV_NF), "EventRec layout");
            auto* data = new int32_t[n * w + 1];
            if (n) std::memcpy(data, e.events.data(), n * sizeof(EventRec));
            e.events.clear();
            nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<int32_t*>(p); });
            size_t shape[2] = {n, w};
            return nb::ndarray<nb::numpy, int32_t, nb::ndim<2>>(data, 2, shape, owner);
        })
        .def("add_forced", [](Engine& e, std::vector<int> dice) {
            for (int d : dice) {
                if (e.s->n_forced < 0 || e.s->n_forced >= MAXFORCED)
                    throw EngineError("too many forced dice");
                if (d < 1 || d > 6) throw EngineError("a forced die is 1..6");
                e.s->forced[e.s->n_forced++] = d;
            }
        });
    bind_search(m);
}
