#!/usr/bin/env bash
# Thirty-sixth session, run f (short: what device time was left): the
# closing bundle's defaults. The mended kernel-count test, the layer and
# wgmma GEMMs of few rows (now prefetching); decode and 64 tokens by
# default against no prefetch, A B A B.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
TILEC_TESTS_TIMEOUT=80 run_gpu_tests 'GpuRuntimeTest.TransposesFoldedIntoMatmulsAndViews:DecoderLayer.*:GemmSchedules.WgmmaForFewRows'
for p in 1 2; do
  for v in default none; do
    o=""; [ $v = none ] && o="gemm-l2-prefetch=0 attention-l2-prefetch=0"
    timeout 30 "$B/bin/tilec-bench" --ops= --layers=1x4096x4096,64x4096x512 \
      --cooldown-ms=100 --schedule="$o" --layer-csv="$OUT/layer_${v}_$p.csv" 2>&1 |
      grep -E "^decoder_layer|error" | sed "s/^/$v /"
  done
done
pack_out
