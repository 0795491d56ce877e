#!/usr/bin/env bash
# Twenty-fifth session's third run (~260 s): 16-bit GEMMs of 33-64 rows
# in wgmma tiles by default (gemm-wgmma-min-rows=33, 64-row tiles: one MMA
# warpgroup), flash attention by the refined shape rule.
# - GPU tests: every GEMM shape and schedule test (the 33-64-row shapes
#   now take wgmma tiles), split k, epilogues, batched, the decoder layer,
#   attention, the random graphs;
# - 16-64-row GEMMs: the default against mma.sync tiles
#   (gemm-wgmma-min-rows=65, the old default) and 128-row wgmma tiles
#   (gemm-block-m=128, what run s25b timed for 48 x 14336 x 4096), beside
#   cuBLAS;
# - the decoder layer at 64 tokens (its GEMMs change) under both.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
step "GPU tests"
TILEC_TESTS_TIMEOUT=240 run_gpu_tests 'Shapes/GemmTest.*:GemmSchedules.*:GemmSplitK.*:GemmEpilogue.*:GemmBatched.*:DecoderLayer.*:Attention.*:GpuFuzzTest.*'
grep -E "^random graphs" "$OUT/gpu_tests.log"
step "GEMMs of 16-64 rows: wgmma 64-row tiles (default) against mma.sync and 128-row wgmma tiles"
F=64x4096x4096,64x1024x4096,48x14336x4096,64x520x1000,33x520x1000,64x520x4096,48x1024x2048,64x14336x4096,64x4096x14336
for pass in 1 2; do
  gemm_pass f_dflt $F $pass
  gemm_pass f_mma $F $pass "gemm-wgmma-min-rows=65"
  gemm_pass f_bm128 $F $pass "gemm-block-m=128"
done
python3 tests/gpu/ab_table.py f_dflt="$OUT/f_dflt_1.csv,$OUT/f_dflt_2.csv" f_mma="$OUT/f_mma_1.csv,$OUT/f_mma_2.csv" f_bm128="$OUT/f_bm128_1.csv,$OUT/f_bm128_2.csv" | tee "$OUT/ab_few_rows.txt"
timeout 90 python3 tests/gpu/peers_gemm.py --cooldown-ms 200 --triton 0 --ops=matmul --shapes=$F --csv "$OUT/peers_gemm.csv" > "$OUT/peers_gemm.txt" 2>&1
python3 tests/gpu/table_gemm.py "$OUT/f_dflt_2.csv" "$OUT/peers_gemm.csv" | tee "$OUT/table_gemm.txt"
step "decoder layer at 64 tokens: default against mma.sync GEMMs"
L=64x4096x512,64x4096x0,16x4096x512
timeout 100 "$B/bin/tilec-bench" --ops= --layers=$L --cooldown-ms=200 --layer-csv="$OUT/layer.csv" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/dflt /"
timeout 100 "$B/bin/tilec-bench" --ops= --layers=$L --cooldown-ms=200 --schedule="gemm-wgmma-min-rows=65" --layer-csv="$OUT/layer_mma.csv" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/mma /"
pack_out
