#!/usr/bin/env bash
# Eleventh session, first run: sink-loads=auto tested and measured beside
# sink-loads=false and the peers (the run device-s10c.sh was written for),
# then where softmax [16, 131072]'s time goes: the same bytes and CTA count
# without clusters ([128, 16384]: one CTA a row), other cluster sizes, and
# Nsight Compute on both kernels.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
START=$SECONDS
left() { echo $((560 - (SECONDS - START))); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "GPU tests: layer_norm, Welford, wide rows, row-loop, dependent launch"
TILEC_TESTS_TIMEOUT=230 run_gpu_tests 'Examples/*layer_norm*:LayerNorm/*:WideRows/*:RowLoop/*:DependentLaunch.*'
S=8192x4096,4096x8192,16384x4096,4096x16384
step "layer_norm and rms_norm bf16: sink-loads auto / false, two passes"
for pass in a b; do
  timeout 40 "$B/bin/tilec-bench" --ops=layer_norm,rms_norm --dtypes=bf16 --shapes=$S --csv="$OUT/auto_$pass.csv" --schedule="sink-loads=auto" > /dev/null 2>&1
  timeout 40 "$B/bin/tilec-bench" --ops=layer_norm,rms_norm --dtypes=bf16 --shapes=$S --csv="$OUT/false_$pass.csv" --schedule="sink-loads=false" > /dev/null 2>&1
done
python3 tests/gpu/ab_table.py auto="$OUT/auto_a.csv,$OUT/auto_b.csv" false="$OUT/false_a.csv,$OUT/false_b.csv" | tee "$OUT/ab.txt"
step "softmax: cluster sizes, and the same bytes without clusters"
SM=16x131072,1x131072,16x65536,128x16384,64x32768
for pass in a b; do
  for k in 8 4 2; do
    timeout 40 "$B/bin/tilec-bench" --ops=softmax,rms_norm --dtypes=bf16,f32 --shapes=$SM --csv="$OUT/k${k}_$pass.csv" --schedule="row-cluster-max=$k" > /dev/null 2>&1
  done
done
python3 tests/gpu/ab_table.py k8="$OUT/k8_a.csv,$OUT/k8_b.csv" k4="$OUT/k4_a.csv,$OUT/k4_b.csv" k2="$OUT/k2_a.csv,$OUT/k2_b.csv" | tee "$OUT/ab_cluster.txt"
step "peers"
timeout 120 python3 tests/gpu/peers.py --ops=layer_norm,rms_norm --dtypes=bf16 --compile=bf16 --shapes=$S --csv "$OUT/peers.csv" > "$OUT/peers.txt" 2>&1
python3 tests/gpu/table.py "$OUT/auto_a.csv" "$OUT/peers.csv" | tee "$OUT/table.txt"
if [ "$(left)" -gt 60 ] && command -v ncu >/dev/null; then
  for shape in 16x131072 128x16384; do
    step "ncu: softmax bf16 $shape"
    timeout 30 ncu --clock-control none --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats \
      --metrics smsp__pcsamp_sample_count,sm__cycles_active.max,sm__cycles_active.min,smsp__warps_launched.sum \
      -k regex:kernel0 -s 2 -c 1 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16 --shapes=$shape > "$OUT/ncu_softmax_$shape.txt" 2>&1
    grep -E "Duration|Elapsed|SM Active|Cluster Size|Registers|Achieved Occ|Stall|Warp Cycles Per Issued|cycles_active|Issued Warp" "$OUT/ncu_softmax_$shape.txt" | head -20
  done
fi
step "summary"
grep -E "^GPU tests:" "$OUT/gpu_tests.log"
pack_out
