#!/usr/bin/env bash
# Runs on the GPU machine (device tool): unpacks the static bundle made by
# `./run.sh bundle`, runs every GPU test, the examples and the benchmarks
# (tilec, PyTorch eager, torch.compile), and prints a short table last.
# Logs and CSVs go to $OUT when set.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/tilec-out}
mkdir -p "$OUT"
B=$(mktemp -d)
tar -C "$B" -xJf .bundle/tilec-bundle.tar.xz || { echo "no bundle: run ./run.sh bundle first"; exit 1; }
export TILEC_CUDA_ROOT="$B" # libdevice ships in the bundle
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"

step() { printf '\n==== %s\n' "$*"; }

step "GPU tests (all shapes)"
( cd "$B" && timeout ${TILEC_TESTS_TIMEOUT:-300} ./bin/gpu_tests --gtest_brief=1 ) 2>&1 | tee "$OUT/gpu_tests.log" | tail -25
tests_rc=${PIPESTATUS[0]}

step "example"
( cd "$B" && ./bin/example_rmsnorm ) 2>&1 | tail -4

step "SASS: 16-byte loads"
for op in rms_norm softmax layer_norm; do
  "$B/bin/tilec" --emit=ptx "$op" -o "$B/$op.ptx" &&
    ptxas -arch=sm_90a "$B/$op.ptx" -o "$B/$op.cubin" &&
    echo "$op: $(cuobjdump --dump-sass "$B/$op.cubin" | grep -c 'LDG.E.128') LDG.E.128, $(cuobjdump --dump-sass "$B/$op.cubin" | grep -c 'STG.E.128') STG.E.128, $(cuobjdump --dump-sass "$B/$op.cubin" | grep -cE 'LDL|STL') local"
done 2>&1 | tee "$OUT/sass.txt"

step "tilec-bench"
timeout ${TILEC_BENCH_TIMEOUT:-150} "$B/bin/tilec-bench" --csv="$OUT/bench.csv" ${TILEC_BENCH_ARGS:-} 2>&1 | tee "$OUT/bench.txt"

step "peers (PyTorch eager, torch.compile)"
timeout ${TILEC_PEERS_TIMEOUT:-300} python3 tests/gpu/peers.py --csv "$OUT/peers.csv" ${TILEC_PEERS_ARGS:-} 2>&1 | tail -40 > "$OUT/peers.txt"
tail -5 "$OUT/peers.txt"

step "summary (GPU tests rc=$tests_rc)"
grep -E "PASSED|FAILED|SKIPPED" "$OUT/gpu_tests.log" | tail -8
python3 tests/gpu/table.py "$OUT/bench.csv" "$OUT/peers.csv"
