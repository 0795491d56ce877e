#!/usr/bin/env bash
# Tenth session, third run: sink-loads=auto (weight and bias loads sunk past
# the reductions in 16-bit rows of 256+ threads: layer_norm bf16
# [4096, 8192]) tested and measured beside sink-loads=false, with the peers
# in the same run; the row-loop tests again with their corrected
# expectation.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "GPU tests: layer_norm, Welford, wide rows, row-loop, dependent launch"
TILEC_TESTS_TIMEOUT=200 run_gpu_tests 'Examples/*layer_norm*:LayerNorm/*:WideRows/*:RowLoop/*:DependentLaunch.*'
S=8192x4096,4096x8192,16384x4096,4096x16384
step "layer_norm and rms_norm bf16: sink-loads auto (default) / false, two passes"
for pass in a b; do
  timeout 40 "$B/bin/tilec-bench" --ops=layer_norm,rms_norm --dtypes=bf16 --shapes=$S --csv="$OUT/auto_$pass.csv" > /dev/null 2>&1
  timeout 40 "$B/bin/tilec-bench" --ops=layer_norm,rms_norm --dtypes=bf16 --shapes=$S --csv="$OUT/false_$pass.csv" --schedule="sink-loads=false" > /dev/null 2>&1
done
python3 tests/gpu/ab_table.py auto="$OUT/auto_a.csv,$OUT/auto_b.csv" false="$OUT/false_a.csv,$OUT/false_b.csv" | tee "$OUT/ab.txt"
step "peers"
timeout 120 python3 tests/gpu/peers.py --ops=layer_norm,rms_norm --dtypes=bf16 --compile=bf16 --shapes=$S --csv "$OUT/peers.csv" > "$OUT/peers.txt" 2>&1
python3 tests/gpu/table.py "$OUT/auto_a.csv" "$OUT/peers.csv" | tee "$OUT/table.txt"
step "summary"
grep -E "^GPU tests:" "$OUT/gpu_tests.log"
pack_out
