#!/usr/bin/env bash
# Twelfth session, first run: row-prefetch (row-loop CTAs that copy the row
# blocks ahead into a ring of shared memory with cp.async) tested, then
# measured beside the default and the plain row loop at the large bf16
# shapes, two passes, stages 2 and 3; few wide rows in 1024-thread CTAs.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
step "GPU tests: row-prefetch"
TILEC_TESTS_TIMEOUT=150 run_gpu_tests 'RowPrefetch/*'
SL=4096x8192,8192x4096,16384x4096
OPS=layer_norm,rms_norm,softmax,add_rms_norm,rope
step "rows of 4096-8192: default / row-prefetch=2 / row-prefetch=3 / row-loop, two passes"
for pass in a b; do
  timeout 100 "$B/bin/tilec-bench" --ops=$OPS --dtypes=bf16 --shapes=$SL --csv="$OUT/d_$pass.csv" > /dev/null 2>&1
  timeout 100 "$B/bin/tilec-bench" --ops=$OPS --dtypes=bf16 --shapes=$SL --csv="$OUT/p2_$pass.csv" --schedule="row-prefetch=2" > /dev/null 2>&1
  timeout 100 "$B/bin/tilec-bench" --ops=$OPS --dtypes=bf16 --shapes=$SL --csv="$OUT/p3_$pass.csv" --schedule="row-prefetch=3" > /dev/null 2>&1
done
timeout 100 "$B/bin/tilec-bench" --ops=$OPS --dtypes=bf16 --shapes=$SL --csv="$OUT/loop.csv" --schedule="row-loop=true" > /dev/null 2>&1
python3 tests/gpu/ab_table.py default="$OUT/d_a.csv,$OUT/d_b.csv" prefetch2="$OUT/p2_a.csv,$OUT/p2_b.csv" prefetch3="$OUT/p3_a.csv,$OUT/p3_b.csv" loop="$OUT/loop.csv" | tee "$OUT/ab.txt"
SF=16x131072,16x65536
step "few wide rows: default / 1024-thread CTAs, two passes"
for pass in a b; do
  timeout 60 "$B/bin/tilec-bench" --ops=softmax,rms_norm --dtypes=bf16,f32 --shapes=$SF --csv="$OUT/fd_$pass.csv" > /dev/null 2>&1
  timeout 60 "$B/bin/tilec-bench" --ops=softmax,rms_norm --dtypes=bf16,f32 --shapes=$SF --csv="$OUT/f1024_$pass.csv" --schedule="max-threads-per-block=1024" > /dev/null 2>&1
done
python3 tests/gpu/ab_table.py default="$OUT/fd_a.csv,$OUT/fd_b.csv" t1024="$OUT/f1024_a.csv,$OUT/f1024_b.csv" | tee "$OUT/ab_few.txt"
step "summary"
grep -E "^GPU tests:" "$OUT/gpu_tests.log"
pack_out
