#!/usr/bin/env bash
# Ninth session, first run: every GPU test (stream-shared, attention and the
# launch path that formats errors only on failure are new since the last
# full run; TILEC_TESTS=0 skips them), then stream-shared (streamed rows
# re-read from shared memory) off and on in alternating passes at bf16
# rows of 32768 beside torch.compile, layer_norm bf16 at two vectors a
# thread, and the small (launch-bound) shapes beside an equal copy; tables
# last.
source "$(dirname "$0")/../device-setup.sh"
tests_rc=skipped
if [ "${TILEC_TESTS:-1}" = 1 ]; then
  step "GPU tests"
  TILEC_TESTS_TIMEOUT=320 run_gpu_tests
fi
bench() { # label, args...
  local label=$1; shift
  timeout 60 "$B/bin/tilec-bench" --dtypes=bf16 --csv="$OUT/$label.csv" "$@" 2>&1 | tail -n +3 | sed "s/^/$label: /"
}
step "bf16 rows of 32768: stream-shared false / true"
for pass in a b; do
  for t in false true; do
    bench "ss${t}_$pass" --ops=softmax,rms_norm,layer_norm --shapes=4096x32768,16384x32768 --schedule="stream-shared=$t"
  done
done | tee "$OUT/stream_shared.txt"
if [ "${TILEC_S9_FIRST:-0}" = 1 ]; then # run 1 only (the results: docs/perf-runs)
step "layer_norm bf16: default / row-chunks=2"
for sch in "" "row-chunks=2"; do
  bench "ln_${sch:+rc2}" --ops=layer_norm --shapes=8192x4096,4096x8192,16384x4096 --schedule="$sch"
done | tee "$OUT/ln.txt"
step "small shapes (launch-bound), bf16 and f32"
timeout 60 "$B/bin/tilec-bench" --dtypes=bf16,f32 --shapes=1x4096,16x4096,1x8192,16x8192 --csv="$OUT/small.csv" 2>&1 | tail -n +2 | tee "$OUT/small.txt"
fi
step "peers: bf16 rows of 32768"
timeout 150 python3 tests/gpu/peers.py --ops=softmax,rms_norm,layer_norm --shapes=4096x32768,16384x32768 --dtypes=bf16 --compile=bf16 --csv "$OUT/peers.csv" > "$OUT/peers.txt" 2>&1
tail -3 "$OUT/peers.txt"
for t in false true; do
  step "table, stream-shared=$t"
  python3 tests/gpu/table.py "$OUT/ss${t}_a.csv" "$OUT/peers.csv"
done
step "summary (GPU tests rc=$tests_rc)"
[ -f "$OUT/gpu_tests.log" ] && grep -E "^GPU tests:" "$OUT/gpu_tests.log"
pack_out
