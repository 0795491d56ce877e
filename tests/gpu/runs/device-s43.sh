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
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader |
  tee "$OUT/gpu.txt"
mkdir -p "$OUT/ab"
TILEC_AB_TIMEOUT=90
step "softmax over 131072 columns: own slices into L2 before the wait"
for pass in 1 2; do
  for o in "" "row-l2-prefetch=16 row-l2-prefetch-first=true"; do
    t=$([ -z "$o" ] && echo default || echo own)
    ab_bench "$t" "$OUT/ab/sm_${t}_$pass.csv" --ops=softmax --dtypes=bf16,f32 \
      --shapes=1x131072,16x131072 --schedule="$o"
  done
done
python3 tests/gpu/ab_table.py default="$OUT/ab/sm_default_1.csv,$OUT/ab/sm_default_2.csv" \
  own="$OUT/ab/sm_own_1.csv,$OUT/ab/sm_own_2.csv" | tee "$OUT/ab/softmax.txt"
step "small shapes: dependent-launch=false"
for pass in 1 2; do
  for o in "" dependent-launch=false; do
    t=$([ -z "$o" ] && echo default || echo nodl)
    ab_bench "$t" "$OUT/ab/small_${t}_$pass.csv" \
      --ops=rms_norm,add_rms_norm,layer_norm,softmax,silu_mul,elementwise_chain,rope \
      --dtypes=bf16 --shapes=1x4096,16x4096 --schedule="$o"
  done
done > /dev/null
python3 tests/gpu/ab_table.py default="$OUT/ab/small_default_1.csv,$OUT/ab/small_default_2.csv" \
  nodl="$OUT/ab/small_nodl_1.csv,$OUT/ab/small_nodl_2.csv" | tee "$OUT/ab/small.txt"
step "64 and 128 MB bf16: 512 threads of one vector, 256 of two"
for pass in 1 2; do
  for c in 4 1 2; do
    o=$([ $c = 4 ] || echo row-chunks=$c)
    ab_bench "chunks$c" "$OUT/ab/big_c${c}_$pass.csv" --ops=rms_norm,add_rms_norm,layer_norm,softmax \
      --dtypes=bf16 --shapes=4096x4096,4096x8192 --schedule="$o"
  done
done > /dev/null
python3 tests/gpu/ab_table.py default="$OUT/ab/big_c4_1.csv,$OUT/ab/big_c4_2.csv" \
  chunks1="$OUT/ab/big_c1_1.csv,$OUT/ab/big_c1_2.csv" \
  chunks2="$OUT/ab/big_c2_1.csv,$OUT/ab/big_c2_2.csv" | tee "$OUT/ab/big.txt"
step "GPU tests: the row kernels"
ROWS='Examples/*:WideRows/*:RowLoop/*:RowPrefetch/*:Rows/*:Softmax/*:LayerNorm/*'
TILEC_TESTS_TIMEOUT=$((BUDGET - (SECONDS - START))) run_gpu_tests "$ROWS"
pack_out
