#!/usr/bin/env bash
# Train a sweep, or the part of it that fits, in one call of the device machine, and
# bring back what its record needs: each finished member's config.json, summary.json,
# metrics.jsonl and translations/, and the sweep's commands.txt, in $OUT/members.tgz
# (the device tool returns at most 8 files). Unpacked into a work directory here, those
# members are never retrained: the same launch.py command resumes the sweep on the CPU,
# or in a later call.
#
#   # on the device machine (carry .whl, and the data the sweep reads):
#   BUDGET=480 bash experiments/gpu_sweep.sh --config=experiments/luong_table4.py:replicate \
#       --config.task.data_path=.data/de-en
#   # back here:
#   mkdir -p runs/luong_table4_replication && tar xzf /work/.device/N/members.tgz \
#       -C runs/luong_table4_replication
#   python launch.py --config=experiments/luong_table4.py:replicate \
#       --workdir=runs/luong_table4_replication --record      # resumes, then records
#
# The device tool sends the working tree, at most 64 MiB, and experiments/results/ alone
# is over 100: a sweep reads none of it, so move it out of the tree for the call
# (`mv experiments/results /tmp/results_aside`, back after) and carry the data the sweep
# reads in an ignored folder (e.g. .data/, listed in .git/info/exclude), gzipped if big.
# RESUME=path/to/members.tgz (carried) starts from an earlier call's finished members.
# At BUDGET seconds launch.py is sent SIGTERM: it stops at its next log with a
# checkpoint, which stays on the device machine (a cut cohort trains again here, or
# resumes from it in a later call while that machine is still warm, if WORK is a folder
# of the repository that git ignores: the device tool keeps those between calls).
# PARTS=N runs the sweep's N parts (launch.py --part=k/N) at once, each its own process
# on the one GPU, so that the others' kernels can fill the gaps a small model's short
# kernels leave (not yet timed against one part at a time). Each process allocates GPU
# memory as it needs it (XLA_PYTHON_CLIENT_PREALLOCATE=false), not 75% of it up front.
# CACHE=folder keeps XLA's compiled programs there (launch.py --compilation_cache). On
# 2026-11-27 bidirectional RNN cohorts failed at their first step (non-finite) at
# JAX_DEFAULT_MATMUL_PRECISION=highest, with the cache and without it, on a machine
# loaded by other processes, and not on a fresh one: cause not established
# (experiments/results/gpu/README.md); the health check stops such a member at step 1.
# Failed members' summaries come back in $OUT/failed.tgz, to read, not to resume from.
set -u
OUT=${OUT:-/tmp/gpu_sweep_out}
BUDGET=${BUDGET:-480}
WORK=${WORK:-/tmp/gpu_sweep}
mkdir -p "$OUT" "$WORK"
export PYTHONUNBUFFERED=1
if [[ -n ${RESUME:-} ]]; then tar xzf "$RESUME" -C "$WORK" || exit 1; fi
PARTS=${PARTS:-1}
extra=()
[[ -n ${CACHE:-} ]] && extra+=("--compilation_cache=$CACHE")
((PARTS > 1)) && export XLA_PYTHON_CLIENT_PREALLOCATE=false
start=$SECONDS
train() {  # "$@": launch.py's arguments; its log's lines, progress bars left out
  timeout --signal=TERM --kill-after=60 "$BUDGET" ${PYTHON:-python3} launch.py "$@" \
    "${extra[@]}" --workdir="$WORK" 2>&1 | tr '\r' '\n' | grep -v 'step/s'
}
if ((PARTS == 1)); then
  train "$@" | tee "$OUT/log.txt" | tail -n 40
else
  for ((k = 1; k <= PARTS; k++)); do
    train "$@" "--part=$k/$PARTS" > "$WORK/log_part$k.txt" &
  done
  wait
  # One log (the device tool brings back 8 files at most), each part's lines prefixed.
  for ((k = 1; k <= PARTS; k++)); do sed "s|^|[part $k/$PARTS] |" "$WORK/log_part$k.txt"; done \
    > "$OUT/log.txt"
  tail -n 8 "$WORK"/log_part*.txt
fi
echo "launch.py ended after $((SECONDS - start)) s"
cd "$WORK" || exit 1
finished=() failed=()
for member in members/*/; do
  if grep -qs '"status": "finished"' "$member/summary.json"; then
    finished+=("$member")
  elif grep -qs '"status": "failed"' "$member/summary.json"; then
    failed+=("$member")
  fi
done
echo "${#finished[@]} finished member(s)"
# The failed members' summaries and metrics (where and what became non-finite, the
# compile and cache counts) in their own archive: to read, not to resume from.
if ((${#failed[@]})); then
  find "${failed[@]}" \( -name summary.json -o -name metrics.jsonl \) -type f -print0 \
    | tar czf "$OUT/failed.tgz" --null -T -
  echo "${#failed[@]} failed member(s): their summaries are in failed.tgz"
fi
((${#finished[@]})) || exit 0
# commands.txt too: every command line that ran the sweep, which its record keeps.
find commands.txt "${finished[@]}" \( -name commands.txt -o -name config.json \
  -o -name summary.json -o -name metrics.jsonl -o -path '*/translations/*' \) -type f \
  -print0 | tar czf "$OUT/members.tgz" --null -T -
ls -la "$OUT/members.tgz"
