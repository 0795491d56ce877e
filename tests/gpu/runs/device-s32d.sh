#!/usr/bin/env bash
# Thirty-second session, run d: the new defaults (GEMMs in one-CTA
# clusters, gemm-cluster-m=1; a GEMM epilogue's tail that only a row kernel
# reads moved into it, tilec-fuse{sink-tails}) on the device: the GEMM and
# layer GPU tests, the decoder layer A/B against the old defaults and each
# change alone, its kernels one by one at 512 tokens, and its peers.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "GPU tests: GEMMs, the decoder layer, the runtime"
TILEC_TESTS_TIMEOUT=240 run_gpu_tests 'Gemm*:DecoderLayer.*:GpuRuntimeTest.*:ProgramCache.*:Scatter.*'
LAYERS=512x4096x0,2048x4096x0,16x4096x512,1x4096x4096
for pass in 1 2; do
  for v in new old cl2 nosink; do
    s=""; f=""
    case $v in old) s="gemm-cluster-m=2"; f="sink-tails=false";; cl2) s="gemm-cluster-m=2";; nosink) f="sink-tails=false";; esac
    timeout 100 "$B/bin/tilec-bench" --ops= --layers=$LAYERS --cooldown-ms=200 ${s:+--schedule="$s"} ${f:+--fuse="$f"} --layer-csv="$OUT/layer_${v}_$pass.csv" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/$v /"
  done
done
step "decoder layer 512x4096x0 kernel by kernel (ncu, real clocks, ns)"
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum -k regex:decoder_layer_kernel --launch-count 12 --csv \
  "$B/bin/tilec-bench" --ops= --layers=512x4096x0 > "$OUT/ncu_layer512.csv" 2>&1
python3 - "$OUT/ncu_layer512.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; k = h.index("Kernel Name"); m = h.index("Metric Name"); v = h.index("Metric Value")
tot = 0
for r in rows[1:]:
    if r[m] == "gpu__time_duration.sum":
        ns = float(r[v].replace(",", "")); tot += ns
        print(f"{r[k][:40]:40s} {ns / 1e3:9.2f} us")
print(f"{'sum':40s} {tot / 1e3:9.2f} us")
PY
step "peers"
timeout 200 python3 tests/gpu/peers_layer.py --layers=$LAYERS --cooldown-ms 200 --csv "$OUT/peers_layer.csv" --tilec-csv "$OUT/layer_new_2.csv" 2>&1 | tail -n 6
pack_out
