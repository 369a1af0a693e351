// Batched stepping: N games, autoreset, per-slot seeds, optional worker threads.
#include "batch.h"

#include <cstring>
#include <algorithm>
#include <exception>
#include <system_error>
#include <thread>

#include "observation.h"

namespace evenstar {

uint64_t game_seed_state(uint64_t seed) { return seed * 0x2545F4914F6CDD1Dull + 0x1234567ull; }

Batch::Batch(std::shared_ptr<Tables> tables, int n_games, uint64_t seed, int n_threads)
    : t(std::move(tables)), n(n_games), threads(n_threads),
      base_seed(seed), states(size_t(n_games)), resets(size_t(n_games), 0),
      mask(size_t(n_games) * size_t(t->n_actions)),
      player(size_t(n_games)), done(size_t(n_games)), winner(size_t(n_games)),
      vp(size_t(n_games) * 2), error(size_t(n_games)), seeds(size_t(n_games)) {
    if (n_games <= 0) throw EngineError("a batch needs at least one game");
    if (threads < 1) threads = 1;
}

// Slot i's k-th game has seed base + i + k * n: the same games whatever the threads.
void Batch::start(int i) {
    uint64_t seed = base_seed + uint64_t(i) + resets[size_t(i)] * uint64_t(n);
    resets[size_t(i)]++;
    seeds[size_t(i)] = seed;
    uint64_t base = game_seed_state(seed), r[3];
    for (auto& x : r) x = splitmix_next(base);
    new_game(*t, states[size_t(i)], r);
}

void Batch::write(int i) {
    State& s = states[size_t(i)];
    size_t k = size_t(i);
    uint8_t* m = mask.data() + k * size_t(t->n_actions);
    std::memset(m, 0, size_t(t->n_actions));
    vp[2 * k] = s.vp[0];
    vp[2 * k + 1] = s.vp[1];
    if (s.over) {
        player[k] = -1;
        winner[k] = int8_t(s.result[0]);
        return;
    }
    player[k] = s.p_player;
    winner[k] = -1;
    for (int j = 0; j < s.p_nlegal; ++j) m[s.p_legal[j]] = 1;
}

void Batch::reset() {
    for (int i = 0; i < n; ++i) {
        resets[size_t(i)] = 0;
        start(i);
        done[size_t(i)] = 0;
        error[size_t(i)] = 0;
        write(i);
    }
}

void Batch::step_range(const int64_t* actions, int lo, int hi) {
    for (int i = lo; i < hi; ++i) {
        size_t k = size_t(i);
        State& s = states[k];
        error[k] = 0;
        if (done[k] || s.over) {  // the step after the end starts the slot's next game
            start(i);
            done[k] = 0;
            write(i);
            continue;
        }
        int64_t a = actions[k];
        bool ok = false;
        for (int j = 0; j < s.p_nlegal && !ok; ++j) ok = s.p_legal[j] == a;
        if (!ok) {
            error[k] = 1;
            continue;
        }
        Machine m(*t, s);
        m.apply(int(a));
        m.run();
        done[k] = s.over ? 1 : 0;
        write(i);
    }
}

// fn(lo, hi) over [0, n) in `threads` contiguous chunks (the caller's thread runs the first).
template <class F> void in_chunks(int threads, int n, F fn) {
    int k = std::min(threads, n);
    if (k <= 1) {
        fn(0, n);
        return;
    }
    std::vector<std::thread> pool;
    std::vector<std::exception_ptr> errors(static_cast<size_t>(k));
    int chunk = (n + k - 1) / k;
    auto run = [&](int w) {
        try {
            fn(std::min(n, w * chunk), std::min(n, (w + 1) * chunk));
        } catch (...) {
            errors[size_t(w)] = std::current_exception();
        }
    };
    std::vector<int> inline_chunks;  // chunks whose thread the OS refused: run here
    for (int w = 1; w < k; ++w) {
        try {
            pool.emplace_back(run, w);
        } catch (const std::system_error&) {
            inline_chunks.push_back(w);
        }
    }
    for (int w : inline_chunks) run(w);
    try {
        fn(0, std::min(n, chunk));
    } catch (...) {
        errors[0] = std::current_exception();
    }
    for (auto& th : pool) th.join();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
}

void Batch::step(const int64_t* actions) {
    in_chunks(threads, n, [&](int lo, int hi) { step_range(actions, lo, hi); });
}

void Batch::play_random(const int32_t* sides, uint64_t* rng) {
    in_chunks(threads, n, [&](int lo, int hi) {
        for (int i = lo; i < hi; ++i) {
            size_t k = size_t(i);
            State& s = states[k];
            if (done[k] || s.over || s.p_player != sides[i]) continue;
            error[k] = 0;
            while (!s.over && s.p_player == sides[i]) {
                if (s.p_nlegal <= 0) throw EngineError("a decision with no legal action");
                int j = int(splitmix_below(rng[k], uint64_t(s.p_nlegal)));  // Rng.below
                Machine m(*t, s);
                m.apply(int(s.p_legal[j]));
                m.run();
            }
            done[k] = s.over ? 1 : 0;
            write(i);
        }
    });
}

void Batch::restart(const int64_t* slots, const uint64_t* game_seeds, int k) {
    for (int j = 0; j < k; ++j) {
        size_t i = size_t(slots[j]);
        if (slots[j] < 0 || slots[j] >= n) throw EngineError("no such game");
        seeds[i] = game_seeds[j];
        uint64_t base = game_seed_state(game_seeds[j]), r[3];
        for (auto& x : r) x = splitmix_next(base);
        new_game(*t, states[i], r);
        done[i] = 0;
        error[i] = 0;
        write(int(i));
    }
}

void Batch::observe(const int32_t* players, float* out) const {
    size_t size = size_t(t->obs->size);
    in_chunks(threads, n, [&](int lo, int hi) {
        for (int i = lo; i < hi; ++i) {
            float* row = out + size_t(i) * size;
            if (players[i] == -1)
                std::memset(row, 0, size * sizeof(float));
            else if (players[i] >= 0)
                encode_observation(*t, states[size_t(i)], players[i], row);
        }
    });
}

}  // namespace evenstar
