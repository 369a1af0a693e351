# Two entry points for a fresh machine: `make demo` and `make test`.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: browser serve setup demo train train-deck train-league train-exit-league league-turn train-smoke test test-slow test-oldest test-native test-python test-asan fuzz bench bench-agents bench-native lint clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml native/pyproject.toml
	# CPU torch first, so that nothing pulls CUDA builds (design card).
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e ".[train,dev,openspiel,web]"
	# The native core (docs/native.md): C++17 built by scikit-build-core; edits to
	# native/src rebuild on the next import.
	$(BIN)/pip install -q scikit-build-core nanobind ninja
	$(BIN)/pip install -q --no-build-isolation -Ceditable.rebuild=true \
		-Cbuild-dir=build/editable -e native
	touch $@

setup: $(VENV)/.installed

# The browser board (docs/web.md): http://127.0.0.1:8765/, games kept in evenstar_games.sqlite.
serve: setup
	$(BIN)/evenstar serve --port 8765 --db evenstar_games.sqlite

demo: setup
	$(BIN)/python -m experiments.demo --games 200 --out results/demo

# The learned agent from scratch (docs/agents.md, "Training"): data generation and
# behaviour cloning of the heuristic into the structured network (experiments/cloning.py),
# then batched PPO from the cloned policy with a KL term toward it and a value warm-up,
# rollout and update on the two cores (experiments/train.py), then DAgger on the policy's
# own war-risk positions (experiments/war_risk_tune.py). These are the settings of
# agents/checkpoints/learned, which this very command made (docs/agents.md, fifth run):
# 11 min of cloning, 45 of PPO and 13 of DAgger on the 2-core dev VM, 1 h 09 min in all;
# the shipped policy is runs/war_risk/checkpoint. Rerun on 2026-11-27 with the native
# kernels and forward pass, on a faster day: 36 min in all, PPO ending at its 10M-sample
# cap after 26 min; 78.0% against the heuristic where the shipped policy makes 79.5%
# (docs/agents.md, "sixth run").
TRAIN_MINUTES ?= 45
train: setup
	$(BIN)/python -m experiments.cloning --out runs/cloning/structured --net structured \
		--token 16 --hidden 256,256 \
		--games 1200 --epochs 8 --dagger 0 --workers 2 --threads 2 --seed 3
	$(BIN)/python -m experiments.train --name ppo --init runs/cloning/structured \
		--minutes $(TRAIN_MINUTES) --backend ray --overlap --num-envs 64 --rollout-steps 64 \
		--epochs 2 --threads 1 --threads-idle 2 --lr 0.0001 --ent-coef 0 --kl-coef 0.1 \
		--kl-coef-final 0.05 --value-warmup 30 --selfplay-frac 0.2 --scripted-frac 0.7 --scripted heuristic \
		--eval-every 20 --eval-games 20 --checkpoint-every 4 --seed 7
	$(BIN)/python -m experiments.war_risk_tune --init runs/ppo/checkpoints/best \
		--out runs/war_risk --games 1000 --rounds 6 --threads 2 --seed 0
	# read cards by their data, computing the same (scripts/card_features.py)
	$(BIN)/python scripts/card_features.py runs/war_risk/checkpoint

# The league policy (shipped on 2026-11-29 until the night; docs/agents.md, "The league
# policy"): an exploiter of the policy `make train` made on each seat (PPO from its
# weights, 1.5M samples), that policy fine-tuned for 22 minutes in a league that holds both
# exploiters, the heuristic and its own snapshots, then the war-risk DAgger again;
# agents/checkpoints/learned was runs/league_war_risk/checkpoint, the starting point of
# train-exit-league (about an hour on the 2-core VM in all).
POLICY ?= runs/war_risk/checkpoint
EXPLOIT := --init target --device cpu --samples 1500000 --minutes 25 --games 200 \
	--baseline-games 200 --curve-every 20 --curve-games 10 --num-envs 64 --rollout-steps 64 \
	--epochs 2 --minibatch 2048 --threads 1 --workers 1 --workers-eval 1
# One league turn's PPO (train-league and train-exit-league): 22 minutes from --init, KL
# anchor 0.1 fading to 0.05, 10% self-play, 20% heuristic, the rest PFSP over the league.
LEAGUE_PPO := --minutes 22 --num-envs 64 --rollout-steps 64 --epochs 2 --threads 1 \
	--lr 0.0001 --ent-coef 0 --kl-coef 0.1 --kl-coef-final 0.05 --selfplay-frac 0.1 \
	--scripted-frac 0.2 --scripted heuristic --china-frac 0.6 --snapshot-greedy \
	--eval-every 40 --eval-games 10 --checkpoint-every 10
train-league: setup
	$(BIN)/python -m experiments.exploit --target learned:$(POLICY) --seat usa $(EXPLOIT) \
		--seed 12 --out runs/exploit-usa
	$(BIN)/python -m experiments.exploit --target learned:$(POLICY) --seat china $(EXPLOIT) \
		--seed 11 --out runs/exploit-china
	$(BIN)/python -m experiments.train --name league --init $(POLICY) \
		--exploiters runs/exploit-usa/checkpoints/latest,runs/exploit-china/checkpoints/latest \
		$(LEAGUE_PPO) --seed 21
	$(BIN)/python -m experiments.war_risk_tune --init runs/league/checkpoints/latest \
		--out runs/league_war_risk --games 1000 --rounds 6 --threads 2 --seed 0
	$(BIN)/python scripts/card_features.py runs/league_war_risk/checkpoint

# The policy shipped until 2026-11-30, morning, where league-turn starts (docs/agents.md,
# "Expert iteration with the league" and "A due scoring card"): train-league's policy
# searched by `rollout:64,depth=100` in 200 games against itself (about 95 min), one
# expert-iteration fit on the search's choices, an exploiter of the fitted network on each
# seat, 22 minutes of league PPO from it (its exploiters and train-league's policy in the
# league), then the war-risk DAgger twice: the first run (seed 0) made the policy shipped on 2026-11-29 (night), before the flags had a
# due scoring card; the second (seed 2, with it; 44 min on a shared VM) made
# runs/exit_league_due/checkpoint (about 3 h on the 2-core VM).
LEAGUE ?= runs/league_war_risk/checkpoint
train-exit-league: setup
	$(BIN)/python -m experiments.cli arena "rollout:64,depth=100:$(LEAGUE)" learned:$(LEAGUE) \
		--games 100 --seed 97100 --workers 2 --out runs/exit_games
	$(BIN)/python -m experiments.expert_iteration --init $(LEAGUE) --out runs/exit_rollout \
		--records runs/exit_games/games.jsonl --searcher rollout --epochs 4 --vf-coef 0 \
		--lr 5e-5 --deviation-weight 3
	$(BIN)/python -m experiments.exploit --target learned:runs/exit_rollout/checkpoint \
		--seat usa $(EXPLOIT) --seed 12 --out runs/exit_exploit-usa
	$(BIN)/python -m experiments.exploit --target learned:runs/exit_rollout/checkpoint \
		--seat china $(EXPLOIT) --seed 11 --out runs/exit_exploit-china
	$(BIN)/python -m experiments.train --name exit_league --init runs/exit_rollout/checkpoint \
		--exploiters runs/exit_exploit-usa/checkpoints/latest,runs/exit_exploit-china/checkpoints/latest,$(LEAGUE) \
		$(LEAGUE_PPO) --seed 22
	$(BIN)/python -m experiments.war_risk_tune --init runs/exit_league/checkpoints/latest \
		--out runs/exit_league_war_risk --games 1000 --rounds 6 --threads 2 --seed 0
	$(BIN)/python -m experiments.war_risk_tune --init runs/exit_league_war_risk/checkpoint \
		--out runs/exit_league_due --games 1000 --rounds 6 --threads 2 --seed 2

# Exploiters of policy $(1) into runs/$(2)-usaU and runs/$(2)-chinaC, for each U:C of the
# seeds $(3), a US and a China run at a time on the two cores (the target's own rate on
# each seat is measured with the first pair only; `evenstar exploiters` borrows it), then
# the table of their margins and the best a seat.
define exploiters
	base=200; for pair in $(3); do u=$${pair%:*}; c=$${pair#*:}; \
	  $(BIN)/python -m experiments.exploit --target learned:$(1) --seat usa $(EXPLOIT) \
	    --baseline-games $$base --seed $$u --out runs/$(2)-usa$$u & a=$$!; \
	  $(BIN)/python -m experiments.exploit --target learned:$(1) --seat china $(EXPLOIT) \
	    --baseline-games $$base --seed $$c --out runs/$(2)-china$$c & b=$$!; \
	  wait $$a && wait $$b || exit 1; base=0; done
	$(BIN)/evenstar exploiters runs/$(2)-*
endef

# One more turn of the league loop (docs/agents.md, "A fourth league turn"): exploiters of
# TURN_FROM, two a seat (one a seat understates what a best response finds; seeds U:C of
# EXPLOIT_SEEDS), 22 minutes of league PPO from it with all of them and the frozen earlier
# policies PAST (comma-separated checkpoints) in the league (PFSP gives the hardest the
# most games), the war-risk DAgger, then what decides whether it ships: its games against
# the policy it started from and against random, and exploiters of the result with the
# seeds of AFTER_SEEDS (the best of them is its exploitability at this budget). Outputs in
# runs/$(TURN)*; about 2.5 h on the 2-core VM. The shipped agents/checkpoints/learned is
# runs/$(TURN)_war_risk/checkpoint of the turn from TURN_FROM=runs/exit_league_due/checkpoint
# (run as TURN=league4); from the shipped policy, the default, it is the next turn.
EXPLOIT_SEEDS ?= 16:17 18:15
AFTER_SEEDS ?= 12:11 16:17 18:15
TURN ?= league_turn
TURN_FROM ?= agents/checkpoints/learned
TURN_SEED ?= 25
PAST ?= runs/exit_league_war_risk/checkpoint
league-turn: setup
	$(call exploiters,$(TURN_FROM),$(TURN)_exploit,$(EXPLOIT_SEEDS))
	$(BIN)/python -m experiments.train --name $(TURN) --init $(TURN_FROM) \
		--exploiters $$(ls -d runs/$(TURN)_exploit-*/checkpoints/latest | paste -sd,),$(PAST) \
		$(LEAGUE_PPO) --seed $(TURN_SEED)
	$(BIN)/python -m experiments.war_risk_tune --init runs/$(TURN)/checkpoints/latest \
		--out runs/$(TURN)_war_risk --games 1000 --rounds 6 --threads 2 --seed 0
	$(BIN)/python -m experiments.cli arena learned:runs/$(TURN)_war_risk/checkpoint \
		learned:$(TURN_FROM) --games 200 --seed 79000 --workers 2 --out runs/$(TURN)_vs_from
	$(BIN)/python -m experiments.cli arena learned:runs/$(TURN)_war_risk/checkpoint random \
		--games 500 --seed 85000 --workers 2 --out runs/$(TURN)_vs_random
	$(call exploiters,runs/$(TURN)_war_risk/checkpoint,$(TURN)_after_exploit,$(AFTER_SEEDS))

# The shipped policy fine-tuned for an edited deck on the shipped board (docs/agents.md,
# "Learned agents on an edited deck"): 12 minutes of PPO from its weights on DECK, half
# the games against the heuristic, then 3 rounds of the war-risk DAgger; about 15 minutes
# on the 2-core VM.  Play it: learned:runs/deck_war_risk/checkpoint.
DECK ?= docs/examples/five_new
DECK_INIT ?= agents/checkpoints/learned
train-deck: setup
	$(BIN)/python -m experiments.train --name deck --init $(DECK_INIT) --content $(DECK) \
		--minutes 12 --num-envs 64 --rollout-steps 64 --epochs 2 --threads 1 --lr 0.0001 \
		--ent-coef 0 --kl-coef 0.1 --kl-coef-final 0.05 --selfplay-frac 0.4 \
		--scripted-frac 0.5 --scripted heuristic --china-frac 0.6 --snapshot-greedy \
		--eval-every 1000 --checkpoint-every 10 --seed 31
	$(BIN)/python -m experiments.war_risk_tune --init runs/deck/checkpoints/latest \
		--content $(DECK) --out runs/deck_war_risk --games 600 --rounds 3 --threads 2 --seed 0

train-smoke: setup
	$(BIN)/python -m experiments.cloning --smoke --out runs/cloning/smoke
	$(BIN)/python -m experiments.train --smoke --init runs/cloning/smoke
	$(BIN)/python -m experiments.war_risk_tune --smoke --init runs/smoke/checkpoints/latest

# The suite on the default backend (the native core where built; the differential tests
# play both), then the rule, card and API tests again on the Python engine (docs/native.md).
RULE_TESTS := tests/test_rulings.py tests/test_deck_fixes.py tests/test_rulings_r22_r26.py tests/test_rulings_r27_r28.py tests/test_rulebook_examples.py \
	tests/test_cards_early.py tests/test_cards_mid.py tests/test_cards_late.py \
	tests/test_history_cards.py tests/test_history_mid.py tests/test_history_late.py \
	tests/test_war_cards.py tests/test_effects.py tests/test_play.py tests/test_api.py

# Debian's Chromium for the browser tests (tests/test_browser.py, docs/web.md), and a CJK
# font so the Chinese board is legible: installed as root with apt-get where possible;
# elsewhere the browser tests fail with one line saying how to install it.
browser:
	@command -v chromium >/dev/null 2>&1 && fc-list :lang=zh 2>/dev/null | grep -q . || \
	  { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	      --no-install-recommends chromium fonts-wqy-microhei >/dev/null; } || \
	  echo "make browser: cannot install chromium here; run: sudo apt-get install -y chromium fonts-wqy-microhei"

test: setup browser
	$(BIN)/python -m pytest -q -n 2
	EVENSTAR_BACKEND=python $(BIN)/python -m pytest -q -n 2 $(RULE_TESTS)

test-slow: setup
	$(BIN)/python -m pytest -q -m slow

# The whole suite on each backend as the default (docs/native.md).
test-native: setup
	EVENSTAR_BACKEND=native $(BIN)/python -m pytest -q -n 2

test-python: setup
	EVENSTAR_BACKEND=python $(BIN)/python -m pytest -q -n 2

# AddressSanitizer + UndefinedBehaviorSanitizer build of the native core, run on
# lockstep games against the Python engine (docs/native.md).
test-asan: setup
	$(BIN)/python scripts/native_asan.py --random 2000 --cautious 50 --fuzz 5000

# Hostile-input fuzzing of the public API on both backends (scripts/fuzz.py; crash cases
# go to results/fuzz/ as importable snapshots with a one-line reproduction).
FUZZ_CASES ?= 20000
fuzz: setup
	$(BIN)/python scripts/fuzz.py --cases $(FUZZ_CASES)

# The oldest supported dependency set (the lower bounds in pyproject.toml), in a
# throwaway venv, on the core test modules.
test-oldest:
	PY=$(PY) scripts/check_oldest.sh /tmp/evenstar-oldest

# The benchmarks (a few minutes on the 2-core VM), each writing JSON to benchmarks/results/,
# then the README's tables rendered from that JSON (benchmarks/readme_tables.py: one table a
# benchmark between its <!-- bench:NAME --> markers, with the run's date, machine and
# backend; move the figures it replaces to docs/measured.md under their date).
bench: setup
	$(BIN)/python benchmarks/bench_engine.py --games 300
	$(BIN)/python benchmarks/bench_env.py --games 40 --rounds 5 --backend-games 40
	$(BIN)/python benchmarks/bench_vector.py --quick
	$(BIN)/python benchmarks/bench_cards.py
	$(BIN)/python benchmarks/readme_tables.py

bench-native: setup
	$(BIN)/python benchmarks/bench_native.py
	$(BIN)/python benchmarks/bench_infer.py

bench-agents: setup
	$(BIN)/python benchmarks/bench_agents.py --agents random heuristic ismcts ppo --games 2 --seed 1001

lint: setup
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) results .pytest_cache
