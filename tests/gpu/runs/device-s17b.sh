#!/usr/bin/env bash
# Seventeenth session, second run (written in the seventeenth, not yet run:
# no device was lent after run s17a): fold-into-exp=true, softmax's row
# scalars folded into the exps where bf16 rows of 65537-131072 columns are
# split over clusters and the exps made again past the reduction. The
# second pass is one FMA and one ex2 an element (the default: subtract,
# multiply by log2 e, ex2, multiply by 1 / s), the first one FMA, ex2 and
# add. The softmax and schedule GPU tests (they cover fold-into-exp=true)
# and the runtime's (with GpuRuntimeTest.TransposesFoldedIntoMatmulsAndViews,
# transposes folded into matmul operands and views, not yet run),
# the SASS of both kernels (opcode counts), the A/B in three alternating
# passes, and eager and torch.compile on the same shapes; last, heads_rms_norm
# (a transpose of row dims gathered by the norm's kernel) beside the peers.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "GPU tests"
TILEC_TESTS_TIMEOUT=200 run_gpu_tests 'Softmax/*:GpuScheduleTest.*:GpuRuntimeTest.*'
step "SASS opcode counts"
for v in default fold; do
  for sh in 4096x131072 200x100000; do
    n=${v}_$sh
    opt=""; [ $v = fold ] && opt="fold-into-exp=true"
    "$B/bin/tilec" --rows=${sh%x*} --cols=${sh#*x} --dtype=bf16 --schedule="$opt" softmax -o "$OUT/$n.ptx"
    /usr/local/cuda/bin/ptxas -arch=sm_90a -v "$OUT/$n.ptx" -o "$OUT/$n.cubin" 2>&1 | grep -E "registers|spill" | sed "s/^/$n: /"
    /usr/local/cuda/bin/cuobjdump -sass "$OUT/$n.cubin" > "$OUT/$n.sass"
    echo "$n: $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' "$OUT/$n.sass") instructions"
    grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+[A-Z][A-Z0-9_.]*' "$OUT/$n.sass" | awk '{ sub(/\..*/, "", $2); print $2 }' |
      sort | uniq -c | sort -rn | head -12 | paste -sd' ' | sed "s/^/$n: /"
    rm -f "$OUT/$n.cubin" "$OUT/$n.ptx"
  done
done
SH=4096x131072,16384x131072,300x131072,200x100000
for pass in 1 2 3; do
  for v in default fold; do
    step "$v ($pass)"
    opt=""; [ $v = fold ] && opt="fold-into-exp=true"
    timeout 60 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16 --shapes=$SH --csv="$OUT/${v}_$pass.csv" ${opt:+--schedule="$opt"} 2>&1 | grep -E "^softmax"
  done
done
step "A/B"
python3 tests/gpu/ab_table.py default="$OUT/default_1.csv,$OUT/default_2.csv,$OUT/default_3.csv" \
  fold="$OUT/fold_1.csv,$OUT/fold_2.csv,$OUT/fold_3.csv" | tee "$OUT/ab.txt"
step "peers"
timeout 150 python3 tests/gpu/peers.py --ops=softmax --dtypes=bf16 --compile=bf16 --shapes=4096x131072,16384x131072 --csv "$OUT/peers.csv" > "$OUT/peers.txt" 2>&1
tail -4 "$OUT/peers.txt"
# The seventeenth session's transposes: rms_norm of [tokens, 32, 128] moved
# heads first, one row kernel gathering the rows, beside the peers.
step "heads_rms_norm"
timeout 60 "$B/bin/tilec-bench" --ops=heads_rms_norm --dtypes=bf16,f32 --shapes=16x4096,4096x4096,16384x4096 --csv="$OUT/heads.csv" 2>&1 | grep -E "^heads|copy"
timeout 120 python3 tests/gpu/peers.py --ops=heads_rms_norm --dtypes=bf16,f32 --compile=bf16,f32 --shapes=16x4096,4096x4096,16384x4096 --csv "$OUT/peers_heads.csv" > "$OUT/peers_heads.txt" 2>&1
tail -7 "$OUT/peers_heads.txt"
python3 tests/gpu/table.py "$OUT/heads.csv" "$OUT/peers_heads.csv" | tee "$OUT/table_heads.txt"
pack_out
