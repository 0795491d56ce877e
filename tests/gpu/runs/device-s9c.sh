#!/usr/bin/env bash
# Ninth session, closing check: the GPU tests of nn::attention (now with an
# additive mask: causal, per batch and head, bf16 over the whole scores),
# the batched products and the runtime.
source "$(dirname "$0")/../device-setup.sh"
step "GPU tests: attention, batched GEMMs, runtime"
TILEC_TESTS_TIMEOUT=200 run_gpu_tests 'Attention.*:GemmBatched.*:GpuRuntimeTest.*'
grep -E "OK|FAILED" "$OUT/gpu_tests.log" | head -20
step "summary"
grep -E "^GPU tests:" "$OUT/gpu_tests.log"
pack_out
