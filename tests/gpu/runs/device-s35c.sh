#!/usr/bin/env bash
# Thirty-fifth session, run c (short, for the little device time the
# refused starts left): the GPU tests of the updates in place and the
# layer (capacities among them); decode and 16 tokens with the caches in
# place against concat, A B A B; the decode kernels under Nsight Compute.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
snap() { ( cd "$OUT" && tar czf /tmp/snap.tgz --exclude=run.tgz . && mv /tmp/snap.tgz run.tgz ); }
step "GPU tests: updates in place, the decoder layer"
TILEC_TESTS_TIMEOUT=100 run_gpu_tests 'GpuRuntimeTest.UpdatesInPlace*:DecoderLayer.*'
snap
step "decoder layer: caches in place against concat, A B A B (us)"
LAYERS=1x4096x4096,16x4096x512
for pass in 1 2; do
  for v in inplace concat; do
    o=""; [ $v = concat ] && o="--kv-append=concat"
    timeout 40 "$B/bin/tilec-bench" --ops= --layers=$LAYERS --cooldown-ms=100 $o \
      --layer-csv="$OUT/layer_${v}_$pass.csv" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/$v /"
  done
done
timeout 30 "$B/bin/tilec-bench" --ops= --layers=1x4096x4096x8192 --cooldown-ms=100 \
  --layer-csv="$OUT/layer_capacity.csv" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/capacity /"
snap
if [ $SECONDS -lt 230 ]; then
step "decode layer (1 token after 4096) kernel by kernel (ncu, real clocks, cold caches)"
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
  -k regex:decoder_layer_kernel --launch-count 10 --csv \
  "$B/bin/tilec-bench" --ops= --layers=1x4096x4096 > "$OUT/ncu_layer_decode.csv" 2>&1
python3 tests/gpu/ncu_table.py "$OUT/ncu_layer_decode.csv"
fi
pack_out
