"""A trained MaskablePPO policy as an agent, loaded safely.

A policy file pair is ``NAME.pt`` (a plain tensor dict, read with
``torch.load(weights_only=True)``: no code in the file is ever executed) and
``NAME.json`` (the architecture, the content fingerprint and the observation layout
it was trained on; ``scripts/reexport_policy.py`` carries a policy to a new layout).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from evenstar_env.content import Content, fingerprint, load_content

FORMAT = "evenstar-policy-v1"
SHIPPED_POLICY = Path(__file__).resolve().parent / "checkpoints" / "ppo_selfplay"


class PolicyFileError(ValueError):
    """A policy file is missing, malformed or made for other content."""


content_fingerprint = fingerprint  # the observation and action layout of a content set


def export_policy(sb3_policy: Any, path: Path, content: Content | None = None) -> None:
    """Write the actor of an sb3-contrib MaskableActorCriticPolicy as NAME.pt + NAME.json."""
    import torch

    path = Path(path)
    state = {k: v.detach().cpu().clone() for k, v in sb3_policy.state_dict().items()
             if k.startswith(("mlp_extractor.policy_net.", "action_net."))}
    hidden = [int(v.shape[0]) for k, v in state.items()
              if k.startswith("mlp_extractor.policy_net.") and k.endswith(".weight")]
    from evenstar_env.env.observation import encoder_for

    from .policy_layout import config_text, layout_of

    content = content or load_content()
    config = {"format": FORMAT, "obs_size": int(sb3_policy.observation_space.shape[0]),
              "n_actions": int(sb3_policy.action_space.n), "hidden": hidden,
              "activation": "tanh", "content": content_fingerprint(content),
              "layout": layout_of(encoder_for(content))}
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(state, path.with_suffix(".pt"))
    path.with_suffix(".json").write_text(config_text(config))


class PPOAgent:
    """Plays the arg-max legal action of a trained policy (or samples, `greedy=False`)."""

    name = "ppo"

    def __init__(self, path: str | Path, greedy: bool = True, seed: int | None = None,
                 content: Content | None = None) -> None:
        import torch

        path = Path(path)
        cfg_path, pt_path = path.with_suffix(".json"), path.with_suffix(".pt")
        try:
            config = json.loads(cfg_path.read_text())
        except FileNotFoundError:
            raise PolicyFileError(f"{cfg_path}: no policy config file") from None
        except json.JSONDecodeError as exc:
            raise PolicyFileError(f"{cfg_path}: not valid JSON: {exc}") from None
        if not isinstance(config, dict) or config.get("format") != FORMAT:
            raise PolicyFileError(f"{cfg_path}: not an {FORMAT} config")
        content = content or load_content()
        if config.get("content") != content_fingerprint(content):
            raise PolicyFileError(f"{cfg_path}: trained on other game content "
                                  f"({config.get('content')}, this is "
                                  f"{content_fingerprint(content)})")
        from evenstar_env.env.observation import encoder_for

        from .policy_layout import layout_of

        encoder = encoder_for(content)
        if config.get("obs_size") != encoder.size or config.get("layout", layout_of(encoder)) \
                != layout_of(encoder):
            raise PolicyFileError(f"{cfg_path}: trained on observations of size "
                                  f"{config.get('obs_size')} in another layout, this "
                                  f"environment's are {encoder.size} (re-export it with "
                                  "scripts/reexport_policy.py, or retrain)")
        try:
            state = torch.load(pt_path, map_location="cpu", weights_only=True)
        except FileNotFoundError:
            raise PolicyFileError(f"{pt_path}: no weights file") from None
        except Exception as exc:  # any unpickling refusal or corrupt file
            raise PolicyFileError(f"{pt_path}: not a weights-only tensor file: {exc}") from None
        layers: list[Any] = []
        width = int(config["obs_size"])
        for h in config["hidden"]:
            layers += [torch.nn.Linear(width, h), torch.nn.Tanh()]
            width = h
        self.body = torch.nn.Sequential(*layers)
        self.head = torch.nn.Linear(width, int(config["n_actions"]))
        try:
            self.body.load_state_dict({k.removeprefix("mlp_extractor.policy_net."): v
                                       for k, v in state.items()
                                       if k.startswith("mlp_extractor.policy_net.")})
            self.head.load_state_dict({k.removeprefix("action_net."): v
                                       for k, v in state.items() if k.startswith("action_net.")})
        except (RuntimeError, KeyError) as exc:
            raise PolicyFileError(f"{pt_path}: weights do not match the config: {exc}") from None
        self.torch = torch
        self.greedy = greedy
        self.rng = np.random.default_rng(seed)
        self.name = f"ppo:{path.stem}"

    def act(self, observation: Any, action_mask: np.ndarray, game: Any = None) -> int:
        if observation is None:
            if game is None:
                raise ValueError("PPOAgent needs an observation or the game")
            from evenstar_env.env.observation import observe

            observation = observe(game, game.current_player)
        if isinstance(observation, dict):
            observation = observation["observation"]
        with self.torch.no_grad():
            x = self.torch.as_tensor(np.asarray(observation, dtype=np.float32))[None]
            logits = self.head(self.body(x))[0].numpy()
        mask = np.asarray(action_mask, dtype=bool)
        logits = np.where(mask, logits, -np.inf)
        if self.greedy:
            return int(np.argmax(logits))
        p = np.exp(logits - logits.max())
        return int(self.rng.choice(p.size, p=p / p.sum()))
