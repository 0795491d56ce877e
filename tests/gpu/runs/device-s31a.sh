#!/usr/bin/env bash
# Thirty-first session, run a: decode attention (few query rows a kv head)
# against its byte floor. Small grids (8 kv heads: keys split over CTAs):
# the batch's partials only (default) against every row's (the old
# hand-off), split counts, stages, 128 keys a step. Batched decode (32-256
# kv heads: TMA, no split, or 2-4 splits): 64 rows a CTA, cp.async, not
# persistent, 4 stages. The GPU tests of attention. Peers in run b.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
step "GPU tests: attention"
TILEC_TESTS_TIMEOUT=150 run_gpu_tests 'Attention.*'
SMALL=8x4x1028x128,8x4x4100x128,8x4x16388x128,8x64x4112x128,8x1x4100x128
for v in dflt allp sp4 sp8 sp32 sp64 st3 st4 bn128 dflt2; do
  case $v in dflt|dflt2) o="";; allp) o="attention-all-partials=1";;
    sp*) o="attention-split=${v#sp}";; st*) o="attention-stages=${v#st}";;
    bn128) o="attention-block-n=128";; esac
  timeout 60 "$B/bin/tilec-bench" --ops= --attention=$SMALL --cooldown-ms=50 ${o:+--schedule="$o"} --attention-csv="$OUT/small_$v.csv" 2>&1 | grep -E "^attention|error" | sed "s/^/$v /"
done
BIG=32x4x8196x128,64x4x4100x128,256x4x4100x128,128x1x4100x128,256x16x2064x128
for v in dflt bm64 tma0 pers0 st4 sp1 dflt2; do
  case $v in dflt|dflt2) o="";; bm64) o="attention-block-m=64";; tma0) o="attention-tma=0";;
    pers0) o="attention-persistent=0";; st4) o="attention-stages=4";; sp1) o="attention-split=1";; esac
  timeout 90 "$B/bin/tilec-bench" --ops= --attention=$BIG --cooldown-ms=50 ${o:+--schedule="$o"} --attention-csv="$OUT/big_$v.csv" 2>&1 | grep -E "^attention|error" | sed "s/^/$v /"
done
pack_out
