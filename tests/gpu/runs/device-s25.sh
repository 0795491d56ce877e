#!/usr/bin/env bash
# Twenty-fifth session's run (~330 s): flash attention by shape
# (fuseAttention unset = auto: flash from 1024 keys or 256 query rows a
# batch, three kernels below both).
# - GPU tests: attention (three kernels, flash, and auto), the decoder
#   layer (now flash by default at its prefill and long-cache shapes), the
#   program read back from the disk cache (its test now rounds every op);
# - the decoder layer under auto (default), never and always flash, at the
#   old shapes and at the rule's bound (1024 and 2048 cached tokens);
# - attention alone near the bound (528-2064 keys, 4-64 rows; 128-256-row
#   prefills), three kernels against flash in one run, beside SDPA now
#   given 4-D tensors (3-D had run its math backend), eager and
#   torch.compile;
# - wgmma GEMMs of 64 tiles over a K of 4096, now split in 2 by default
#   (run s25a: 1.33-1.37x with gemm-split-k=2), against unsplit and cuBLAS;
# - GEMMs of 16-64 rows in wgmma tiles (gemm-wgmma-min-rows=1) against the
#   default mma.sync tiles (64 x 4096 x 4096 was 0.60x cuBLAS in s25a).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
step "GPU tests"
TILEC_TESTS_TIMEOUT=200 run_gpu_tests 'Attention.*:DecoderLayer.*:ProgramCache.*:GemmSplitK.*:GemmSchedules.WgmmaForFewRows'
step "decoder layer: by shape (default), never flash, always flash"
L=1x4096x512,16x4096x512,512x4096x0,1x4096x4096,1x4096x1024,16x4096x1024,16x4096x2048
for mode in auto no-fuse-attention fuse-attention; do
  flag=""; [ "$mode" = auto ] || flag="--$mode"
  timeout 150 "$B/bin/tilec-bench" --ops= $flag --layers=$L --cooldown-ms=200 --layer-csv="$OUT/layer_$mode.csv" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/$mode /"
done
step "attention alone near the rule's bound: three kernels against flash, beside SDPA (4-D), eager and torch.compile"
A=8x64x528x128,8x64x784x128,8x64x1040x128,8x64x2064x128,8x4x516x128,8x4x1028x128,8x4x2052x128,8x4x4100x128,8x64x4112x128,32x128x128x128,32x256x256x128,32x512x512x128,32x2048x2048x128
timeout 150 "$B/bin/tilec-bench" --ops= --attention=$A --cooldown-ms=200 --attention-csv="$OUT/attention.csv" 2>&1 | grep -E "^attention|error"
timeout 200 python3 tests/gpu/peers_attention.py --attention=$A --cooldown-ms 200 --csv "$OUT/peers_attention.csv" --tilec-csv "$OUT/attention.csv" 2>&1 | tail -16 | tee "$OUT/table_attention.txt"
step "wgmma GEMMs in 2 splits (default) against unsplit, beside cuBLAS"
G=128x2048x4096,192x1024x4096,256x1024x4096,128x1024x14336
for pass in 1 2; do
  gemm_pass g_dflt $G $pass
  gemm_pass g_one $G $pass "gemm-split-k=1"
done
python3 tests/gpu/ab_table.py g_dflt="$OUT/g_dflt_1.csv,$OUT/g_dflt_2.csv" g_one="$OUT/g_one_1.csv,$OUT/g_one_2.csv" | tee "$OUT/ab_two_splits.txt"
step "GEMMs of 16-64 rows: wgmma tiles against mma.sync (default)"
F=64x4096x4096,64x1024x4096,48x14336x4096,64x520x1000,33x520x1000,64x520x4096,16x4096x4096,16x1024x4096,48x1024x2048
for pass in 1 2; do
  gemm_pass f_dflt $F $pass
  gemm_pass f_wgmma $F $pass "gemm-wgmma-min-rows=1"
done
python3 tests/gpu/ab_table.py f_dflt="$OUT/f_dflt_1.csv,$OUT/f_dflt_2.csv" f_wgmma="$OUT/f_wgmma_1.csv,$OUT/f_wgmma_2.csv" | tee "$OUT/ab_few_rows.txt"
timeout 90 python3 tests/gpu/peers_gemm.py --cooldown-ms 200 --triton 0 --ops=matmul --shapes=$G,$F --csv "$OUT/peers_gemm.csv" > "$OUT/peers_gemm.txt" 2>&1
python3 tests/gpu/table_gemm.py "$OUT/g_dflt_2.csv" "$OUT/peers_gemm.csv" | tee "$OUT/table_gemm.txt"
python3 tests/gpu/table_gemm.py "$OUT/f_wgmma_2.csv" "$OUT/peers_gemm.csv" | tee "$OUT/table_gemm_few.txt"
pack_out
