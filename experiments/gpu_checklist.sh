#!/usr/bin/env bash
# The GPU checklist (docs/speed.md, "On a GPU") in one call of the device machine:
# step time and matrix FLOP/s of the default RNN and Transformer and of cohorts of
# 128 and 512 members; the fused against the plain Transformer attention at d_model 256
# and lengths 100-128; the default Transformer run whole; the fast test tier; and
# experiments/benchmark_sweep.py (cohorts against separate runs). Each step has its own
# time limit inside BUDGET seconds, so a slow step costs the later ones time, not the
# whole call. Everything lands in $OUT: log.txt, and results.tgz (runs' summary.json
# and metrics.jsonl, step_speed.jsonl, the benchmark's table), rewritten after each
# step so that a call cut short still brings back what finished.
#
#   bash experiments/gpu_checklist.sh                 # on the GPU machine, BUDGET=560
#   TINY=1 BUDGET=900 bash experiments/gpu_checklist.sh   # a rehearsal on a CPU
set -u
OUT=${OUT:-/tmp/gpu_checklist_out}
BUDGET=${BUDGET:-560}
TINY=${TINY:-}
WORK=/tmp/gpu_checklist
PY=${PYTHON:-python3}
mkdir -p "$OUT" "$WORK/scratch"
export PYTHONUNBUFFERED=1 TMPDIR=$WORK/scratch
START=$SECONDS
touch "$WORK/started"
exec > >(tee -a "$OUT/log.txt") 2>&1

save() {  # the small result files, as they are now
  (cd "$WORK" && find . \( -name summary.json -o -name metrics.jsonl -o -name '*.md' \
     -o -name 'step_speed.jsonl' \) -not -path '*/evaluations/*' -not -path './pytest/*' \
     -print0 |
     tar czf "$OUT/results.tgz" --null -T -)
}
step() {  # step NAME CAP COMMAND...: run with min(CAP, what is left of BUDGET) seconds
  local name=$1 cap=$2; shift 2
  local left=$((BUDGET - (SECONDS - START)))
  local limit=$((cap < left ? cap : left))
  if ((limit < 15)); then echo "=== $name: skipped, ${left} s left"; return; fi
  echo "=== $name (limit ${limit} s, $((SECONDS - START)) s in) $(date +%T)"
  local t0=$SECONDS
  timeout --signal=INT --kill-after=10 "$limit" "$@"
  echo "=== $name: rc $? in $((SECONDS - t0)) s"
  save
}

cfg() { echo "configs/$1.py${TINY:+:tiny}"; }
speed() {  # one step_speed.py line into step_speed.jsonl
  $PY experiments/step_speed.py "$@" --calls=${TINY:+2}${TINY:-8} | tail -1 |
    tee -a "$WORK/step_speed.jsonl"
}
export -f speed
export PY WORK TINY
LONG="--config.model.hidden_size=256 --config.task.train_min_length=100 \
--config.task.train_max_length=128 --config.task.eval_max_length=128"
[[ -n $TINY ]] && LONG="--config.task.train_min_length=20 --config.task.train_max_length=24 \
--config.task.eval_max_length=24"

echo "=== machine"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm \
  --format=csv 2>/dev/null || echo "no nvidia-smi"
$PY -c "import sys, jax, flax, optax; print(sys.version.split()[0], 'jax', jax.__version__,
'flax', flax.__version__, 'optax', optax.__version__, jax.devices())" || exit 1

# About 25-50 s a line on the H200 (start-up and compiling); 2026-11-26's call ran out
# before the fused pair when it came last.
step "step time and FLOP/s" 300 bash -c "
  speed --config=$(cfg additive)
  speed --config=$(cfg additive) --members=128
  speed --config=$(cfg transformer) $LONG --config.model.fused_attention=False
  speed --config=$(cfg transformer) $LONG --config.model.fused_attention=True
  speed --config=$(cfg transformer)
  speed --config=$(cfg transformer) --members=128
  speed --config=$(cfg additive) --members=512"

step "default transformer run" 110 \
  $PY launch.py --config="$(cfg transformer)" --workdir=$WORK/runs/transformer

# Fast tier; several workers share the one GPU (conftest turns preallocation off).
# -v: each result is in the log as it comes, so a tier cut short still says which passed.
step "fast test tier" 120 $PY -m pytest -v -m "not slow" -n 8 -p no:cacheprovider \
  --basetemp=$WORK/pytest --durations=5

# Last: it prints each timing as it finishes, so a cut run still reports the first.
# Separate run 0 is `launch.py --config=configs/additive.py` with seed 0: the default run.
step "benchmark_sweep" 400 $PY experiments/benchmark_sweep.py \
  --members=${TINY:+2,4}${TINY:-128,32,8} --separate=2
find experiments/results/benchmark_sweep -name '*.md' -newer "$WORK/started" \
  -exec cp {} "$WORK/" \;
save
echo "=== done in $((SECONDS - START)) s"
