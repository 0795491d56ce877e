#!/usr/bin/env bash
# Written in the forty-third session for its first call, on whatever GPU
# comes:
#  - on an H200: device-s42.sh (the copy-floor probe, the launch floor,
#    issue 3's grids beside the peers) within TILEC_BUDGET_S (default
#    520 s), into $OUT/h200/;
#  - on an H100 (whose grids ran at these defaults in the forty-first
#    session), into $OUT/ab/ and $OUT/:
#    1. softmax over 131072 columns at 1 and 16 rows, bf16 and f32, the
#       default against every CTA prefetching its own slice into L2 ahead
#       of the dependent-launch wait (`row-l2-prefetch=16
#       row-l2-prefetch-first=true`: the only one of issue 3's small
#       shapes over the 7 us bar), two passes;
#    2. the 1- and 16-token bf16 shapes with `dependent-launch=false` (the
#       launch attribute's cost on the host side, where the GPU waits for
#       the host), two passes;
#    3. the 64 and 128 MB bf16 row ops with 512 threads of one vector a
#       row (`row-chunks=1`: the copy_floor probe's best 64 MB copy) and
#       256 of two, against the default 128 of four, two passes;
#    4. the row kernels' GPU tests (device-tests.sh rows) in what is left
#       of TILEC_BUDGET_S.
#  TILEC_AB=1: the H100's steps on any GPU (a second call on an H200).
#  (Since it ran, its A Bs are written with device-setup.sh's ab_variants;
#  the same runs, each pass's variants in the same order.)
set -u
cd "$(dirname "$0")/../../.."
START=$SECONDS
BUDGET=${TILEC_BUDGET_S:-520}
OUT=${OUT:-/tmp/tilec-out}
find "$OUT" -mindepth 1 -delete 2>/dev/null
if [ "${TILEC_AB:-0}" != 1 ] && ! nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100; then
  mkdir -p "$OUT/h200"
  OUT=$OUT/h200 TILEC_BUDGET_S=$BUDGET bash tests/gpu/runs/device-s42.sh
  exit
fi
source tests/gpu/device-setup.sh
begin_run
TILEC_AB_TIMEOUT=90
step "softmax over 131072 columns: own slices into L2 before the wait"
ab_variants sm 2 "--ops=softmax --dtypes=bf16,f32 --shapes=1x131072,16x131072" default= \
  "own=row-l2-prefetch=16 row-l2-prefetch-first=true"
step "small shapes: dependent-launch=false"
ab_variants small 2 "--ops=rms_norm,add_rms_norm,layer_norm,softmax,silu_mul,elementwise_chain,rope \
  --dtypes=bf16 --shapes=1x4096,16x4096" default= nodl=dependent-launch=false
step "64 and 128 MB bf16: 512 threads of one vector, 256 of two"
ab_variants big 2 "--ops=rms_norm,add_rms_norm,layer_norm,softmax --dtypes=bf16 \
  --shapes=4096x4096,4096x8192" c4= c1=row-chunks=1 c2=row-chunks=2
step "GPU tests: the row kernels"
ROWS='Examples/*:WideRows/*:RowLoop/*:RowPrefetch/*:Rows/*:Softmax/*:LayerNorm/*'
TILEC_TESTS_TIMEOUT=$((BUDGET - (SECONDS - START))) run_gpu_tests "$ROWS"
pack_out
