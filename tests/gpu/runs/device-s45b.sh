#!/usr/bin/env bash
# Written in the forty-fifth session for a second call on the H200 that
# ran device-s44h.sh (the record), or for an H100 (device-s44h.sh runs
# this there), within TILEC_BUDGET_S (default 540):
#  1. tests/: the GPU tests of the gemm part that run s44b (an H100, the
#     same build) did not reach before its call's limit: attention,
#     dependent launch, the large GEMM, the GEMM shapes (44 tests);
#  2. ab/: the forty-third session's A B of the 64 and 128 MB bf16 norms
#     and softmax in 512 threads of one vector (row-chunks=1) and 256 of
#     two against the default (on an H100: rms_norm [4096, 4096] 3.5%
#     faster with 512 x 1, layer_norm 20% slower), on an H200 only, if
#     150 s are left;
#     then layer_norm's 512 x 1 with and without its weight and bias
#     loads sunk past the reductions (sink-loads=auto sinks them at 256
#     threads a row and more: 40 -> 32 registers, but the loads wait on L2
#     after the reduction; the suspected cause of the 20%).
set -u
cd "$(dirname "$0")/../../.."
OUT=${OUT:-/tmp/tilec-out}
END=$((SECONDS + ${TILEC_BUDGET_S:-540}))
find "$OUT" -mindepth 1 -delete 2>/dev/null
mkdir -p "$OUT/tests" "$OUT/ab"
OUT=$OUT/tests TILEC_TESTS_TIMEOUT=$(((END - SECONDS) * 60 / 100)) bash tests/gpu/device-tests.sh \
  only 'Attention.*:DependentLaunch.*:GemmLarge.*:Shapes/GemmTest.*' 2>&1 | tail -40
if [ $((END - SECONDS)) -lt 150 ]; then
  echo "A Bs: not run ($((END - SECONDS)) s left)"
  exit 0
fi
(
  OUT=$OUT/ab
  source tests/gpu/device-setup.sh
  TILEC_AB_TIMEOUT=$(((END - SECONDS) / 11))
  if ! nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100; then
    step "64 and 128 MB bf16: 512 threads of one vector, 256 of two"
    ab_variants big 2 "--ops=rms_norm,add_rms_norm,layer_norm,softmax --dtypes=bf16 \
      --shapes=4096x4096,4096x8192" c4= c1=row-chunks=1 c2=row-chunks=2
  fi
  step "layer_norm bf16 in 512 x 1: weight and bias sunk past the reductions (auto) or not"
  ab_variants sink 2 "--ops=layer_norm --dtypes=bf16 --shapes=4096x4096" \
    c4= sunk=row-chunks=1 top="row-chunks=1 sink-loads=false"
  pack_out
)
