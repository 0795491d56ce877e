#!/usr/bin/env bash
# Thirty-second session, run c: clusters of two (B multicast, the TMA
# GEMMs' default since the fourth session) against one CTA (run s32b: 1.03-
# 1.15x faster without at 512 tokens), A B A B over the GEMM grid and the
# decoder layer, beside the layer's peers in the same run.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
MM=512x4096x14336,512x4096x4096,512x1024x4096,2048x4096x4096,2048x1024x4096,2048x4096x14336,4096x4096x4096,8192x8192x8192,1024x1024x1024,256x4096x4096,128x4096x4096,16x4096x4096
SW=512x14336x4096,2048x14336x4096,4096x14336x4096,16x14336x4096
LAYERS=512x4096x0,2048x4096x0,16x4096x512,1x4096x4096
for pass in 1 2; do
  for v in dflt cl1; do
    case $v in dflt) o="";; cl1) o="gemm-cluster-m=1";; esac
    step "GEMMs $v pass $pass (us)"
    timeout 90 "$B/bin/tilec-bench" --ops= --gemm=$MM --gemm-ops=matmul --cooldown-ms=50 ${o:+--schedule="$o"} --gemm-csv="$OUT/mm_${v}_$pass.csv" 2>&1 | grep -E "^matmul|error" | sed "s/^/$v /"
    timeout 60 "$B/bin/tilec-bench" --ops= --gemm=$SW --gemm-ops=matmul_swiglu --cooldown-ms=50 ${o:+--schedule="$o"} --gemm-csv="$OUT/sw_${v}_$pass.csv" 2>&1 | grep -E "^matmul|error" | sed "s/^/$v /"
    timeout 90 "$B/bin/tilec-bench" --ops= --layers=$LAYERS --cooldown-ms=200 ${o:+--schedule="$o"} --layer-csv="$OUT/layer_${v}_$pass.csv" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/$v /"
  done
done
step "peers"
timeout 120 python3 tests/gpu/peers_gemm.py --triton 0 --cooldown-ms 50 --ops=matmul --shapes=$MM --csv "$OUT/peers_mm.csv" 2>&1 | tail -n 2
timeout 90 python3 tests/gpu/peers_gemm.py --triton 0 --cooldown-ms 50 --ops=matmul_swiglu --shapes=$SW --csv "$OUT/peers_sw.csv" 2>&1 | tail -n 2
timeout 200 python3 tests/gpu/peers_layer.py --layers=$LAYERS --cooldown-ms 200 --csv "$OUT/peers_layer.csv" --tilec-csv "$OUT/layer_cl1_2.csv" 2>&1 | tail -n 6
python3 tests/gpu/table_gemm.py "$OUT/mm_cl1_2.csv" "$OUT/peers_mm.csv"
python3 tests/gpu/table_gemm.py "$OUT/sw_cl1_2.csv" "$OUT/peers_sw.csv"
pack_out
