#!/usr/bin/env bash
# Twentieth session's third run, ~200 s: one wave of wgmma tiles (what
# gemm-fill-sms narrows) takes as many pipeline stages as fit, up to 8
# (new, not yet measured; the decode GEMMs' 8 stages were 16-20% faster
# in run s20a).
# - GPU tests: every GEMM shape and schedule (GemmSchedules'
#   TwoChainsAWarpgroup pinned to gemm-fill-sms=0 after run s20b);
# - the default against gemm-stages=4 (the tiles of run s20b), two
#   alternating passes, and cuBLAS in the same run.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "GPU tests"
TILEC_TESTS_TIMEOUT=150 run_gpu_tests 'Shapes/GemmTest.*:GemmSchedules.*'
step "one wave of wgmma tiles: as many stages as fit (default) against 4"
GS=260x512x500,128x4096x4096,256x4096x4096,512x512x512,128x1024x4096,1024x1024x1024,4096x1024x512
for pass in 1 2; do
  gemm_pass deep $GS $pass
  gemm_pass four $GS $pass "gemm-stages=4"
done
python3 tests/gpu/ab_table.py deep="$OUT/deep_1.csv,$OUT/deep_2.csv" four="$OUT/four_1.csv,$OUT/four_2.csv" | tee "$OUT/ab.txt"
timeout 80 python3 tests/gpu/peers_gemm.py --cooldown-ms 200 --triton 0 --ops=matmul --shapes=$GS --csv "$OUT/peers_gemm.csv" > "$OUT/peers_gemm.txt" 2>&1
python3 tests/gpu/table_gemm.py "$OUT/deep_2.csv" "$OUT/peers_gemm.csv" | tee "$OUT/table_gemm.txt"
pack_out
