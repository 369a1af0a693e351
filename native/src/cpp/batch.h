// N games in one object, stepped together with the GIL released (the vector env's
// native backend).  Outputs live in buffers owned here and seen by numpy without copy.
#pragma once

#include <memory>
#include <vector>

#include "engine.h"

namespace evenstar {

struct Batch {
    std::shared_ptr<Tables> t;
    int n = 0, threads = 1;
    uint64_t base_seed = 0;
    std::vector<State> states;
    std::vector<uint64_t> resets;     // games started in each slot so far
    std::vector<uint8_t> mask;        // [n, n_actions]: its legal actions
    std::vector<int32_t> player;      // 0 US, 1 China; -1 when the game is over
    std::vector<uint8_t> done;        // 1: this step ended the game (the next step resets it)
    std::vector<int8_t> winner;       // 0 US, 1 China, -1 draw (valid when done)
    std::vector<int32_t> vp;          // [n, 2]
    std::vector<uint8_t> error;       // 1: the action was not legal (nothing happened)
    std::vector<uint64_t> seeds;      // the seed of each slot's current game

    Batch(std::shared_ptr<Tables> tables, int n_games, uint64_t seed, int n_threads);
    void reset();
    void step(const int64_t* actions);
    // Start the games of `slots` with the given seeds (a vector env's own seed stream).
    void restart(const int64_t* slots, const uint64_t* game_seeds, int k);
    // Row i: player players[i]'s observation of game i; zeros when players[i] is -1, left
    // as it is when -2.
    void observe(const int32_t* players, float* out) const;
    // A uniformly random opponent inside the batch: in every game (not done) where side
    // sides[i] is to move, it plays random legal actions drawn from the SplitMix64 stream
    // rng[i] until the other side is to move or the game ends (then done[i] is set).
    void play_random(const int32_t* sides, uint64_t* rng);

  private:
    void start(int i);
    void write(int i);
    void step_range(const int64_t* actions, int lo, int hi);
};

uint64_t game_seed_state(uint64_t seed);  // seed_streams(seed) base (rng.py)

}  // namespace evenstar
