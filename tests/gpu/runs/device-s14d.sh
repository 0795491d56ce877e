#!/usr/bin/env bash
# Fourteenth session, fourth run: fast math flushing f32 subnormals
# (tilec-flush-subnormals: ex2.approx.ftz, div.approx.ftz, one SASS
# instruction each instead of four). A/B against the IEEE kernels, two
# passes, on the shapes where a thread's math is longest (softmax over
# 128k columns: one CTA an SM) and on the grid's misses; clusters of 8 at
# 128k beside them. Then the default schedules' GPU tests (part 1).
# (Run s14d was made while flushing was the default and the IEEE kernels
# took --keep-subnormals; the run found flushing no faster, and it is now
# --flush-subnormals, off by default. The variants' kernels are the same.)
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
bench() { # name, extra args...
  local name=$1; shift
  timeout 100 "$B/bin/tilec-bench" "$@" --csv="$OUT/part_$name.csv" > /dev/null 2>&1 || echo "$name failed"
}
step "A/B: --flush-subnormals (ftz) against the default (keep)"
for pass in a b; do
  for v in ftz keep; do
    [ "$v" = ftz ] && K=--flush-subnormals || K=
    bench "${v}_s_$pass" --ops=softmax --dtypes=bf16,f32 --shapes=4096x131072,16x131072,4096x32768,4096x8192,4096x4096 $K
    bench "${v}_n_$pass" --ops=layer_norm,rms_norm,rope --dtypes=bf16 --shapes=4096x4096,4096x8192,8192x4096 $K
    bench "${v}_m_$pass" --ops=silu_mul --dtypes=bf16,f32 --shapes=4096x14336,16384x14336 $K
  done
done
for v in ftz keep; do
  for p in a b; do cat "$OUT"/part_${v}_?_$p.csv | awk 'NR == 1 || !/^op,/' > "$OUT/${v}_$p.csv"; done
done
python3 tests/gpu/ab_table.py ftz="$OUT/ftz_a.csv,$OUT/ftz_b.csv" keep="$OUT/keep_a.csv,$OUT/keep_b.csv" | tee "$OUT/ab.txt"
step "softmax [4096, 131072] in clusters of 8 (flushed)"
i=0
for sched in "row-cluster=8" "row-cluster=8 online-softmax=false" "row-cluster=2 stream-shared=true"; do
  timeout 60 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16 --shapes=4096x131072 \
    --schedule="$sched" --flush-subnormals --csv="$OUT/c$i.csv" 2>&1 | tail -1 | sed "s/^/[$sched] /"
  i=$((i + 1))
done
step "GPU tests, part 1"
TILEC_TESTS_TIMEOUT=300 run_gpu_tests 'GpuScheduleTest.*:GpuRuntimeTest.*:Examples/*:Rows/*:Softmax/*:WideRows/*:DependentLaunch.*:GpuNumericsTest.*:GpuSliceTest.*:Attention.*'
pack_out
