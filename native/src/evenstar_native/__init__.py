"""The native core of evenstar-env (C++17, nanobind); use it through
``evenstar_env.Game(seed, backend="native")``."""

from ._core import (
    ABI_VERSION,
    Batch,
    Engine,
    EvalWeights,
    Tables,
    action_values,
    advance_fine,
    evaluate,
    fast_policy_act,
    forced_war_plays,
    layout,
    make_tables,
    obs_names,
    pending_parts,
    random_games,
    resample_hidden,
    rollout,
)

__all__ = ["ABI_VERSION", "Batch", "Engine", "EvalWeights", "Tables", "action_values",
           "advance_fine", "evaluate", "fast_policy_act", "forced_war_plays", "layout",
           "make_tables", "obs_names", "pending_parts", "random_games", "resample_hidden",
           "rollout"]
