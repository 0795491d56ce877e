#!/usr/bin/env bash
# Eighth session, second run: every GPU test (the batch-of-one fix among
# them; TILEC_TESTS=0 skips them), then two row A/Bs in alternating
# passes: bf16 rows of 32768 streamed at 512 threads (the default here)
# against resident at 1024 threads (max-threads-per-block=1024), and
# layer_norm / rms_norm bf16 with the weight loads sunk past the
# reductions (sink-loads=true: 64 registers instead of 80) or not.
source "$(dirname "$0")/../device-setup.sh"
tests_rc=skipped
if [ "${TILEC_TESTS:-1}" = 1 ]; then
  step "GPU tests"
  run_gpu_tests
fi
bench() { # label, args...
  local label=$1; shift
  timeout 90 "$B/bin/tilec-bench" --dtypes=bf16 --csv="$OUT/$label.csv" "$@" 2>&1 | tail -n +3 | sed "s/^/$label: /"
}
step "bf16 rows of 32768: 512 threads streamed vs 1024 resident"
for pass in a b; do
  bench "wide_512_$pass" --ops=softmax,rms_norm,layer_norm,add_rms_norm --shapes=4096x32768,16384x32768
  bench "wide_1024_$pass" --ops=softmax,rms_norm,layer_norm,add_rms_norm --shapes=4096x32768,16384x32768 --schedule="max-threads-per-block=1024"
done | tee "$OUT/wide.txt"
step "bf16 norms: weight loads sunk or not"
for pass in a b; do
  bench "sink_false_$pass" --ops=layer_norm,rms_norm --shapes=8192x4096,4096x8192,16384x4096
  bench "sink_true_$pass" --ops=layer_norm,rms_norm --shapes=8192x4096,4096x8192,16384x4096 --schedule="sink-loads=true"
done | tee "$OUT/sink.txt"
step "summary (GPU tests rc=$tests_rc)"
[ -f "$OUT/gpu_tests.log" ] && grep -E "PASSED|FAILED|SKIPPED" "$OUT/gpu_tests.log" | tail -6
pack_out
