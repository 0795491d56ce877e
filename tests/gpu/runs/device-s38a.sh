#!/usr/bin/env bash
# Written in the thirty-seventh session (as device-s37f.sh, never run) and
# extended in the thirty-eighth for the next device run (an H200 first:
# issue 3's misses are there): the rows-ahead prefetch's default
# (row-l2-prefetch=-1, 2 MiB of rows ahead) against none and against
# 4 MiB ahead (the H200 moves 1.4x the H100's bytes a second) and against
# row-l2-prefetch-first (the first D blocks' CTAs prefetch their own rows
# too, ahead of the dependent-launch wait), A B A B, on
# the shapes the H200 missed 90% of copy at (layer_norm bf16 [4096, 8192],
# softmax bf16 [4096, 131072], the [4096, 4096] shapes) and their
# neighbours, then the GPU tests of the row schedules and the runtime.
# Follow with `tests/gpu/device-grid.sh bf16` (the grid beside the peers).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
bench() {
  local csv=$1; shift
  timeout 90 "$B/bin/tilec-bench" --csv="$csv" "$@" 2>&1 | grep -E "^(device|[a-z_]+ +(bf16|f32))|error" | head -30
}
# (4 MiB ahead only on an H200: an H100 measured it in s37c. The timings
# stop where the tests' TILEC_TESTS_S would run out, TILEC_BUDGET_S in all.)
END=$((SECONDS + ${TILEC_BUDGET_S:-540})) TESTS_S=${TILEC_TESTS_S:-150}
variants="default none first"
grep -q H200 "$OUT/gpu.txt" && variants="$variants 4mib"
for pass in 1 2; do
  for v in $variants; do
    [ $((END - SECONDS)) -gt $((TESTS_S + 40)) ] || { echo "out of time before pass $pass $v"; break 2; }
    case $v in
      none) o="row-l2-prefetch=0" ;;
      4mib) o="row-l2-prefetch-bytes=4194304" ;;
      first) o="row-l2-prefetch-first=true" ;;
      *) o="" ;;
    esac
    step "pass $pass: $v"
    bench "$OUT/rows_${v}_$pass.csv" --ops=layer_norm,rms_norm,softmax,add_rms_norm --dtypes=bf16 \
      --shapes=4096x8192,4096x4096,16384x8192 --schedule="$o" | sed "s/^/$v /"
    bench "$OUT/wide_${v}_$pass.csv" --ops=softmax --dtypes=bf16,f32 --shapes=4096x131072,1024x131072 \
      --schedule="$o" | sed "s/^/$v /"
  done
done
step "GPU tests: row schedules, runtime"
TILEC_TESTS_TIMEOUT=$((END - SECONDS - 15)) run_gpu_tests 'GpuScheduleTest.*:GpuRuntimeTest.*:DependentLaunch.*'
pack_out
