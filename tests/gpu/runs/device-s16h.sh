#!/usr/bin/env bash
# Sixteenth session, eighth run: softmax [16, 131072] (f32 takes 8.7 us
# against issue 3's 7 us bar) in clusters of 16, the non-portable size
# (GpuScheduleTest.NonPortableClustersOfSixteen passed in run s16a), and
# of 12 and 8, beside the default (clusters of 6 CTAs of 512), two passes.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
n=0
bench() { n=$((n + 1)); timeout 60 "$B/bin/tilec-bench" --ops=softmax --dtypes=f32,bf16 --shapes=16x131072 --csv="$OUT/v$n.csv" ${1:+--schedule="$1"} 2>&1 | grep -E "^softmax"; }
for pass in 1 2; do
  for s in "" "row-cluster=16" "row-cluster=16 max-threads-per-block=256" "row-cluster=12" \
           "row-cluster=16 max-threads-per-block=128" "row-cluster=8"; do
    step "${s:-default} ($pass)"; bench "$s"
  done
done
pack_out
