#!/usr/bin/env bash
# Twenty-ninth session's second run: the new defaults (the consumers'
# turns, P from registers and the overlap in the TMA kernels, measured in
# run s29a) with the scores' scale folded into the softmax's fma
# (attention-fold-scale, default 1) beside the same kernel unfolded and
# the plain TMA kernel (none of the three); SDPA beside them; the decoder
# layer and its peers; Nsight Compute's sections for tilec's default
# kernel and SDPA's at 32 x 2048 x 2048 x 128, to place the remaining gap.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
step "GPU tests"
TILEC_TESTS_TIMEOUT=150 run_gpu_tests 'Attention.*:DecoderLayer.*'
step "attention: default, unfolded scale, plain TMA, 2 stages"
A=32x2048x2048x128c,32x2048x2048x128,8x4096x4096x128,8x4096x4096x128c,8x4096x4096x128c1024,32x512x512x128c,32x2048x2048x64
for v in dflt nofold plain st2 dflt2; do
  case $v in dflt|dflt2) o="";; nofold) o="attention-fold-scale=0";;
    plain) o="attention-pingpong=0 attention-p-regs=0";; st2) o="attention-stages=2";; esac
  timeout 60 "$B/bin/tilec-bench" --ops= --attention=$A --cooldown-ms=100 ${o:+--schedule="$o"} --attention-csv="$OUT/att_$v.csv" 2>&1 | grep -E "^attention_flash|error" | sed "s/^/$v /"
done
timeout 90 python3 tests/gpu/peers_attention.py --no-flex --attention=$A --cooldown-ms 100 --csv "$OUT/peers_attention.csv" --tilec-csv "$OUT/att_dflt.csv" 2>&1 | tee "$OUT/peers_attention.txt" | tail -9
step "decoder layer beside its peers"
L=512x4096x0,2048x4096x0,64x4096x4096
timeout 120 "$B/bin/tilec-bench" --ops= --layers=$L --cooldown-ms=200 --layer-csv="$OUT/layer.csv" 2>&1 | grep -E "^decoder_layer|error"
timeout 120 "$B/bin/tilec-bench" --ops= --layers=$L --cooldown-ms=200 --schedule="attention-pingpong=0 attention-p-regs=0" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/plain /"
timeout 110 python3 tests/gpu/peers_layer.py --layers=$L --cooldown-ms 200 --csv "$OUT/peers_layer.csv" --tilec-csv "$OUT/layer.csv" > "$OUT/table_layer.txt" 2>&1; tail -4 "$OUT/table_layer.txt"
step "Nsight Compute: tilec's default kernel and SDPA's, 32 x 2048 x 2048 x 128"
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section InstructionStats"
timeout 90 ncu --clock-control none $S --launch-skip 3 --launch-count 1 -k regex:attention_kernel \
  "$B/bin/tilec-bench" --ops= --attention=32x2048x2048x128 > "$OUT/ncu_tilec.txt" 2>&1
cat > /tmp/sdpa.py <<'PY'
import torch, torch.nn.functional as F
q, k, v = [torch.randn(1, 32, 2048, 128, device="cuda", dtype=torch.bfloat16) for _ in range(3)]
for _ in range(5):
    F.scaled_dot_product_attention(q, k, v)
torch.cuda.synchronize()
PY
timeout 90 ncu --clock-control none $S --launch-skip 2 --launch-count 1 -k "regex:[Ff]lash|fmha|sdpa|[Aa]ttn|[Aa]ttention|cudnn" \
  python3 /tmp/sdpa.py > "$OUT/ncu_sdpa.txt" 2>&1
for f in tilec sdpa; do
  echo "-- $f"; grep -E "^  [a-zA-Z_].*\(|Duration|Compute \(SM\) Throughput|Issue Slots Busy|Executed Ipc Active|Registers Per|Achieved Occupancy|Stall|Warp Cycles Per Issued|No Eligible|Memory Throughput" "$OUT/ncu_$f.txt" | head -24
done
pack_out
