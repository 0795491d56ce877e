#!/usr/bin/env bash
# Eleventh session, third run: rows split over clusters of 7 or 6 CTAs
# (16 of them fit the H200 one CTA an SM; 16 clusters of 8 do not: run zn)
# tested and measured beside the default, and two register experiments for
# the bf16 rows of 4096-8192 (row-chunks=2: 512 threads a row; rewiden:
# the row kept packed bf16 across the reductions).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
step "cluster slots (the driver's count, one CTA an SM)"
nvcc -O2 -arch=sm_90a -o /tmp/cluster_slots tests/gpu/probes/cluster_slots.cu && /tmp/cluster_slots | tee "$OUT/cluster_slots.txt"
step "GPU tests: rows split over clusters"
TILEC_TESTS_TIMEOUT=200 run_gpu_tests 'Rows/GpuClusterTest.*'
SF=16x131072,16x65536,8x131072,1x131072
C="max-chunks-per-thread=32 row-cluster"
step "few wide rows: default / clusters of 7 / clusters of 6, two passes"
for pass in a b; do
  timeout 60 "$B/bin/tilec-bench" --ops=softmax,rms_norm,layer_norm --dtypes=bf16,f32 --shapes=$SF --csv="$OUT/d_$pass.csv" > /dev/null 2>&1
  timeout 60 "$B/bin/tilec-bench" --ops=softmax,rms_norm,layer_norm --dtypes=bf16,f32 --shapes=$SF --csv="$OUT/c7_$pass.csv" --schedule="$C=7" > /dev/null 2>&1
  timeout 60 "$B/bin/tilec-bench" --ops=softmax,rms_norm,layer_norm --dtypes=bf16,f32 --shapes=$SF --csv="$OUT/c6_$pass.csv" --schedule="$C=6" > /dev/null 2>&1
done
python3 tests/gpu/ab_table.py default="$OUT/d_a.csv,$OUT/d_b.csv" c7="$OUT/c7_a.csv,$OUT/c7_b.csv" c6="$OUT/c6_a.csv,$OUT/c6_b.csv" | tee "$OUT/ab_cluster.txt"
SL=4096x8192,8192x4096,16384x4096
step "bf16 rows of 4096-8192: default / row-chunks=2 / rewiden / rewiden + sink-loads=true, two passes"
for pass in a b; do
  timeout 60 "$B/bin/tilec-bench" --ops=layer_norm,rms_norm,softmax --dtypes=bf16 --shapes=$SL --csv="$OUT/l_$pass.csv" > /dev/null 2>&1
  timeout 60 "$B/bin/tilec-bench" --ops=layer_norm,rms_norm,softmax --dtypes=bf16 --shapes=$SL --csv="$OUT/rc2_$pass.csv" --schedule="row-chunks=2" > /dev/null 2>&1
  timeout 60 "$B/bin/tilec-bench" --ops=layer_norm,rms_norm,softmax --dtypes=bf16 --shapes=$SL --csv="$OUT/rw_$pass.csv" --schedule="rewiden=true" > /dev/null 2>&1
  timeout 60 "$B/bin/tilec-bench" --ops=layer_norm,rms_norm,softmax --dtypes=bf16 --shapes=$SL --csv="$OUT/rws_$pass.csv" --schedule="rewiden=true sink-loads=true" > /dev/null 2>&1
done
python3 tests/gpu/ab_table.py default="$OUT/l_a.csv,$OUT/l_b.csv" rowchunks2="$OUT/rc2_a.csv,$OUT/rc2_b.csv" rewiden="$OUT/rw_a.csv,$OUT/rw_b.csv" rewiden_sink="$OUT/rws_a.csv,$OUT/rws_b.csv" | tee "$OUT/ab_large.txt"
step "summary"
grep -E "^GPU tests:" "$OUT/gpu_tests.log"
pack_out
