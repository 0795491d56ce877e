#!/usr/bin/env bash
# Written in the fortieth session for the next device run, an H200 first
# (issue 3's bars are set there; the fortieth session got only an H100):
#  1. A B: the elementwise kernels' rows-ahead default (1 MiB, the first
#     blocks' own) against row-l2-prefetch-elementwise-bytes=0 (the old
#     default) and 2 MiB, bf16 and f32, into $OUT/ab/;
#     and the small shapes with tilec-bench's 25 ms warm-up (the default
#     since the fortieth session) against --warmup-ms=0 (3 calls only);
#  2. issue 3's bf16 grid beside the peers with the defaults (runtime GPU
#     tests included), into $OUT/bf16/;
#  3. the f32 grid with what is left of TILEC_BUDGET_S (default 560 s),
#     into $OUT/f32/.
# Each folder comes back as its own run.tgz.
set -u
cd "$(dirname "$0")/../../.."
OUT=${OUT:-/tmp/tilec-out}
find "$OUT" -mindepth 1 -delete 2>/dev/null
END=$((SECONDS + ${TILEC_BUDGET_S:-560}))
mkdir -p "$OUT/ab" "$OUT/bf16" "$OUT/f32"
(
  source tests/gpu/device-setup.sh
  OUT=$OUT/ab TILEC_AB_TIMEOUT=120
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
  for pass in 1 2; do
    for o in "" row-l2-prefetch-elementwise-bytes=0 row-l2-prefetch-elementwise-bytes=2097152; do
      t=$(echo "${o:-default}" | tr ' =' '_-')
      ab_bench "${o:-default}" "$OUT/ew_${pass}_$t.csv" --ops=rope,elementwise_chain,silu_mul \
        --dtypes=bf16,f32 --shapes=4096x4096,4096x8192,16384x4096,4096x14336 --schedule="$o"
    done
    for w in 25 0; do
      ab_bench "warmup-$w" "$OUT/small_${pass}_$w.csv" --warmup-ms=$w \
        --ops=rms_norm,add_rms_norm,layer_norm,rope --dtypes=bf16,f32 --shapes=1x4096,16x4096
    done
  done
  pack_out
) 2>&1 | tail -80
OUT=$OUT/bf16 TILEC_BUDGET_S=$(((END - SECONDS) * 45 / 100)) bash tests/gpu/device-grid.sh bf16 2>&1 |
  sed -n '/==== table/,$p'
OUT=$OUT/f32 TILEC_BUDGET_S=$((END - SECONDS - 10)) bash tests/gpu/device-grid.sh f32 2>&1 |
  sed -n '/==== table/,$p'
