#!/usr/bin/env bash
# Written in the forty-second session for a second call on an H200: the
# 64 and 128 MB bf16 row ops (the large shapes under 90% of copy there)
# with schedules that hold fewer registers a thread, so more CTAs an SM
# (rms_norm 64 registers: 8 CTAs of 128; layer_norm 79: 6), and without
# dependent launch (what it buys at these sizes), A B, two passes, into
# $OUT/ab/ (one archive):
#   rewiden=true        a bf16 row kept packed across the reduction
#                       (rms_norm 48 registers, layer_norm 80)
#   sink-loads=true     the weights loaded past the reduction
#                       (rms_norm 54, layer_norm 64)
#   both
#   dependent-launch=false
set -u
cd "$(dirname "$0")/../../.."
source tests/gpu/device-setup.sh
find "$OUT" -mindepth 1 -delete 2>/dev/null
TILEC_AB_TIMEOUT=90
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader |
  tee "$OUT/gpu.txt"
S=4096x4096,4096x8192
for pass in 1 2; do
  for o in "" rewiden=true sink-loads=true "rewiden=true sink-loads=true" \
    dependent-launch=false; do
    t=$(echo "${o:-default}" | tr ' =' '_-')
    ab_bench "${o:-default}" "$OUT/ab_${pass}_$t.csv" --ops=rms_norm,layer_norm,softmax,rope \
      --dtypes=bf16 --shapes=$S --schedule="$o"
  done
done | tee "$OUT/ab.txt"
python3 - "$OUT" <<'PY'
import csv, glob, os, sys, collections
out = sys.argv[1]
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(os.path.join(out, "ab_*.csv"))):
    _, p, v = os.path.basename(f)[:-4].split("_", 2)
    for r in csv.DictReader(open(f)):
        rows[(r["op"], r["rows"] + "x" + r["cols"])].setdefault(v, []).append(float(r["us"]))
vs = sorted({v for d in rows.values() for v in d}, key=lambda v: (v != "default", v))
print("op shape " + " | ".join(vs))
for k, d in sorted(rows.items()):
    print(k[0], k[1], " | ".join(" / ".join("%.2f" % x for x in d.get(v, [])) for v in vs))
PY
pack_out
