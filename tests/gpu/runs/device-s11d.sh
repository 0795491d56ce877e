#!/usr/bin/env bash
# Eleventh session, last run: every GPU test with the new defaults
# (sink-loads=auto; heavy cluster slices in no more clusters than fit the
# H200 at once), the new cluster sizes beside the old ones (clusters of 8
# for 16 rows, of 4 for 20 and 32 rows), and the few-row softmax beside
# the peers.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "GPU tests: all"
TILEC_TESTS_TIMEOUT=330 run_gpu_tests '*'
SF=16x131072,20x131072,32x65536,16x65536
step "cluster sizes: default / exactly 8 / exactly 4, two passes"
for pass in a b; do
  timeout 60 "$B/bin/tilec-bench" --ops=softmax,rms_norm,layer_norm,add_rms_norm --dtypes=bf16,f32 --shapes=$SF --csv="$OUT/d_$pass.csv" > /dev/null 2>&1
  timeout 60 "$B/bin/tilec-bench" --ops=softmax,rms_norm,layer_norm,add_rms_norm --dtypes=bf16,f32 --shapes=$SF --csv="$OUT/k8_$pass.csv" --schedule="row-cluster=8" > /dev/null 2>&1
  timeout 60 "$B/bin/tilec-bench" --ops=softmax,rms_norm,layer_norm,add_rms_norm --dtypes=bf16,f32 --shapes=$SF --csv="$OUT/k4_$pass.csv" --schedule="row-cluster=4" > /dev/null 2>&1
done
python3 tests/gpu/ab_table.py default="$OUT/d_a.csv,$OUT/d_b.csv" k8="$OUT/k8_a.csv,$OUT/k8_b.csv" k4="$OUT/k4_a.csv,$OUT/k4_b.csv" | tee "$OUT/ab_cluster.txt"
step "few-row softmax and norms beside the peers"
SP=16x131072,1x131072,16x4096,1x4096
timeout 40 "$B/bin/tilec-bench" --ops=softmax,rms_norm,layer_norm --dtypes=bf16,f32 --shapes=$SP --csv="$OUT/small.csv" > /dev/null 2>&1
timeout 150 python3 tests/gpu/peers.py --ops=softmax,rms_norm,layer_norm --dtypes=bf16,f32 --compile=bf16,f32 --shapes=$SP --csv "$OUT/peers.csv" > "$OUT/peers.txt" 2>&1
python3 tests/gpu/table.py "$OUT/small.csv" "$OUT/peers.csv" | tee "$OUT/table.txt"
step "summary"
grep -E "^GPU tests:" "$OUT/gpu_tests.log"
pack_out
