#!/usr/bin/env bash
# Thirty-first session, run e: the GEMMs' split k (its hand-off changed
# with attention's) and the program cache on the device; the mid decode
# shapes (keys split 2-16 ways, 72% of copy) with two CTAs an SM (the
# cp.async kernel, 91 KB and 144 registers: the TMA kernel's 256 threads
# at 168 registers fit one) at twice the splits, against the default.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
step "GPU tests: split k, GEMM schedules, program cache, dependent launch"
TILEC_TESTS_TIMEOUT=200 run_gpu_tests 'GemmSplitK.*:GemmSchedules.*:ProgramCache.*:DependentLaunch.*'
for sv in 64x4x4100x128:2 32x4x8196x128:4 8x4x16388x128:16; do
  s=${sv%:*}; n=${sv#*:}
  for v in dflt two two1 dflt2; do
    case $v in dflt|dflt2) o="";; two) o="attention-tma=0 attention-split=$((2 * n))";;
      two1) o="attention-tma=0 attention-split=$n";; esac
    timeout 40 "$B/bin/tilec-bench" --ops= --attention=$s --cooldown-ms=50 ${o:+--schedule="$o"} --attention-csv="$OUT/att_${s}_$v.csv" 2>&1 | grep -E "^attention_flash|error" | sed "s/^/$v /"
  done
done
pack_out
