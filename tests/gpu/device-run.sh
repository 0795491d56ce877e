#!/usr/bin/env bash
# Runs on the GPU machine (device tool): unpacks the static bundle made by
# `./run.sh bundle`, runs every GPU test, the examples and the benchmarks
# (tilec, PyTorch eager, torch.compile), and prints a short table last.
# Logs and CSVs go to $OUT when set.
source "$(dirname "$0")/device-setup.sh"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"

step "GPU tests (all shapes)"
if [ "${TILEC_SKIP_TESTS:-0}" = 1 ]; then # already run in this session (device-gemm.sh)
  echo "skipped (TILEC_SKIP_TESTS=1)" | tee "$OUT/gpu_tests.log"; tests_rc=skipped
else
  run_gpu_tests
fi

step "example"
( cd "$B" && ./bin/example_rmsnorm ) 2>&1 | tail -4

step "SASS: 16-byte loads"
for op in rms_norm softmax layer_norm rope; do
  "$B/bin/tilec" --emit=ptx "$op" -o "$B/$op.ptx" &&
    ptxas -arch=sm_90a "$B/$op.ptx" -o "$B/$op.cubin" &&
    echo "$op: $(cuobjdump --dump-sass "$B/$op.cubin" | grep -c 'LDG.E.128') LDG.E.128, $(cuobjdump --dump-sass "$B/$op.cubin" | grep -c 'STG.E.128') STG.E.128, $(cuobjdump --dump-sass "$B/$op.cubin" | grep -cE 'LDL|STL') local"
done 2>&1 | tee "$OUT/sass.txt"

# Large shapes (bandwidth), small shapes (launch bound), wide softmax rows.
SHAPES=${TILEC_SHAPES:-1x4096,16x4096,8192x4096,4096x8192,16384x4096}
WIDE=${TILEC_WIDE_SHAPES:-4096x32768,16x131072}
# TILEC_GRID=issue3: issue 3's whole grid instead (every op at its own
# shapes; longer: device-grid.sh runs it one dtype a call).
GRID=${TILEC_GRID:-}
step "tilec-bench"
if [ -n "$GRID" ]; then
  timeout ${TILEC_BENCH_TIMEOUT:-300} "$B/bin/tilec-bench" --grid="$GRID" --csv="$OUT/bench.csv" ${TILEC_BENCH_ARGS:-} 2>&1 | tee "$OUT/bench.txt"
else
timeout ${TILEC_BENCH_TIMEOUT:-150} "$B/bin/tilec-bench" --shapes="$SHAPES" --csv="$OUT/bench.csv" ${TILEC_BENCH_ARGS:-} 2>&1 | tee "$OUT/bench.txt"
timeout 60 "$B/bin/tilec-bench" --ops=softmax --shapes="$WIDE" --csv=/tmp/bench-wide.csv 2>&1 | tail -4 | tee -a "$OUT/bench.txt"
tail -n +2 /tmp/bench-wide.csv >> "$OUT/bench.csv" 2>/dev/null
fi

# Schedule/numerics variants measured in the same run (docs/perf.md).
if [ "${TILEC_EXPERIMENTS:-0}" = 1 ]; then
  step "experiments"
  run_variant() { # name, extra tilec-bench args...
    local name=$1; shift
    timeout 90 "$B/bin/tilec-bench" --csv=/tmp/exp.csv "$@" 2>&1 | tail -n +3 | sed "s/^/$name: /" | tee -a "$OUT/experiments.txt"
  }
  # The previous defaults, for before/after in one run.
  run_variant "old-elementwise" --ops=elementwise_chain,silu_mul,rope --shapes=8192x4096,4096x8192,16384x4096 --schedule="elementwise-threads-per-block=512 elementwise-elements=16"
  run_variant "old-resident-bf16" --ops=softmax --dtypes=bf16 --shapes=4096x32768 --schedule="max-chunks-per-thread=64"
  if [ "${TILEC_NCU:-0}" = 1 ] && command -v ncu >/dev/null; then
    timeout 120 ncu --section SpeedOfLight --section Occupancy --section ComputeWorkloadAnalysis \
      -k regex:kernel0 -c 1 "$B/bin/tilec-bench" --ops=elementwise_chain --dtypes=bf16 --shapes=4096x8192 \
      2>&1 | grep -vE "^==PROF==|^tilec|^device|^op " | sed 's/^/ncu chain bf16 4096x8192: /' >> "$OUT/experiments.txt"
  fi
fi

step "peers (PyTorch eager, torch.compile)"
if [ "${TILEC_SKIP_PEERS:-0}" = 1 ]; then
  echo "skipped (TILEC_SKIP_PEERS=1)"
elif [ -n "$GRID" ]; then
timeout ${TILEC_PEERS_TIMEOUT:-400} python3 tests/gpu/peers.py --grid="$GRID" --compile=bf16,f32 --csv "$OUT/peers.csv" ${TILEC_PEERS_ARGS:-} 2>&1 | tail -130 > "$OUT/peers.txt"
tail -5 "$OUT/peers.txt"
else
timeout ${TILEC_PEERS_TIMEOUT:-300} python3 tests/gpu/peers.py --shapes="$SHAPES" --csv "$OUT/peers.csv" ${TILEC_PEERS_ARGS:-} 2>&1 | tail -60 > "$OUT/peers.txt"
timeout 120 python3 tests/gpu/peers.py --ops=softmax --shapes="$WIDE" --compile=bf16,f32 --csv /tmp/peers-wide.csv 2>&1 | tail -4 >> "$OUT/peers.txt"
tail -n +2 /tmp/peers-wide.csv >> "$OUT/peers.csv" 2>/dev/null
tail -5 "$OUT/peers.txt"
fi

# A whole decoder layer (Llama-3-8B's shapes) beside eager and torch.compile.
LAYERS=${TILEC_LAYERS:-1x4096x512,16x4096x512,512x4096x0}
if [ "${TILEC_SKIP_LAYERS:-0}" != 1 ]; then
  step "decoder layer"
  timeout 120 "$B/bin/tilec-bench" --ops= --layers="$LAYERS" --cooldown-ms=200 --layer-csv="$OUT/layer.csv" 2>&1 | grep -E "^decoder_layer|error"
  if [ "${TILEC_SKIP_PEERS:-0}" != 1 ]; then
    timeout 240 python3 tests/gpu/peers_layer.py --layers="$LAYERS" --cooldown-ms 200 --csv "$OUT/peers_layer.csv" --tilec-csv "$OUT/layer.csv" > "$OUT/table_layer.txt" 2>&1
  fi
fi

# Attention (one flash kernel by default; shapes ending in c: causal)
# beside SDPA, eager and torch.compile.
ATTENTION=${TILEC_ATTENTION:-32x2048x2048x128c,32x2048x2048x128,8x64x4112x128}
if [ "${TILEC_SKIP_ATTENTION:-0}" != 1 ]; then
  step "attention"
  timeout 120 "$B/bin/tilec-bench" --ops= --attention="$ATTENTION" --cooldown-ms=100 --attention-csv="$OUT/attention.csv" 2>&1 | grep -E "^attention|error"
  if [ "${TILEC_SKIP_PEERS:-0}" != 1 ]; then
    timeout 200 python3 tests/gpu/peers_attention.py --attention="$ATTENTION" --cooldown-ms 100 --csv "$OUT/peers_attention.csv" --tilec-csv "$OUT/attention.csv" > "$OUT/table_attention.txt" 2>&1
  fi
fi

step "summary (GPU tests rc=$tests_rc)"
grep -E "^GPU tests:|^skipped" "$OUT/gpu_tests.log"
python3 tests/gpu/table.py "$OUT/bench.csv" "$OUT/peers.csv"
if [ -f "$OUT/table_layer.txt" ]; then tail -5 "$OUT/table_layer.txt"; fi
if [ -f "$OUT/table_attention.txt" ]; then tail -4 "$OUT/table_attention.txt"; fi
