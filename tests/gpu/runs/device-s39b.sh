#!/usr/bin/env bash
# Written in the thirty-ninth session for the next device run: issue 3's
# grids beside the peers in bf16 and then f32, in one call (a machine
# start is the scarce thing), with the defaults of ec1a312 (no chosen
# prefetch for rows of 128 KiB or more; row-l2-prefetch-first auto),
# which ran only as options (s38a, s39a). Each grid's files come back in
# its own folder, bf16/ and f32/ (a run.tgz each). TILEC_BUDGET_S: the
# whole call (default 560 s); bf16 (with the runtime's GPU tests) takes
# about 160 s of it, f32 the rest.
set -u
cd "$(dirname "$0")/../../.."
OUT=${OUT:-/tmp/tilec-out}
find "$OUT" -mindepth 1 -delete 2>/dev/null
END=$((SECONDS + ${TILEC_BUDGET_S:-560}))
mkdir -p "$OUT/bf16" "$OUT/f32"
OUT=$OUT/bf16 TILEC_BUDGET_S=$(((END - SECONDS) / 2)) bash tests/gpu/device-grid.sh bf16 2>&1 |
  tail -62
OUT=$OUT/f32 TILEC_BUDGET_S=$((END - SECONDS - 10)) bash tests/gpu/device-grid.sh f32 2>&1 |
  sed -n '/==== table/,$p'
