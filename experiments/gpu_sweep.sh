#!/usr/bin/env bash
# Train a sweep, or the part of it that fits, in one call of the device machine, and
# bring back what its record needs: each finished member's config.json, summary.json,
# metrics.jsonl and translations/, in $OUT/members.tgz (the device tool returns at most
# 8 files). Unpacked into a work directory here, those members are never retrained:
# the same launch.py command resumes the sweep on the CPU, or in a later call.
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
# checkpoint, which stays on the device machine (a cut cohort trains again).
set -u
OUT=${OUT:-/tmp/gpu_sweep_out}
BUDGET=${BUDGET:-480}
WORK=${WORK:-/tmp/gpu_sweep}
mkdir -p "$OUT" "$WORK"
export PYTHONUNBUFFERED=1
if [[ -n ${RESUME:-} ]]; then tar xzf "$RESUME" -C "$WORK" || exit 1; fi
start=$SECONDS
# Progress bars rewrite one line: keep the log to its other lines.
timeout --signal=TERM --kill-after=60 "$BUDGET" ${PYTHON:-python3} launch.py "$@" \
  --workdir="$WORK" 2>&1 | tr '\r' '\n' | grep -v 'step/s' | tee "$OUT/log.txt" | tail -n 40
echo "launch.py ended after $((SECONDS - start)) s"
cd "$WORK" || exit 1
finished=()
for member in members/*/; do
  if grep -qs '"status": "finished"' "$member/summary.json"; then
    finished+=("$member")
  fi
done
echo "${#finished[@]} finished member(s)"
((${#finished[@]})) || exit 0
find "${finished[@]}" \( -name config.json -o -name summary.json -o -name metrics.jsonl \
  -o -path '*/translations/*' \) -type f -print0 | tar czf "$OUT/members.tgz" --null -T -
ls -la "$OUT/members.tgz"
