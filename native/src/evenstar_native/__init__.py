"""The native core of evenstar-env (C++17, nanobind); use it through
``evenstar_env.Game(seed, backend="native")``."""

from ._core import ABI_VERSION, Batch, Engine, Tables, layout, make_tables, obs_names, random_games

__all__ = ["ABI_VERSION", "Batch", "Engine", "Tables", "layout", "make_tables", "obs_names",
           "random_games"]
