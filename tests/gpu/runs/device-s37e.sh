#!/usr/bin/env bash
# Thirty-seventh session, run e: the GPU tests of the runtime, the row
# schedules, GEMMs, attention and the decoder layer on this session's first
# build (the thirty-sixth session's L2 prefetch defaults, row-l2-prefetch as
# an option).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
step "GPU tests: runtime, row schedules, GEMMs, attention, the decoder layer"
TILEC_TESTS_TIMEOUT=250 run_gpu_tests 'GpuRuntimeTest.*:GpuScheduleTest.*:Gemm*:DecoderLayer.*:Attention.*-GemmLarge*'
pack_out
