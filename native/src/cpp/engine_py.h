// The Python-facing Engine (one game's state and its tables), shared by the bindings.
#pragma once

#include <cstring>
#include <memory>
#include <vector>

#include "engine.h"

namespace evenstar {

// A clone copies the fixed part and the live frames (nothing above the top is read).
inline void copy_state(State& dst, const State& src) {
    std::memcpy(&dst, &src, offsetof(State, stack) + size_t(src.depth) * sizeof(Frame));
}

struct Engine {
    std::shared_ptr<Tables> t;
    std::unique_ptr<State> s;
    bool tracing = false;
    std::vector<int32_t> trace;
    bool eventing = false;
    std::vector<EventRec> events;  // the event stream since the last take_events

    Machine machine() {
        Machine m(*t, *s);
        if (tracing) m.trace = &trace;
        if (eventing) m.events = &events;
        return m;
    }

    explicit Engine(std::shared_ptr<Tables> tables) : Engine(std::move(tables), true) {}

    void reset(uint64_t r0, uint64_t r1, uint64_t r2) {
        const uint64_t r[3] = {r0, r1, r2};
        setup_game(*t, *s, r);
        machine().run();  // new_game, with this engine's trace and event stream
    }

    // 0: applied; 1: the game is over; 2: outside the action space; 3: not legal now.
    int step(long a) {
        if (!s->has_pending) return 1;
        if (a < 0 || a >= t->n_actions) return 2;
        bool ok = false;
        for (int k = 0; k < s->p_nlegal && !ok; ++k) ok = s->p_legal[k] == a;
        if (!ok) return 3;
        Machine m = machine();
        m.apply(int(a));
        m.run();
        return 0;
    }

    void run() { machine().run(); }

    void refresh() {
        if (!s->has_pending) return;
        Machine m = machine();
        m.push1(s->p_frame);
        s->has_pending = 0;
        m.run();
    }

    Engine clone() const {
        Engine e(t, false);
        copy_state(*e.s, *s);
        return e;
    }

    // zero=false: the caller fills the state (clone copies only the live part).
    Engine(std::shared_ptr<Tables> tables, bool zero)
        : t(std::move(tables)), s(zero ? new State() : new State) {}
};

}  // namespace evenstar
