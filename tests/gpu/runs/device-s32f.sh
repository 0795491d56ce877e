#!/usr/bin/env bash
# Thirty-second session, run f: tiles narrowed to fill the waves (one
# product 256 -> 192 columns, two 128 -> 112 where that fills the waves
# 1.1x better), A B A B against the tile they replace (given as
# gemm-block-n), with one-CTA clusters; shapes the rule leaves alone as
# controls; the decoder layer at 512 tokens (its gate/up now 112); GPU
# tests of the GEMM schedules.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "GPU tests: GEMM schedules"
TILEC_TESTS_TIMEOUT=120 run_gpu_tests 'GemmSchedules.*'
MM=512x6144x4096,768x4096x4096,1536x4096x4096,512x28672x4096,4096x4096x4096
SW=512x14336x4096,256x14336x4096,1024x14336x4096
for pass in 1 2; do
  for v in new old; do
    mo=""; so=""
    [ $v = old ] && { mo="gemm-block-n=256"; so="gemm-block-n=128"; }
    timeout 60 "$B/bin/tilec-bench" --ops= --gemm=$MM --gemm-ops=matmul --cooldown-ms=50 ${mo:+--schedule="$mo"} --gemm-csv="$OUT/mm_${v}_$pass.csv" 2>&1 | grep -E "^matmul|error" | sed "s/^/$v /"
    timeout 60 "$B/bin/tilec-bench" --ops= --gemm=$SW --gemm-ops=matmul_swiglu --cooldown-ms=50 ${so:+--schedule="$so"} --gemm-csv="$OUT/sw_${v}_$pass.csv" 2>&1 | grep -E "^matmul|error" | sed "s/^/$v /"
  done
  timeout 60 "$B/bin/tilec-bench" --ops= --layers=512x4096x0 --cooldown-ms=200 --layer-csv="$OUT/layer_$pass.csv" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/new /"
done
step "cuBLAS"
timeout 100 python3 tests/gpu/peers_gemm.py --triton 0 --cooldown-ms 50 --ops=matmul --shapes=$MM --csv "$OUT/peers_mm.csv" 2>&1 | tail -n 5
pack_out
