#!/usr/bin/env bash
# Thirty-fifth session, run a: the kv caches updated in place
# (update_slice: the layer writes its new keys and values into the caches
# at past, where it copied both whole caches with concat before): the GPU
# tests of the runtime, the layer, slices and scatters; the layer in place
# against concat (tilec-bench --kv-append), A B A B; beside its peers (also
# in place now), caches of more rows than filled among them (x8192: the
# causal mask's past); the decode layer kernel by kernel under Nsight
# Compute (10 kernels: RoPE of k stores k and v into the caches).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
snap() { ( cd "$OUT" && tar czf /tmp/snap.tgz --exclude=run.tgz . && mv /tmp/snap.tgz run.tgz ); }
step "GPU tests: runtime (updates in place), the decoder layer, slices, scatters"
TILEC_TESTS_TIMEOUT=120 run_gpu_tests 'GpuRuntimeTest.*:DecoderLayer.*:GpuSliceTest.*:Scatter.*'
snap
step "decoder layer: caches in place against concat, A B A B (us)"
LAYERS=1x4096x4096,16x4096x512,64x4096x512,1x4096x16384
for pass in 1 2; do
  for v in inplace concat; do
    o=""; [ $v = concat ] && o="--kv-append=concat"
    timeout 60 "$B/bin/tilec-bench" --ops= --layers=$LAYERS --cooldown-ms=200 $o \
      --layer-csv="$OUT/layer_${v}_$pass.csv" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/$v /"
  done
done
snap
step "decoder layer beside its peers (caches in place in both)"
LAYERS2=512x4096x0,64x4096x512,16x4096x512,1x4096x4096,1x4096x4096x8192,1x4096x16384
timeout 60 "$B/bin/tilec-bench" --ops= --layers=$LAYERS2 --cooldown-ms=200 --layer-csv="$OUT/layer.csv" 2>&1 | grep -E "^decoder_layer|error"
timeout 280 python3 tests/gpu/peers_layer.py --layers=$LAYERS2 --cooldown-ms 200 --csv "$OUT/peers_layer.csv" \
  --tilec-csv "$OUT/layer.csv" 2>&1 | tail -n 7
snap
if [ $SECONDS -lt 480 ]; then
step "decode layer (1 token after 4096) kernel by kernel (ncu, real clocks, cold caches)"
timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
  -k regex:decoder_layer_kernel --launch-count 10 --csv \
  "$B/bin/tilec-bench" --ops= --layers=1x4096x4096 > "$OUT/ncu_layer_decode.csv" 2>&1
python3 tests/gpu/ncu_table.py "$OUT/ncu_layer_decode.csv"
fi
pack_out
