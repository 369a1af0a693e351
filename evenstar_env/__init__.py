"""Evenstar: a reinforcement-learning environment for Dawn of the Evenstar."""

from .content import ContentError
from .game import Decision, Game, IllegalActionError, Result

__all__ = ["ContentError", "Decision", "Game", "IllegalActionError", "Result"]
__version__ = "0.1.0"
