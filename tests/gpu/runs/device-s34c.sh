#!/usr/bin/env bash
# Thirty-fourth session, run c (short: the session's last device time):
# GEMM clusters of two without the closing cluster barrier (a producer
# tail instead) and with a relaxed arrive at the start: the cluster GPU
# tests, and 512 x 1024 x 4096 in pairs against one CTA, A B A B.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
snap() { ( cd "$OUT" && tar czf /tmp/snap.tgz --exclude=run.tgz . && mv /tmp/snap.tgz run.tgz ); }
step "512 x 1024 x 4096 (and 128 x 4096 x 4096): one CTA against pairs, A B A B (us)"
KV=512x1024x4096,128x4096x4096
for pass in 1 2; do
  for v in dflt cl2; do
    o=""; [ $v = cl2 ] && o="gemm-cluster-m=2"
    timeout 40 "$B/bin/tilec-bench" --ops= --gemm=$KV --gemm-ops=matmul --cooldown-ms=50 ${o:+--schedule="$o"} \
      --gemm-csv="$OUT/mm_${v}_$pass.csv" 2>&1 | grep -E "^matmul|error" | sed "s/^/$v /"
  done
done
snap
step "GPU tests: clusters of two (ping-pong, two chains, TMA stores)"
TILEC_TESTS_TIMEOUT=120 run_gpu_tests 'GemmSchedules.PingPongWarpgroups:GemmSchedules.TwoChainsAWarpgroup:GemmSchedules.TmaStoreEpilogue'
pack_out
