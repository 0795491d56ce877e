#!/usr/bin/env bash
# Thirty-third session, run b: the TMA GEMM pipeline with its stage and
# phase carried through the k loops (no 64-bit division a step) and its
# wgmma descriptors from one low word a panel (run s33a: 64 x 64 tiles
# 1.32x slower at 6, 10 or 12 stages than at 8, the divisions and the
# descriptor math between a step's wgmma wait and the next MMAs). GPU
# tests of the GEMMs and the layer; the stage sweep again (no stage count
# should be slow for its division now); mma_pending 2; the larger shapes;
# cuBLAS; the decoder layer with k and v as one kernel and without, and
# its peers.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "GPU tests: GEMMs, the decoder layer"
TILEC_TESTS_TIMEOUT=150 run_gpu_tests 'Gemm*:DecoderLayer.*'
step "GEMM stages at the layer's small shapes (us)"
KV=512x1024x4096,128x4096x4096
for v in dflt st4 st6 st10 st12 st13 st12mp2 cl2 cl2st12 m64n128 m64n128st10 dflt2; do
  case $v in dflt|dflt2) o="";; st4) o="gemm-stages=4";; st6) o="gemm-stages=6";; st10) o="gemm-stages=10";;
    st12) o="gemm-stages=12";; st13) o="gemm-stages=13";; st12mp2) o="gemm-stages=12 gemm-mma-pending=2";;
    cl2) o="gemm-cluster-m=2";; cl2st12) o="gemm-cluster-m=2 gemm-stages=12";;
    m64n128) o="gemm-block-m=64 gemm-block-n=128";; m64n128st10) o="gemm-block-m=64 gemm-block-n=128 gemm-stages=10";; esac
  timeout 60 "$B/bin/tilec-bench" --ops= --gemm=$KV --gemm-ops=matmul --cooldown-ms=50 ${o:+--schedule="$o"} \
    --gemm-csv="$OUT/mm_$v.csv" 2>&1 | grep -E "^matmul|error" | sed "s/^/$v /"
done
step "larger shapes (us)"
MM=512x4096x14336,512x4096x4096,2048x4096x14336,4096x4096x4096
for v in dflt st5 mp2 cl2 dflt2; do
  case $v in dflt|dflt2) o="";; st5) o="gemm-stages=5";; mp2) o="gemm-mma-pending=2";; cl2) o="gemm-cluster-m=2";; esac
  timeout 60 "$B/bin/tilec-bench" --ops= --gemm=$MM --gemm-ops=matmul --cooldown-ms=50 ${o:+--schedule="$o"} \
    --gemm-csv="$OUT/mmbig_$v.csv" 2>&1 | grep -E "^matmul|error" | sed "s/^/$v /"
done
timeout 60 "$B/bin/tilec-bench" --ops= --gemm=512x14336x4096,2048x14336x4096 --gemm-ops=matmul_swiglu --cooldown-ms=50 \
  --gemm-csv="$OUT/sw_dflt.csv" 2>&1 | grep -E "^matmul|error" | sed "s/^/dflt /"
step "cuBLAS"
timeout 100 python3 tests/gpu/peers_gemm.py --triton 0 --cooldown-ms 50 --ops=matmul \
  --shapes=$KV,$MM --csv "$OUT/peers_mm.csv" 2>&1 | tail -n 7
step "decoder layer A/B: k and v as one kernel (kv) against two (new), us"
LAYERS=512x4096x0,2048x4096x0,16x4096x512,1x4096x4096
for pass in 1 2; do
  for v in new kv; do
    f=""
    [ $v = kv ] && f="sibling-gemm-rows=4096"
    timeout 100 "$B/bin/tilec-bench" --ops= --layers=$LAYERS --cooldown-ms=200 ${f:+--fuse="$f"} \
      --layer-csv="$OUT/layer_${v}_$pass.csv" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/$v /"
  done
done
step "peers"
timeout 200 python3 tests/gpu/peers_layer.py --layers=$LAYERS --cooldown-ms 200 --csv "$OUT/peers_layer.csv" \
  --tilec-csv "$OUT/layer_new_2.csv" 2>&1 | tail -n 6
pack_out
