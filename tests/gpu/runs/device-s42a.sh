#!/usr/bin/env bash
# Written in the forty-first session for the next device run, an H200
# first (sessions 39-41's defaults have run only on H100s): in one call,
#  1. tests/gpu/runs/device-s41d.sh: tilec-bench's launch floor beside the
#     1- and 16-token shapes (host_us), three passes, into $OUT/small/;
#  2. tests/gpu/runs/device-s39b.sh: issue 3's bf16 and f32 grids beside
#     the peers (the runtime's GPU tests with bf16), into $OUT/bf16/ and
#     $OUT/f32/, with the rest of TILEC_BUDGET_S (default 560 s).
set -u
cd "$(dirname "$0")/../../.."
OUT=${OUT:-/tmp/tilec-out}
find "$OUT" -mindepth 1 -delete 2>/dev/null
START=$SECONDS
mkdir -p "$OUT/small" "$OUT/grids"
OUT=$OUT/small bash tests/gpu/runs/device-s41d.sh 2>&1 | grep -E "device|launch|^pass1" | head -20
( cd "$OUT/small" && tar czf /tmp/small.tgz . && find . -mindepth 1 -delete && mv /tmp/small.tgz run.tgz )
OUT=$OUT/grids TILEC_BUDGET_S=$((${TILEC_BUDGET_S:-560} - (SECONDS - START))) \
  bash tests/gpu/runs/device-s39b.sh
