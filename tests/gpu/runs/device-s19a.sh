#!/usr/bin/env bash
# Nineteenth session's first run (written in the nineteenth, which had no
# device), ~450 s:
# - the GPU tests: the runtime's (swaps of the last dim through
#   shared-memory tiles, row slices, concatenations along row dims, outputs
#   made as copies), the slice graphs (with the row concatenations), the
#   differential test of random graphs (each compiled twice: rounding every
#   op against the reference, the default rounding against the tile-stage
#   interpreter), the softmax ones on fold-into-exp=auto, and the GEMMs
#   (rows 8- and 4-byte aligned copied by 8- and 4-byte cp.async, odd rows
#   by element loads in shorter steps or narrower tiles, one-wave grids at
#   .maxnreg 255);
# - those GEMMs beside cuBLAS.
# The transpose tiles are device-s19c.sh; one-wave-registers, device-s19b.sh.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "GPU tests"
TILEC_TESTS_TIMEOUT=330 run_gpu_tests 'GpuRuntimeTest.*:GpuSliceTest.*:GpuFuzzTest.*:GpuScheduleTest.SoftmaxExpsMadeAgainPastTheReduction:Softmax/*:Shapes/GemmTest.*:GemmSchedules.*'
grep -E "^random graphs" "$OUT/gpu_tests.log"
step "GEMMs of one wave (.maxnreg 255, new) and the measured decode (224 CTAs, unchanged)"
GS=1x4096x4096,16x4096x4096,16x14336x4096,8x40x1000,260x512x500
timeout 60 "$B/bin/tilec-bench" --ops= --gemm=$GS --gemm-ops=matmul,matmul_bias_gelu --gemm-csv="$OUT/gemm.csv" --cooldown-ms=$COOL 2>&1 | tail -n +3
timeout 100 python3 tests/gpu/peers_gemm.py --cooldown-ms $COOL --triton 0 --ops=matmul,matmul_bias_gelu --shapes=$GS --csv "$OUT/peers_gemm.csv" > "$OUT/peers_gemm.txt" 2>&1
python3 tests/gpu/table_gemm.py "$OUT/gemm.csv" "$OUT/peers_gemm.csv" | tee "$OUT/table_gemm.txt"
pack_out
