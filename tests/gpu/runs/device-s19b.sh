#!/usr/bin/env bash
# Nineteenth session's second run (written in the nineteenth, which had no
# device): one-wave-registers, A/B. Row kernels of one wave (<= 132 CTAs of
# <= 256 threads) capped at 255 registers a thread (nvvm.maxnreg), as GEMMs
# of one wave now always are: FuzzTest found ptxas spilling 4-8 bytes in
# such kernels for an occupancy one wave cannot use. It changes the SASS of
# the small-shape kernels (tokens 1 and 16) of issue 3, so it stays off
# until this shows it neutral or better: every row op at issue 3's shapes
# for 1 and 16 tokens, bf16 and f32, default and capped alternating in
# three passes, then the table of ratios. If neutral, make it the default
# (ScheduleRowKernels' one-wave-registers, its test's expectations, and
# docs/perf.md).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "one-wave-registers: default and capped, tokens 1 and 16"
OPS=rms_norm,add_rms_norm,layer_norm,softmax,silu_mul,rope,elementwise_chain
for pass in 1 2 3; do
  for v in default capped; do
    opt=""; [ $v = capped ] && opt="one-wave-registers=true"
    timeout 90 "$B/bin/tilec-bench" --ops=$OPS --dtypes=bf16,f32 --grid=issue3 --tokens=1,16 \
      --csv="$OUT/${v}_$pass.csv" ${opt:+--schedule="$opt"} 2>&1 | tail -n +3 | head -4
  done
done
python3 tests/gpu/ab_table.py default="$OUT/default_1.csv,$OUT/default_2.csv,$OUT/default_3.csv" \
  capped="$OUT/capped_1.csv,$OUT/capped_2.csv,$OUT/capped_3.csv" | tee "$OUT/ab.txt"
pack_out
