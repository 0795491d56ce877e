#!/usr/bin/env bash
# Written in the forty-second session for its device run, in one call:
#  1. tests/gpu/probes/copy_floor.cu: what the best copy kernel reaches at
#     64 MB to 1 GB moved, timed as tilec-bench times the row ops (the
#     ceiling of any kernel of that size launched in stream order), into
#     $OUT/probe/;
#  2. tests/gpu/runs/device-s42a.sh: the launch floor beside the small
#     shapes, then issue 3's bf16 and f32 grids beside the peers, into
#     $OUT/small/ and $OUT/grids/, with the rest of TILEC_BUDGET_S; on an
#     H100 (whose grids ran at these defaults in the forty-first session)
#     the launch floor and small shapes only (device-s41d.sh).
set -u
cd "$(dirname "$0")/../../.."
OUT=${OUT:-/tmp/tilec-out}
find "$OUT" -mindepth 1 -delete 2>/dev/null
START=$SECONDS
mkdir -p "$OUT/probe"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
# (The first call got an H100, and ran the probe and the small shapes:
# docs/perf-runs/2026-12-07-s42a/. TILEC_H200_ONLY=1: stop on an H100.)
if [ "${TILEC_H200_ONLY:-0}" = 1 ] && nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100; then
  echo "an H100: stopped (TILEC_H200_ONLY=1)"; exit 0
fi
nvcc -arch=sm_90a -O3 -std=c++17 -o /tmp/copy_floor tests/gpu/probes/copy_floor.cu &&
  timeout 90 /tmp/copy_floor 2>&1 | tee "$OUT/probe/copy_floor.txt"
mkdir -p "$OUT/rest"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100; then
  OUT=$OUT/rest bash tests/gpu/runs/device-s41d.sh
  ( cd "$OUT/rest" && tar czf /tmp/rest.tgz . && find . -mindepth 1 -delete && mv /tmp/rest.tgz run.tgz )
else
  OUT=$OUT/rest TILEC_BUDGET_S=$((${TILEC_BUDGET_S:-560} - (SECONDS - START))) \
    bash tests/gpu/runs/device-s42a.sh
fi
