#!/usr/bin/env bash
# Tenth session, second run: the row-loop schedule (CTAs loop over row
# blocks, weights loaded once a CTA) tested and measured beside the default
# (both with dependent launch), layer_norm with its weight loads sunk, and
# the default build beside PyTorch eager and torch.compile at every row
# shape of issue 3. Every step within a deadline (one device call).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
END=$((SECONDS + ${TILEC_BUDGET_S:-570}))
left() { echo $((END - SECONDS)); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "GPU tests: row-loop kernels, dependent launch, runtime"
TILEC_TESTS_TIMEOUT=110 run_gpu_tests 'RowLoop/*:DependentLaunch.*:GpuRuntimeTest.*'
SHAPES=1x4096,16x4096,8192x4096,4096x8192,16384x4096
LARGE=8192x4096,4096x8192,16384x4096
bench() { # seconds, csv, args...
  local t=$1 csv=$2; shift 2
  [ "$(left)" -gt "$t" ] || { echo "skipped $csv (out of time)"; return; }
  timeout "$t" "$B/bin/tilec-bench" --csv="$csv" "$@" > /dev/null 2>&1 || echo "bench $csv failed or timed out"
}
step "tilec-bench: default, row-loop (pass a)"
bench 100 "$OUT/bench.csv" --shapes=$SHAPES
bench 40 /tmp/w.csv --ops=softmax --shapes=4096x32768,16x131072 && tail -n +2 /tmp/w.csv >> "$OUT/bench.csv"
bench 60 "$OUT/loop_a.csv" --shapes=$LARGE --schedule="row-loop=true"
bench 20 "$OUT/ln_sink_a.csv" --ops=layer_norm --dtypes=bf16 --shapes=$LARGE --schedule="sink-loads=true"
step "peers (PyTorch eager, torch.compile)"
T=$(( $(left) - 100 )); [ $T -gt 240 ] && T=240
timeout $T python3 tests/gpu/peers.py --shapes=$SHAPES --csv "$OUT/peers.csv" > "$OUT/peers.txt" 2>&1
tail -2 "$OUT/peers.txt"
step "pass b: default and row-loop at the large shapes, bf16"
bench 30 "$OUT/default_b.csv" --dtypes=bf16 --shapes=$LARGE
bench 30 "$OUT/loop_b.csv" --dtypes=bf16 --shapes=$LARGE --schedule="row-loop=true"
bench 15 "$OUT/ln_sink_b.csv" --ops=layer_norm --dtypes=bf16 --shapes=$LARGE --schedule="sink-loads=true"
if [ "$(left)" -gt 50 ]; then
  timeout $(( $(left) - 15 )) python3 tests/gpu/peers.py --ops=softmax --shapes=4096x32768,16x131072 --compile=bf16,f32 --csv /tmp/pw.csv >> "$OUT/peers.txt" 2>&1
  tail -n +2 /tmp/pw.csv >> "$OUT/peers.csv" 2>/dev/null
fi
if [ "$(left)" -gt 45 ] && command -v ncu >/dev/null; then
  step "ncu: softmax bf16 [16, 131072] (clusters of 8)"
  timeout 35 ncu --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
    -k regex:kernel0 -s 2 -c 1 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16 --shapes=16x131072 > "$OUT/ncu_softmax_16x131072.txt" 2>&1
  grep -E "Duration|Throughput|Cluster|Registers|Occupancy|Stall|Warp Cycles Per Issued|Waves" "$OUT/ncu_softmax_16x131072.txt" | head -30
fi
step "tables"
python3 tests/gpu/ab_table.py default="$OUT/bench.csv,$OUT/default_b.csv" loop="$OUT/loop_a.csv,$OUT/loop_b.csv" | grep -vE "  1x|  16x" | tee "$OUT/ab.txt"
python3 tests/gpu/ab_table.py default="$OUT/bench.csv,$OUT/default_b.csv" sink="$OUT/ln_sink_a.csv,$OUT/ln_sink_b.csv" | grep -E "^op|layer_norm +bf16 +(8192x4096|4096x8192|16384x4096)" | tee -a "$OUT/ab.txt"
python3 tests/gpu/table.py "$OUT/bench.csv" "$OUT/peers.csv" > "$OUT/table.txt"
python3 tests/gpu/table.py "$OUT/loop_a.csv" "$OUT/peers.csv" > "$OUT/table_loop.txt"
cat "$OUT/table.txt"
step "summary"
grep -E "^GPU tests:" "$OUT/gpu_tests.log"
pack_out
