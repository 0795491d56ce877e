#!/usr/bin/env bash
# Written in the forty-first session, after run s41a (H100) found f32
# silu_mul and elementwise_chain 0.3-1.5% slower with their rows 1 MiB
# ahead than with none (the new default: none where a thread loads more
# than 32 bytes of row inputs):
#  1. A B, into $OUT/ab/: f32 silu_mul, elementwise_chain and rope with the
#     defaults against elementwise-elements=4 (one 16-byte vector of each
#     input a thread: rows ahead chosen), the same without rows ahead, and
#     elementwise-elements=16; bf16 with the defaults against
#     elementwise-elements=16 (f32 twice, bf16 once). The small shapes twice, with
#     tilec-bench's host_us (the host's time to enqueue a call);
#  2. issue 3's bf16 grid beside the peers (runtime GPU tests included),
#     into $OUT/bf16/, with half of what is left of TILEC_BUDGET_S
#     (default 560 s);
#  3. the f32 grid with the rest, into $OUT/f32/.
set -u
cd "$(dirname "$0")/../../.."
OUT=${OUT:-/tmp/tilec-out}
find "$OUT" -mindepth 1 -delete 2>/dev/null
END=$((SECONDS + ${TILEC_BUDGET_S:-560}))
mkdir -p "$OUT/ab" "$OUT/bf16" "$OUT/f32"
(
  source tests/gpu/device-setup.sh
  OUT=$OUT/ab TILEC_AB_TIMEOUT=90
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
  S=4096x4096,4096x8192,16384x4096,4096x14336
  for pass in 1 2; do
    for o in "" elementwise-elements=4 "elementwise-elements=4 row-l2-prefetch-elementwise-bytes=0" \
      elementwise-elements=16; do
      t=$(echo "${o:-default}" | tr ' =' '_-')
      ab_bench "${o:-default}" "$OUT/f32_${pass}_$t.csv" --ops=rope,elementwise_chain,silu_mul \
        --dtypes=f32 --shapes=$S --schedule="$o"
    done
    ab_bench "small" "$OUT/small_$pass.csv" \
      --ops=rms_norm,add_rms_norm,layer_norm,rope --dtypes=bf16,f32 --shapes=1x4096,16x4096
    [ $pass = 2 ] && continue
    for o in "" elementwise-elements=16; do
      t=$(echo "${o:-default}" | tr ' =' '_-')
      ab_bench "${o:-default}" "$OUT/bf16_${pass}_$t.csv" --ops=rope,elementwise_chain,silu_mul \
        --dtypes=bf16 --shapes=$S --schedule="$o"
    done
  done
  pack_out
) 2>&1 | grep -E "^(small|NVIDIA|device)|error" | tail -40
OUT=$OUT/bf16 TILEC_BUDGET_S=$(((END - SECONDS) / 2)) bash tests/gpu/device-grid.sh bf16 2>&1 |
  sed -n '/==== table/,$p'
OUT=$OUT/f32 TILEC_BUDGET_S=$((END - SECONDS - 10)) bash tests/gpu/device-grid.sh f32 2>&1 |
  sed -n '/==== table/,$p'
