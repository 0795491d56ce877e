#!/usr/bin/env bash
# Written in the forty-second session for a call on whatever GPU comes:
#  1. GPU tests of the runtime and a few ops (Executable::run now reuses a
#     thread's argument and table buffers), into $OUT/gpu_tests.log;
#  2. the launch path A B: tilec-bench of 7b6c3e0 (.bundle/tilec-bench-old.xz,
#     run() allocating its tables and arguments each call) against this
#     build's, the launch floor and the 1- and 16-token shapes, three
#     passes each, interleaved, into $OUT/small_{old,new}_N.csv;
#  3. tests/gpu/runs/device-s42c.sh's probe and row-l2-prefetch-first A B,
#     into $OUT/c/.
set -u
cd "$(dirname "$0")/../../.."
source tests/gpu/device-setup.sh
begin_run
step "GPU tests: the runtime, schedules, ops"
TILEC_TESTS_TIMEOUT=150 run_gpu_tests 'GpuRuntimeTest.*:GpuScheduleTest.*:DependentLaunch.*:GemmEpilogue.*:Examples/GpuOpsTest.*rms_norm*:Examples/GpuOpsTest.*rope*'
step "launch path: old (7b6c3e0) and new tilec-bench, interleaved"
xz -dc .bundle/tilec-bench-old.xz > /tmp/tilec-bench-old && chmod +x /tmp/tilec-bench-old
for pass in 1 2 3; do
  for v in new old; do
    bin=$B/bin/tilec-bench; [ $v = old ] && bin=/tmp/tilec-bench-old
    timeout 60 "$bin" --csv="$OUT/small_${v}_$pass.csv" \
      --ops=rms_norm,add_rms_norm,layer_norm,softmax,silu_mul,elementwise_chain,rope \
      --dtypes=bf16 --shapes=1x4096,16x4096 2>&1 | grep -E "^launch" | sed "s/^/$v$pass /"
  done
done
python3 - "$OUT" <<'PY'
import csv, glob, os, sys, collections
out = sys.argv[1]
d = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(os.path.join(out, "small_*.csv"))):
    _, v, p = os.path.basename(f)[:-4].split("_")
    for r in csv.DictReader(open(f)):
        d[(r["op"], r["rows"] + "x" + r["cols"])][v].append((float(r["us"]), float(r["host_us"])))
print("op shape | new us (host) x3 | old us (host) x3")
for k, e in sorted(d.items()):
    print(k[0], k[1], "|", " ".join("%.2f(%.2f)" % x for x in e["new"]), "|",
          " ".join("%.2f(%.2f)" % x for x in e["old"]))
PY
pack_out
mkdir -p "$OUT/c"
OUT=$OUT/c bash tests/gpu/runs/device-s42c.sh 2>&1 | tail -12
