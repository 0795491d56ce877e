#!/usr/bin/env bash
# Twentieth session's second run, ~450 s: gemm-fill-sms (the default since
# this session's run s20a: GEMM grids that would leave SMs idle take
# narrower wgmma tiles, and one-wave decode grids 32-column CTAs and 8
# stages).
# - GPU tests: every GEMM shape (GemmTest, GemmSchedules: the new tiles
#   run at the odd and unaligned shapes), the runtime's and the random
#   graphs (both modes);
# - the default against gemm-fill-sms=0, two alternating passes, and
#   cuBLAS in the same run; matmul_bias_gelu decode beside eager and
#   torch.compile.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "GPU tests"
TILEC_TESTS_TIMEOUT=260 run_gpu_tests 'Shapes/GemmTest.*:GemmSchedules.*:GpuRuntimeTest.*:GpuFuzzTest.*'
grep -E "^random graphs" "$OUT/gpu_tests.log"
step "gemm-fill-sms: default against off"
GS=1x4096x4096,16x4096x4096,32x4096x4096,16x1024x4096,16x4096x14336,1x6144x4096,16x6144x4096,16x14336x4096,260x512x500,128x4096x4096,256x4096x4096,512x512x512,128x1024x4096,1024x1024x1024,4096x4096x4096
for pass in 1 2; do
  gemm_pass fill $GS $pass
  gemm_pass off $GS $pass "gemm-fill-sms=0"
done
python3 tests/gpu/ab_table.py fill="$OUT/fill_1.csv,$OUT/fill_2.csv" off="$OUT/off_1.csv,$OUT/off_2.csv" | tee "$OUT/ab.txt"
step "beside cuBLAS (matmul) and the peers (matmul_bias_gelu, decode)"
timeout 140 python3 tests/gpu/peers_gemm.py --cooldown-ms 200 --triton 0 --ops=matmul --shapes=$GS --csv "$OUT/peers_gemm.csv" > "$OUT/peers_gemm.txt" 2>&1
python3 tests/gpu/table_gemm.py "$OUT/fill_2.csv" "$OUT/peers_gemm.csv" | tee "$OUT/table_gemm.txt"
DS=1x4096x4096,16x4096x4096,16x6144x4096
timeout 40 "$B/bin/tilec-bench" --ops= --gemm=$DS --gemm-ops=matmul_bias_gelu --cooldown-ms=200 --gemm-csv="$OUT/gelu.csv" 2>&1 | grep -E "^matmul"
timeout 150 python3 tests/gpu/peers_gemm.py --cooldown-ms 200 --triton 0 --ops=matmul_bias_gelu --shapes=$DS --csv "$OUT/peers_gelu.csv" > "$OUT/peers_gelu.txt" 2>&1
python3 tests/gpu/table_gemm.py "$OUT/gelu.csv" "$OUT/peers_gelu.csv" | tee "$OUT/table_gelu.txt"
pack_out
