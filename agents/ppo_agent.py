"""A trained MaskablePPO policy as an agent, loaded safely.

A policy file pair is ``NAME.pt`` (a plain tensor dict, read with
``torch.load(weights_only=True)``: no code in the file is ever executed) and
``NAME.json`` (the architecture, the content fingerprint and the observation layout
it was trained on; ``scripts/reexport_policy.py`` carries a policy to a new layout).
An sb3-contrib ``NAME.zip`` is read the same way: only its ``policy.pth``
tensors (weights-only) and the plain JSON of its ``data`` entry; the pickled
objects inside ``data`` are never unpickled.  Every field is checked before a
network is built; a bad file is a :class:`PolicyFileError` naming the field.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from evenstar_env.content import Content, fingerprint, load_content
from evenstar_env.safe_io import read_bounded, read_json

from .base import check_layout, observation_vector

FORMAT = "evenstar-policy-v1"
SHIPPED_POLICY = Path(__file__).resolve().parent / "checkpoints" / "ppo_selfplay"
ACTIVATIONS = ("tanh", "relu")  # the actor's hidden-layer activation
MAX_LAYERS = 16
MAX_WIDTH = 16_384  # units per hidden layer
MAX_PARAMS = 200_000_000  # 800 MB of float32: no policy file may ask for more
MAX_ZIP_ENTRY = 1 << 30  # bytes read from one entry of an SB3 zip (or a .pt file)
MAX_CONFIG_BYTES = 1 << 20
_BODY, _HEAD = "mlp_extractor.policy_net.", "action_net."


class PolicyFileError(ValueError):
    """A policy file is missing, malformed or made for other content."""


content_fingerprint = fingerprint  # the observation and action layout of a content set


def activation_name(sb3_policy: Any) -> str:
    """The activation an SB3 policy's networks use, as a name of `ACTIVATIONS`."""
    import torch

    fn = getattr(sb3_policy, "activation_fn", torch.nn.Tanh)
    names = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}
    if fn not in names:
        raise PolicyFileError(f"activation {fn!r} is not supported (one of {ACTIVATIONS})")
    return names[fn]


def export_policy(sb3_policy: Any, path: Path, content: Content | None = None) -> None:
    """Write the actor of an sb3-contrib MaskableActorCriticPolicy as NAME.pt + NAME.json."""
    import torch

    path = Path(path)
    state = {k: v.detach().cpu().clone() for k, v in sb3_policy.state_dict().items()
             if k.startswith((_BODY, _HEAD))}
    hidden = [int(v.shape[0]) for k, v in state.items()
              if k.startswith(_BODY) and k.endswith(".weight")]
    from evenstar_env.env.observation import encoder_for

    from .policy_layout import config_text, layout_of

    content = content or load_content()
    config = {"format": FORMAT, "obs_size": int(sb3_policy.observation_space.shape[0]),
              "n_actions": int(sb3_policy.action_space.n), "hidden": hidden,
              "activation": activation_name(sb3_policy),
              "content": content_fingerprint(content),
              "layout": layout_of(encoder_for(content))}
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(state, path.with_suffix(".pt"))
    path.with_suffix(".json").write_text(config_text(config))


def _layout(content: Content) -> tuple[int, int]:
    """Observation size and number of actions of this content's environment."""
    from evenstar_env.engine.actions import ActionSpace
    from evenstar_env.env.observation import encoder_for

    return encoder_for(content).size, ActionSpace.for_content(content).n


def _read_config(cfg_path: Path, content: Content) -> dict[str, Any]:
    if not cfg_path.exists():
        raise PolicyFileError(f"{cfg_path}: no policy config file")
    config = read_json(cfg_path, MAX_CONFIG_BYTES, "policy config", PolicyFileError)
    if not isinstance(config, dict) or config.get("format") != FORMAT:
        raise PolicyFileError(f"{cfg_path}: not an {FORMAT} config (field 'format')")
    if config.get("content") != content_fingerprint(content):
        raise PolicyFileError(f"{cfg_path}: trained on other game content "
                              f"({config.get('content')}, this is "
                              f"{content_fingerprint(content)})")
    return config


def _check_config(config: dict[str, Any], where: Path, content: Content) -> None:
    """Field by field, before anything is allocated."""
    from evenstar_env.env.observation import encoder_for

    from .policy_layout import layout_of

    obs_size, n_actions = _layout(content)
    layout = layout_of(encoder_for(content))
    if config.get("obs_size") != obs_size or config.get("layout", layout) != layout:
        raise PolicyFileError(f"{where}: trained on observations of size "
                              f"{config.get('obs_size')} in another layout (field 'layout'), "
                              f"this environment's are {obs_size} (re-export it with "
                              "scripts/reexport_policy.py, or retrain)")
    if config.get("n_actions") != n_actions:
        raise PolicyFileError(f"{where}: field 'n_actions' is {config.get('n_actions')!r}, "
                              f"this environment has {n_actions} actions")
    hidden = config.get("hidden")
    if (not isinstance(hidden, list) or len(hidden) > MAX_LAYERS
            or not all(type(h) is int and 1 <= h <= MAX_WIDTH for h in hidden)):
        raise PolicyFileError(f"{where}: field 'hidden' must be a list of at most {MAX_LAYERS} "
                              f"layer widths in 1..{MAX_WIDTH}, got {hidden!r}"[:300])
    sizes = [obs_size, *hidden, n_actions]
    params = sum((a + 1) * b for a, b in zip(sizes, sizes[1:], strict=False))
    if params > MAX_PARAMS:
        raise PolicyFileError(f"{where}: field 'hidden' {hidden} needs {params:,} parameters "
                              f"(at most {MAX_PARAMS:,})")
    if config.get("activation") not in ACTIVATIONS:
        raise PolicyFileError(f"{where}: field 'activation' must be one of {ACTIVATIONS}, "
                              f"got {config.get('activation')!r}")


def _check_weights(state: Any, config: dict[str, Any], where: Path) -> dict[str, Any]:
    """The actor's tensors, each of the shape the config says (extra SB3 keys ignored)."""
    import torch

    if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
        raise PolicyFileError(f"{where}: not a dict of named tensors "
                              f"(holds a {type(state).__name__})")
    sizes = [config["obs_size"], *config["hidden"], config["n_actions"]]
    expected = {}
    for i, (a, b) in enumerate(zip(sizes, sizes[1:], strict=False)):
        prefix = _HEAD if i == len(sizes) - 2 else f"{_BODY}{2 * i}."
        expected[prefix + "weight"] = (b, a)
        expected[prefix + "bias"] = (b,)
    extra = [k for k in state if k.startswith((_BODY, _HEAD)) and k not in expected]
    if extra or any(k.startswith(("features_extractor.", "pi_features_extractor."))
                    for k in state):
        raise PolicyFileError(f"{where}: weights {extra or 'of a features extractor'} "
                              f"do not match the config")
    for key, shape in expected.items():
        t = state.get(key)
        if not isinstance(t, torch.Tensor) or not t.is_floating_point():
            raise PolicyFileError(f"{where}: weight {key!r} is missing or not a float tensor")
        if tuple(t.shape) != shape:
            raise PolicyFileError(f"{where}: weight {key!r} has shape {tuple(t.shape)}, "
                                  f"the config says {shape}")
        if not bool(torch.isfinite(t).all()):
            raise PolicyFileError(f"{where}: weight {key!r} holds NaN or infinite values")
    return {k: state[k].float() for k in expected}


def _load_pt(pt_path: Path) -> Any:
    import torch

    try:
        data = read_bounded(pt_path, MAX_ZIP_ENTRY)
    except FileNotFoundError:
        raise PolicyFileError(f"{pt_path}: no weights file") from None
    except OSError as exc:
        raise PolicyFileError(f"{pt_path}: cannot be read: {exc.strerror or exc}") from None
    try:
        return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as exc:  # any unpickling refusal or corrupt file
        raise PolicyFileError(f"{pt_path}: not a weights-only tensor file: "
                              f"{' '.join(str(exc).split())[:300]}") from None


def _read_sb3_zip(path: Path) -> tuple[dict[str, Any], Any]:
    """Config and weights of an SB3 zip: ``policy.pth`` weights-only, ``data`` as plain JSON."""
    import torch

    try:
        with zipfile.ZipFile(io.BytesIO(read_bounded(path, 2 * MAX_ZIP_ENTRY))) as z:
            entries = {}
            for name in ("data", "policy.pth"):
                info = z.getinfo(name)
                if info.file_size > MAX_ZIP_ENTRY:
                    raise PolicyFileError(f"{path}: entry {name!r} is too large")
                entries[name] = z.read(info)
    except FileNotFoundError:
        raise PolicyFileError(f"{path}: no such file") from None
    except KeyError as exc:
        raise PolicyFileError(f"{path}: not a Stable-Baselines3 zip ({exc.args[0]})") from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise PolicyFileError(f"{path}: not a readable zip: {exc}") from None
    try:
        data = json.loads(entries["data"].decode("utf-8"))
        kwargs = data.get("policy_kwargs", {})
        act = kwargs.get("activation_fn", "<class 'torch.nn.modules.activation.Tanh'>")
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, AttributeError) as exc:
        raise PolicyFileError(f"{path}: entry 'data' is not a JSON object: {exc}") from None
    found = re.fullmatch(r"<class 'torch\.nn\.modules\.activation\.(\w+)'>", str(act))
    activation = found.group(1).lower() if found else str(act)
    try:
        state = torch.load(io.BytesIO(entries["policy.pth"]), map_location="cpu",
                           weights_only=True)
    except Exception as exc:
        raise PolicyFileError(f"{path}: entry 'policy.pth' is not a weights-only tensor "
                              f"file: {exc}") from None
    if not isinstance(state, dict) or _HEAD + "weight" not in state:
        raise PolicyFileError(f"{path}: entry 'policy.pth' has no actor weights")
    hidden = [int(v.shape[0]) for k, v in state.items()
              if k.startswith(_BODY) and k.endswith(".weight")]
    first = state.get(f"{_BODY}0.weight", state[_HEAD + "weight"])
    config = {"obs_size": int(first.shape[-1]), "n_actions": int(state[_HEAD + "weight"].shape[0]),
              "hidden": hidden, "activation": activation}
    return config, state


class PPOAgent:
    """Plays the arg-max legal action of a trained policy (or samples, `greedy=False`).

    `path` is ``NAME`` (or ``NAME.pt`` / ``NAME.json``) of an exported policy, or an
    sb3-contrib ``.zip`` (its weights only; no content fingerprint, so only the
    observation and action sizes are checked).
    """

    name = "ppo"

    def __init__(self, path: str | Path, greedy: bool = True, seed: int | None = None,
                 content: Content | None = None) -> None:
        import torch

        path = Path(path)
        content = content or load_content()
        if path.suffix == ".zip":
            config, state = _read_sb3_zip(path)
            _check_config(config, path, content)
            where = path
        else:
            cfg_path, where = path.with_suffix(".json"), path.with_suffix(".pt")
            config = _read_config(cfg_path, content)
            _check_config(config, cfg_path, content)
            state = _load_pt(where)
        weights = _check_weights(state, config, where)
        act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[config["activation"]]
        layers: list[Any] = []
        width = config["obs_size"]
        for h in config["hidden"]:
            layers += [torch.nn.Linear(width, h), act()]
            width = h
        self.body = torch.nn.Sequential(*layers)
        self.head = torch.nn.Linear(width, config["n_actions"])
        self.body.load_state_dict({k.removeprefix(_BODY): v for k, v in weights.items()
                                   if k.startswith(_BODY)})
        self.head.load_state_dict({k.removeprefix(_HEAD): v for k, v in weights.items()
                                   if k.startswith(_HEAD)})
        self.activation = config["activation"]
        self.torch = torch
        self.greedy = greedy
        self.reseed(seed)
        self.name = f"ppo:{path.stem}"
        self.trained_on = content_fingerprint(content)  # the layout its sizes were checked on

    def reseed(self, seed: int | None) -> None:
        """Start afresh, as if built with `seed` (the envs call it at every reset)."""
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: np.ndarray, game: Any = None) -> int:
        check_layout(self.trained_on, game, "PPOAgent")
        observation = observation_vector(observation, game, "PPOAgent")
        with self.torch.no_grad():
            x = self.torch.as_tensor(observation)[None]
            logits = self.head(self.body(x))[0].numpy()
        mask = np.asarray(action_mask, dtype=bool)
        logits = np.where(mask, logits, -np.inf)
        if self.greedy:
            return int(np.argmax(logits))
        p = np.exp(logits - logits.max())
        return int(self.rng.choice(p.size, p=p / p.sum()))
