#!/usr/bin/env bash
# The bidirectional RNN's NaN at step 1 under JAX_DEFAULT_MATMUL_PRECISION=highest on the
# GPU: is it XLA's autotuned kernel choice? Four step_speed runs at once, highest each.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || exit 1
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false JAX_DEFAULT_MATMUL_PRECISION=highest
S="python3 experiments/step_speed.py --config=experiments/translation_length.py --warmup=0 --calls=1 --compilation_cache=off --config.task.data_path=.data/multi30k"
( XLA_FLAGS=--xla_gpu_autotune_level=0 $S --members=3 > $OUT/a_autotune0.txt 2>&1 & 
  XLA_FLAGS=--xla_gpu_enable_triton_gemm=false $S --members=3 > $OUT/b_notriton.txt 2>&1 &
  $S --members=3 > $OUT/c_default.txt 2>&1 &
  $S --members=1 > $OUT/d_one_member.txt 2>&1 &
  wait )
for f in $OUT/*.txt; do echo "== $f"; grep '^{' $f || tail -n 3 $f; done
