# Sourced by the scripts/device_*.sh checks on a GPU machine (Python 3.12 with PyTorch,
# nothing fetchable): installs the wheels carried in .whl (gymnasium, pettingzoo,
# pydantic, openskill, ...) and builds the native core for that Python; the Python engine
# is used if the build fails.  Needs $out (the output folder) set.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
python3 -m pip install -q --no-deps --no-build-isolation --target /tmp/native ./native \
  > "$out/native_build.log" 2>&1 && export PYTHONPATH=/tmp/native:$PYTHONPATH \
  || { echo "native build failed: Python engine"; export EVENSTAR_BACKEND=python; }
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
