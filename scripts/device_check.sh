#!/usr/bin/env bash
# The trainer on a GPU machine with --device cuda: a smoke run, then the same short PPO
# run from the shipped policy on cuda and on cpu (learner steps/s printed by the trainer).
# Needs the wheels in .whl (gymnasium, pettingzoo, pydantic, openskill...) and builds
# the native core for that machine's Python.  Usage: bash scripts/device_check.sh OUTDIR
set -uo pipefail
out=${1:-/tmp/device_check}; mkdir -p "$out"
. "$(dirname "$0")/device_setup.sh"
python3 -c "import torch, evenstar_env.native as n; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), 'backend', n.resolve(None))"
timeout 150 python3 -m experiments.train --smoke --name dev-smoke --device cuda 2>&1 | tail -4 | tee "$out/smoke_cuda.log"
for dev in cuda cpu; do
  echo "== PPO from the shipped policy, --device $dev, 75 s"
  timeout 150 python3 -m experiments.train --name dev-$dev --init agents/checkpoints/learned \
    --device $dev --minutes 1.25 --num-envs 64 --rollout-steps 64 --epochs 2 --threads 4 \
    --eval-every 1000 --seed 7 > "$out/ppo_$dev.log" 2>&1
  echo "rc $?"; grep -E "^update" "$out/ppo_$dev.log" | tail -3
done
