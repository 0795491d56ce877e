#!/usr/bin/env bash
# Thirty-seventh session, run b: the GPU tests of the runtime, the row
# schedules (with RowsAheadPrefetchedIntoL2), GEMMs, attention and the
# decoder layer on this session's build; then the layer with the thirty-
# sixth session's L2 prefetch defaults against none, A B A B (decode, 16
# and 64 tokens, a 512-token prefill; the closing check s36 could not run).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "GPU tests: runtime, row schedules, GEMMs, attention, the decoder layer"
TILEC_TESTS_TIMEOUT=300 run_gpu_tests 'GpuRuntimeTest.*:GpuScheduleTest.*:Gemm*:DecoderLayer.*:Attention.*-GemmLarge*'
step "decoder layer: default prefetch against none, A B A B (us)"
for p in 1 2; do
  for v in default none; do
    o=""; [ $v = none ] && o="gemm-l2-prefetch=0 attention-l2-prefetch=0"
    timeout 45 "$B/bin/tilec-bench" --ops= --layers=1x4096x4096,16x4096x512,64x4096x512,512x4096x0 \
      --cooldown-ms=100 --schedule="$o" --layer-csv="$OUT/layer_${v}_$p.csv" 2>&1 |
      grep -E "^decoder_layer|error" | sed "s/^/$v /"
  done
done
pack_out
