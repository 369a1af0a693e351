"""The PettingZoo environment, its observation encoder and renderers."""

from .aec import env, raw_env
from .observation import ObservationEncoder

__all__ = ["ObservationEncoder", "env", "raw_env"]
