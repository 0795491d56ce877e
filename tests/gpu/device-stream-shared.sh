#!/usr/bin/env bash
# For the next device session: stream-shared (streamed rows re-read from
# shared memory, off by default until measured). Its GPU tests, then
# bf16 rows of 32768 with it off and on in alternating passes beside
# torch.compile (which beat the streamed rms_norm by 3-5% in run zb);
# layer_norm bf16 with two vectors a thread (64 registers without sinking).
source "$(dirname "$0")/device-setup.sh"
step "GPU tests: streamed rows, wide rows"
TILEC_TESTS_TIMEOUT=150 run_gpu_tests 'GpuScheduleTest.*:WideRows/*'
step "bf16 rows of 32768: stream-shared 0 / 1"
for pass in a b; do
  for t in 0 1; do
    timeout 60 "$B/bin/tilec-bench" --ops=softmax,rms_norm,layer_norm --dtypes=bf16 --shapes=4096x32768,16384x32768 --csv="$OUT/ss${t}_$pass.csv" --schedule="stream-shared=$t" 2>&1 | tail -n +3 | sed "s/^/stream-shared=$t $pass: /"
  done
done | tee "$OUT/stream_shared.txt"
step "layer_norm bf16 4096x8192 (88% of an equal copy): 2 vectors a thread, 64 registers"
for pass in a b; do
  for sch in "" "row-chunks=2" "row-chunks=2 sink-loads=true"; do
    timeout 60 "$B/bin/tilec-bench" --ops=layer_norm --dtypes=bf16 --shapes=8192x4096,4096x8192,16384x4096 --csv=/tmp/ln.csv --schedule="$sch" 2>&1 | tail -n +3 | sed "s/^/[$sch] $pass: /"
  done
done | tee "$OUT/ln.txt"
timeout 200 python3 tests/gpu/peers.py --ops=softmax,rms_norm,layer_norm --shapes=4096x32768,16384x32768 --dtypes=bf16 --compile=bf16 --csv "$OUT/peers.csv" > "$OUT/peers.txt" 2>&1
for t in 0 1; do
  step "table, stream-shared=$t"
  python3 tests/gpu/table.py "$OUT/ss${t}_a.csv" "$OUT/peers.csv"
done
step "summary (GPU tests rc=$tests_rc)"
grep -E "PASSED|FAILED|SKIPPED" "$OUT/gpu_tests.log" | tail -6
pack_out
