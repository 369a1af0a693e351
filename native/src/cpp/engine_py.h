// The Python-facing Engine (one game's state and its tables), shared by the bindings.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "engine.h"
#include "validate.h"

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
    // Set once the state's memory has been handed to Python (state_bytes: the live views):
    // from then on Python may write anything there between two calls.  An engine whose
    // memory never left C++ is not checked.
    bool exposed = false;
    // A copy of the state as C++ last left it (exposed engines): a difference at the next
    // call means Python wrote it, and the state is checked (validate.h) first.
    std::unique_ptr<State> seen;

    // Bytes of the live part of the state (the frames up to the top only).
    static size_t live_size(const State& st) {
        int d = st.depth < 0 ? 0 : st.depth > MAXSTACK ? MAXSTACK : st.depth;
        return offsetof(State, stack) + size_t(d) * sizeof(Frame);
    }

    // Whether Python may have written the state since C++ last left it.
    bool written() const {
        return exposed && (!seen || std::memcmp(seen.get(), s.get(), live_size(*s)) != 0);
    }

    // C++ leaves the state here (what the next call compares against).
    void leave() {
        if (!exposed) return;
        if (!seen) seen.reset(new State());
        std::memcpy(seen.get(), s.get(), live_size(*s));
    }

    // The state, checked if Python may have written it (StateError otherwise).
    State& checked() const {
        if (written()) validate_state(*t, *s);
        return *s;
    }
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
        leave();
    }

    // 0: applied; 1: the game is over; 2: outside the action space; 3: not legal now.
    // After Python has written the state, it is checked and the pending decision asked
    // again on it first (as the scenario setters do), so a stale decision never acts.
    int step(long a) {
        if (written()) {
            validate_state(*t, *s);
            reask();
        }
        int code = apply_checked(a);
        leave();
        return code;
    }

    void run() {
        checked();
        machine().run();
        leave();
    }

    void refresh() {
        checked();
        reask();
        leave();
    }

    // Ask the pending decision again on the current state (Game._refresh).
    void reask() {
        if (!s->has_pending) return;
        Machine m = machine();
        m.push1(s->p_frame);
        s->has_pending = 0;
        m.run();
    }

    int apply_checked(long a) {
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

    Engine clone() const {
        Engine e(t, false);
        copy_state(*e.s, checked());
        return e;
    }

    // zero=false: the caller fills the state (clone copies only the live part).
    Engine(std::shared_ptr<Tables> tables, bool zero)
        : t(std::move(tables)), s(zero ? new State() : new State) {}
};

}  // namespace evenstar
