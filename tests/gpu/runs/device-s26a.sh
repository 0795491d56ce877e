#!/usr/bin/env bash
# Twenty-sixth session's first run (~420 s): the Hopper flash kernel
# (attention-wgmma=1: S and O += P v by wgmma, P through shared memory).
# - GPU tests: every attention test, the new wgmma one among them;
# - prefill and decode attention, the mma.sync flash kernel (default)
#   against wgmma at 128 rows a CTA (two warpgroups, one CTA an SM), 64
#   rows (one warpgroup, two CTAs an SM), and 3 stages, beside SDPA (4-D),
#   eager and torch.compile;
# - decode flash (s25e, not run then): the key split, the step, the stages.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
step "GPU tests"
TILEC_TESTS_TIMEOUT=150 run_gpu_tests 'Attention.*'
step "prefill attention: mma.sync flash (default) against wgmma variants"
A=32x128x128x128,32x512x512x128,32x2048x2048x128,8x2048x2048x128,32x1024x1024x64,8x64x4112x128,8x4x4100x128
for v in dflt w128 w64 w128s3 w64s3; do
  case $v in
    dflt) o="";; w128) o="attention-wgmma=1";; w64) o="attention-wgmma=1 attention-block-m=64";;
    w128s3) o="attention-wgmma=1 attention-stages=3";; w64s3) o="attention-wgmma=1 attention-block-m=64 attention-stages=3";;
  esac
  timeout 80 "$B/bin/tilec-bench" --ops= --attention=$A --cooldown-ms=100 ${o:+--schedule="$o"} --attention-csv="$OUT/att_$v.csv" 2>&1 | grep -E "^attention|error" | sed "s/^/$v /"
done
timeout 150 python3 tests/gpu/peers_attention.py --attention=$A --cooldown-ms 100 --csv "$OUT/peers_attention.csv" --tilec-csv "$OUT/att_w64.csv" 2>&1 | tail -10 | tee "$OUT/table_attention.txt"
step "decode flash: key split, step, stages (three kernels are the default there)"
D=8x4x1028x128,8x4x2052x128,8x64x1040x128,8x64x528x128
for v in dflt split4 split2 split1 bn32 st3; do
  case $v in
    dflt) o="";; split4) o="attention-split=4";; split2) o="attention-split=2";;
    split1) o="attention-split=1";; bn32) o="attention-block-n=32";; st3) o="attention-stages=3";;
  esac
  timeout 40 "$B/bin/tilec-bench" --ops= --attention=$D --cooldown-ms=100 ${o:+--schedule="$o"} --attention-csv="$OUT/dec_$v.csv" 2>&1 | grep -E "^attention|error" | sed "s/^/$v /"
done
pack_out
