// Checking a state the core did not make itself (a snapshot, live-view writes): every
// field against the spec of evenstar_env/engine/validity.py (exported as the v_* tables).
#pragma once

#include <string>

#include "engine.h"

namespace evenstar {

// A state that is not one the engine could hold (Python: evenstar_native.StateError, a
// ValueError).  Nothing has changed when it is raised.
struct StateError : EngineError {
    using EngineError::EngineError;
};

// Throws StateError naming the first field out of its domain.
void validate_state(const Tables& t, const State& s);

// The derived members the checker uses (after Tables::finish, once per tables).
void prepare_validation(Tables& t);

}  // namespace evenstar
