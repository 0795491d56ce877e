#!/usr/bin/env bash
# Twentieth session's first run of its own, ~450 s:
# - the transposes' GPU tests (16-byte blocks by default, 32-bit words by
#   transpose-tile-bytes=4, both exact on fresh data);
# - 16-byte blocks against 32-bit words: SASS, Nsight Compute's bank
#   conflicts and DRAM bytes, two alternating passes, and beside the peers;
# - GEMM tiles for grids that leave SMs idle (decode N = 4096: 64 CTAs;
#   260 x 512 x 500: 6 CTAs; 128 x 4096 x 4096: 32): the default beside
#   narrower decode tiles, wgmma tiles of 128 x 64 and 64 x 64, and
#   mma.sync tiles of 64 x 64, 64 x 32, 32 x 64,
#   two passes each, and cuBLAS in the same run.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "GPU tests: transposes"
TILEC_TESTS_TIMEOUT=60 run_gpu_tests 'GpuRuntimeTest.LastDimTransposesThroughTilesAreExact'
step "SASS of the transpose kernels (16-byte blocks)"
for dt in bf16 f32; do
  n=transpose_$dt
  "$B/bin/tilec" --rows=4096 --cols=4096 --dtype=$dt transpose -o "$OUT/$n.ptx"
  sass_summary $n
done
step "Nsight Compute: bank conflicts, DRAM bytes (16-byte blocks)"
M=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
for dt in bf16 f32; do
  echo "-- $dt 4096x4096"
  timeout 90 ncu --metrics $M --launch-skip 3 --launch-count 1 -k "regex:transpose_kernel" \
    "$B/bin/tilec-bench" --ops=transpose --dtypes=$dt --shapes=4096x4096 2>&1 | grep -E "^\s+(l1tex|dram|gpu__)" | tee "$OUT/ncu_$dt.txt"
done
SH=16x4096,4096x128,4096x4096,8192x8192,16384x4096,4096x14336
step "16-byte blocks (default) and 32-bit words (transpose-tile-bytes=4)"
for pass in 1 2; do
  for v in blocks words; do
    opt=""; [ $v = words ] && opt="transpose-tile-bytes=4"
    timeout 60 "$B/bin/tilec-bench" --ops=transpose --dtypes=bf16,f32 --shapes=4096x4096,8192x8192,16384x4096,4096x14336 \
      --csv="$OUT/${v}_$pass.csv" ${opt:+--schedule="$opt"} 2>&1 | grep -E "^transpose"
  done
done
python3 tests/gpu/ab_table.py blocks="$OUT/blocks_1.csv,$OUT/blocks_2.csv" words="$OUT/words_1.csv,$OUT/words_2.csv" | tee "$OUT/ab.txt"
step "transpose beside the peers"
timeout 90 "$B/bin/tilec-bench" --ops=transpose --dtypes=bf16,f32 --shapes=$SH --csv="$OUT/bench.csv" 2>&1 | grep -E "^transpose|copy"
timeout 150 python3 tests/gpu/peers.py --ops=transpose --dtypes=bf16,f32 --compile=bf16,f32 --shapes=$SH --csv "$OUT/peers.csv" > "$OUT/peers.txt" 2>&1
python3 tests/gpu/table.py "$OUT/bench.csv" "$OUT/peers.csv" | tee "$OUT/table.txt"
step "GEMM tiles for grids that leave SMs idle"
DEC=1x4096x4096,16x4096x4096,16x1024x4096,16x4096x14336,1x6144x4096,16x14336x4096
SMALL=260x512x500,128x4096x4096,256x4096x4096,512x512x512,128x1024x4096
for pass in 1 2; do
  gemm_pass dec_default $DEC $pass ""
  gemm_pass dec_n32 $DEC $pass "gemm-block-n=32"
  gemm_pass dec_n32s8 $DEC $pass "gemm-block-n=32 gemm-stages=8"
  gemm_pass dec_n16 $DEC $pass "gemm-block-n=16 gemm-warps-n=1"
  gemm_pass small_default $SMALL $pass ""
  gemm_pass small_wg128x64 $SMALL $pass "gemm-block-n=64"
  gemm_pass small_wg64x64 $SMALL $pass "gemm-block-m=64 gemm-block-n=64"
  gemm_pass small_mma64x64 $SMALL $pass "gemm-wgmma=0 gemm-block-m=64 gemm-block-n=64 gemm-warps-m=2 gemm-warps-n=2"
  gemm_pass small_mma64x32 $SMALL $pass "gemm-wgmma=0 gemm-block-m=64 gemm-block-n=32 gemm-warps-m=2 gemm-warps-n=1"
  gemm_pass small_mma32x64 $SMALL $pass "gemm-wgmma=0 gemm-block-m=32 gemm-block-n=64 gemm-warps-m=1 gemm-warps-n=2"
done
ab() { local a=(); for v in "$@"; do a+=("$v=$OUT/${v}_1.csv,$OUT/${v}_2.csv"); done; python3 tests/gpu/ab_table.py "${a[@]}"; }
ab dec_default dec_n32 dec_n32s8 dec_n16 | tee "$OUT/ab_dec.txt"
ab small_default small_wg128x64 small_wg64x64 small_mma64x64 small_mma64x32 small_mma32x64 | tee "$OUT/ab_small.txt"
timeout 120 python3 tests/gpu/peers_gemm.py --cooldown-ms 200 --triton 0 --ops=matmul --shapes=$DEC,$SMALL --csv "$OUT/peers_gemm.csv" > "$OUT/peers_gemm.txt" 2>&1
cat "$OUT/peers_gemm.txt" | tail -14
pack_out
