#!/usr/bin/env bash
# Thirteenth session, second run: the probe tests/gpu/probes/ln_cache.cu
# (a hand-written layer_norm / rms_norm shaped like tilec's schedule, with
# the row loaded plain, past L1's allocation, evict-first, or through the
# read-only path), to see whether the rows' L1 allocation costs the
# weights their L1 hits before building a way around it into tilec.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
step "probe: row loads and L1"
nvcc -arch=sm_90a -O3 -Xptxas -v -o /tmp/ln_cache tests/gpu/probes/ln_cache.cu 2>&1 | grep -E "spill" | sort | uniq -c
cuobjdump --dump-sass /tmp/ln_cache | grep -oE "LDG\.E[.A-Z0-9_]*" | sort | uniq -c
for rep in 1 2; do /tmp/ln_cache | tee -a "$OUT/probe.txt"; done
step "tilec beside it"
"$B/bin/tilec-bench" --ops=layer_norm,rms_norm --dtypes=bf16 --shapes=4096x8192,8192x4096,16384x4096 2>&1 | tail -7 | tee "$OUT/bench.txt"
pack_out
