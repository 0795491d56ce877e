#!/usr/bin/env bash
# Thirty-fourth session, run a (the thirty-third's run c, which had no
# device time, with the flash kernels' carried stage and phase): the
# defaults on the device (one-wave GEMM tiles of one product take as many
# stages as fit, up to 16: 64 x 64 tiles 13 with TMA stores; k and v as one
# two-product kernel up to 2048 rows; the TMA flash kernels' block loops
# carry their stage and phase as one word): the GPU tests of the GEMMs,
# attention and the layer; the small GEMMs beside cuBLAS and against 8
# stages, A B A B; the decoder layer beside its peers.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "GPU tests: GEMMs, attention, the decoder layer"
TILEC_TESTS_TIMEOUT=200 run_gpu_tests 'Gemm*:Attention.*:DecoderLayer.*'
step "small GEMMs, A B A B: default (13 stages) against 8 (us)"
KV=512x1024x4096,128x4096x4096,64x4096x4096
for pass in 1 2; do
  for v in new st8; do
    o=""; [ $v = st8 ] && o="gemm-stages=8"
    timeout 60 "$B/bin/tilec-bench" --ops= --gemm=$KV --gemm-ops=matmul --cooldown-ms=50 ${o:+--schedule="$o"} \
      --gemm-csv="$OUT/mm_${v}_$pass.csv" 2>&1 | grep -E "^matmul|error" | sed "s/^/$v /"
  done
done
step "cuBLAS"
timeout 100 python3 tests/gpu/peers_gemm.py --triton 0 --cooldown-ms 50 --ops=matmul \
  --shapes=$KV --csv "$OUT/peers_mm.csv" 2>&1 | tail -n 4
step "decoder layer (defaults), and its peers"
LAYERS=512x4096x0,2048x4096x0,64x4096x512,16x4096x512,1x4096x4096
timeout 100 "$B/bin/tilec-bench" --ops= --layers=$LAYERS --cooldown-ms=200 --layer-csv="$OUT/layer.csv" 2>&1 | grep -E "^decoder_layer|error"
timeout 240 python3 tests/gpu/peers_layer.py --layers=$LAYERS --cooldown-ms 200 --csv "$OUT/peers_layer.csv" \
  --tilec-csv "$OUT/layer.csv" 2>&1 | tail -n 7
pack_out
