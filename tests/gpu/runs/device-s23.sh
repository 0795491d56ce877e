#!/usr/bin/env bash
# Twenty-third session's run (written without a device; ~300 s): flash
# attention's timings (its GPU tests are in device-s22b.sh).
# - the decoder layer with fuse-attention (one flash kernel, keys split
#   over CTAs at decode) beside the three-kernel layer: 1 and 16 tokens
#   after 512, a prefill of 512, 1 token after 4096;
# - attention alone (tilec-bench --attention: three kernels and flash, in
#   one run) beside PyTorch's SDPA, the written-out math in eager, and
#   torch.compile of it (peers_attention.py): decode-like (8 kv heads,
#   64 and 4 grouped query rows over 528-4112 keys) and prefill (32 heads,
#   512 and 2048 tokens, no mask);
# - the flash kernel's SASS summary (spills, registers).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
L=1x4096x512,16x4096x512,512x4096x0,1x4096x4096
step "decoder layer: three attention kernels, then flash attention"
timeout 120 "$B/bin/tilec-bench" --ops= --layers=$L --cooldown-ms=200 --layer-csv="$OUT/layer.csv" 2>&1 | grep -E "^decoder_layer|error"
timeout 120 "$B/bin/tilec-bench" --ops= --fuse-attention --layers=$L --cooldown-ms=200 --layer-csv="$OUT/layer_flash.csv" 2>&1 | grep -E "^decoder_layer|error"
step "attention alone: three kernels against flash attention, beside SDPA, eager and torch.compile"
A=8x64x528x128,8x4x4100x128,8x64x4112x128,32x512x512x128,32x2048x2048x128
timeout 120 "$B/bin/tilec-bench" --ops= --attention=$A --cooldown-ms=200 --attention-csv="$OUT/attention.csv" 2>&1 | grep -E "^attention|error"
timeout 180 python3 tests/gpu/peers_attention.py --attention=$A --cooldown-ms 200 --csv "$OUT/peers_attention.csv" --tilec-csv "$OUT/attention.csv" 2>&1 | tail -8 | tee "$OUT/table_attention.txt"
step "the flash kernel's SASS"
"$B/bin/tilec" --fuse-attention --rows=16 --cols=4096 --k=512 -o "$OUT/layer_flash.ptx" decoder_layer
sass_summary layer_flash | tee "$OUT/sass_flash.txt"
pack_out
