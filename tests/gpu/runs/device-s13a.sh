#!/usr/bin/env bash
# Thirteenth session, first run: a row's scalars applied once
# (row-scalars=auto: x / s as x * (1 / s); (x - m) * r and exp(x - m) as one
# FMA for 16-bit results) and read-only inputs through ld.global.nc
# (readonly-inputs=true), tested, then measured beside the default, two
# passes.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
step "GPU tests: row scalars, read-only inputs"
TILEC_TESTS_TIMEOUT=240 run_gpu_tests 'GpuScheduleTest.RowScalarsFoldedUnderFastMath'
SL=4096x8192,8192x4096,16384x4096
bench() { # name, schedule, extra args
  local name=$1 sched=$2; shift 2
  timeout 100 "$B/bin/tilec-bench" --csv="$OUT/${name}.csv" --schedule="$sched" "$@" > /dev/null 2>&1 ||
    echo "bench $name failed (rc=$?)"
}
step "A/B: default / row-scalars / readonly / both, two passes"
for pass in a b; do
  for v in "d|" "rs|row-scalars=auto" "nc|readonly-inputs=true" "both|row-scalars=auto readonly-inputs=true"; do
    name=${v%%|*}; sched=${v#*|}
    bench "${name}_$pass" "$sched" --ops=layer_norm,rms_norm,softmax,add_rms_norm --dtypes=bf16,f32 --shapes=$SL
    bench "${name}_w_$pass" "$sched" --ops=softmax,layer_norm --dtypes=bf16,f32 --shapes=4096x32768,16x131072
  done
  for v in "d|" "nc|readonly-inputs=true"; do
    name=${v%%|*}; sched=${v#*|}
    bench "${name}_e_$pass" "$sched" --ops=silu_mul,elementwise_chain,rope --dtypes=bf16 --shapes=$SL
  done
done
for part in "" "_w"; do
  python3 tests/gpu/ab_table.py default="$OUT/d${part}_a.csv,$OUT/d${part}_b.csv" \
    row_scalars="$OUT/rs${part}_a.csv,$OUT/rs${part}_b.csv" readonly="$OUT/nc${part}_a.csv,$OUT/nc${part}_b.csv" \
    both="$OUT/both${part}_a.csv,$OUT/both${part}_b.csv" | tee -a "$OUT/ab.txt"
done
python3 tests/gpu/ab_table.py default="$OUT/d_e_a.csv,$OUT/d_e_b.csv" readonly="$OUT/nc_e_a.csv,$OUT/nc_e_b.csv" | tee -a "$OUT/ab.txt"
step "summary"
grep -E "^GPU tests:" "$OUT/gpu_tests.log"
pack_out
