#!/usr/bin/env bash
# Check the oldest supported dependency set: a throwaway venv with every core
# dependency (and pytest, hypothesis) pinned to its lower bound in pyproject.toml,
# then the core test modules.  Usage: scripts/check_oldest.sh [VENV_DIR]  (`make test-oldest`)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${1:-/tmp/evenstar-oldest}"
PY="${PY:-python3}"
pins=$("$PY" - <<'PYEOF'
import re, tomllib
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
wanted = project["dependencies"] + [d for d in project["optional-dependencies"]["dev"]
                                    if d.startswith(("pytest>", "hypothesis"))]
for dep in wanted:
    m = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9.]+)(,.*)?", dep)
    if not m:
        raise SystemExit(f"no lower bound in {dep!r}")
    print(f"{m[1]}=={m[2]}")
PYEOF
)
echo "oldest set:" $pins
"$PY" -m venv --clear "$VENV"
"$VENV/bin/pip" install -q --upgrade pip
# shellcheck disable=SC2086
"$VENV/bin/pip" install -q $pins
"$VENV/bin/pip" list 2>/dev/null | grep -i -E "^(numpy|pydantic|gymnasium|pettingzoo|matplotlib|typer|rich|openskill|pytest|hypothesis) "
# The core test modules; the one MaskablePPO test needs the train extra (torch, sb3).
PYTHONPATH=. "$VENV/bin/python" -m pytest -q -p no:cacheprovider \
    tests/test_api.py tests/test_env.py tests/test_content.py tests/test_games.py \
    tests/test_invariants.py tests/test_render.py \
    --deselect tests/test_env.py::test_single_agent_wrapper_trains_with_maskable_ppo_under_subproc_vec_env
