#!/usr/bin/env bash
# One device call (2026-11-27, third GPU session): translation_length's Transformer cohort
# (seeds 0-2), the replication sweep (12 members, 4 parts), and the cache-load defect test.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || exit 1
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false JAX_DEFAULT_MATMUL_PRECISION=highest
export ATTENTION_RESEARCH_COMPILATION_CACHE=off   # the sweeps compile afresh (the defect)
D=--config.task.data_path=.data/multi30k
B=${BUDGET:-490}
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; python3 --version
  python3 -c "import jax, flax, optax; print('jax', jax.__version__, 'flax', flax.__version__, 'optax', optax.__version__, jax.devices())"; } > $OUT/diag.txt 2>&1
(while sleep 20; do echo "$SECONDS s: $(nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader)"; done >> $OUT/diag.txt) &
mon=$!
mkdir -p $OUT/main $OUT/rep
OUT=$OUT/main BUDGET=$B WORK=.gpuwork/tl bash experiments/gpu_sweep.sh --config=experiments/translation_length.py --part=4/4 $D > /dev/null 2>&1 &
pa=$!
OUT=$OUT/rep BUDGET=$B WORK=.gpuwork/tlr PARTS=4 nice -n 10 bash experiments/gpu_sweep.sh --config=experiments/translation_length.py:replicate $D > /dev/null 2>&1 &
pb=$!
# The defect: the additive (bidirectional) cohort's train step, compiled into a cache,
# then loaded from it, then without the cache; then the same at XLA's default precision.
S="python3 experiments/step_speed.py --config=experiments/translation_length.py --members=3 --warmup=1 --calls=3 $D"
run() { ((SECONDS < B - 60)) || { echo "skipped (time): $*"; return; }
        echo "== $* (at $SECONDS s)"; timeout $((B - SECONDS)) "$@" 2>&1 | grep -v 'step/s' | tail -n 25; }
{ run $S --compilation_cache=/tmp/c
  run $S --compilation_cache=/tmp/c
  run $S --compilation_cache=off
  run env -u JAX_DEFAULT_MATMUL_PRECISION $S --compilation_cache=/tmp/c2
  run env -u JAX_DEFAULT_MATMUL_PRECISION $S --compilation_cache=/tmp/c2
} > $OUT/defect.txt 2>&1
wait $pa $pb; kill $mon
echo "all done at $SECONDS s" >> $OUT/diag.txt
ls -la $OUT/*
