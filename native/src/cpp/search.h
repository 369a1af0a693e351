// Below the Game API for the agents: the determinisation (Game.resample_hidden) and the
// agents' hot loops (agents/evaluation.py's evaluate, agents/fast_policy.py's FastPolicy,
// the ISMCTS rollout).  Each function mirrors the Python function named in its comment
// and must give the same result bit for bit (tests/test_native_agents.py); the rules
// themselves are the engine's (Machine), never copied here.
#pragma once

#include <cstdint>

#include "engine.h"

namespace evenstar {

// evenstar_env/game.py Game.resample_hidden: redraw what `player` cannot see, from a
// SplitMix64 stream started at `seed` (docs/native.md, "resample_hidden").
void resample_hidden(const Tables& t, State& s, int player, uint64_t seed);

// The weights of agents/evaluation.py (handed over from Python, never written here).
struct EvalWeights {
    double win, vp, region, subregion, level, danger, reserves, tech, bg_influence,
        held_scoring;
};

// agents/evaluation.py evaluate(g, side) for side p (0 US, 1 China).
double evaluate(const Tables& t, const State& s, int p, const EvalWeights& w);

// agents/fast_policy.py FastPolicy.act; `rng` is its SplitMix64 stream state.
int fast_policy_act(const Tables& t, const State& s, uint64_t& rng);

// Apply a legal action and run to the next decision (Game.step without the checks).
void step_state(const Tables& t, State& s, int action);

// agents/ismcts.py forced_war_plays(g, side).
int forced_war_plays(const Tables& t, const State& s, int p);

}  // namespace evenstar
