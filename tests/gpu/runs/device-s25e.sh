#!/usr/bin/env bash
# Twenty-fifth session's leftover budget (~120 s): flash attention at
# decode, where three kernels still win up to ~2000 keys (run s25b): the
# key split and the step, against the default (splits filling the SMs,
# 64 keys a step, 2 stages).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
A=8x4x1028x128,8x4x2052x128,8x64x1040x128,8x64x528x128,8x4x4100x128
for v in dflt split4 split2 split1 bn32 st3; do
  case $v in
    dflt) o="";; split4) o="attention-split=4";; split2) o="attention-split=2";;
    split1) o="attention-split=1";; bn32) o="attention-block-n=32";; st3) o="attention-stages=3";;
  esac
  timeout 40 "$B/bin/tilec-bench" --ops= --attention=$A --cooldown-ms=100 ${o:+--schedule="$o"} --attention-csv="$OUT/att_$v.csv" 2>&1 | grep -E "^attention|error" | sed "s/^/$v /"
done
pack_out
