// RUN: tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a" %s | FileCheck %s
// RUN: tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-block-m=128" %s | FileCheck %s --check-prefix=W128
// RUN: tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-wgmma=2" %s | FileCheck %s --check-prefix=AHEAD
// RUN: tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_80" %s | FileCheck %s --check-prefix=SYNC
// RUN: tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-wgmma=0" %s | FileCheck %s --check-prefix=SYNC
// RUN: tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-block-n=32" %s | FileCheck %s --check-prefix=N32
// RUN: tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-tma=1" %s | FileCheck %s
// RUN: tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-tma=0" %s | FileCheck %s --check-prefix=CPASYNC
// RUN: tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-split=1" %s | FileCheck %s --check-prefix=TMA
// RUN: tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-split=1 attention-pingpong=0 attention-p-regs=0" %s | FileCheck %s --check-prefix=PLAIN
// RUN: tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-split=1 attention-pingpong=0" %s | FileCheck %s --check-prefix=PREGS
// RUN: tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-tma=1 attention-split=1 attention-block-n=64" %s | FileCheck %s --check-prefix=TMA64
// RUN: tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-tma=0 attention-split=1" %s | FileCheck %s --check-prefix=NOTMA
// RUN: not tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-tma=2" %s 2>&1 | FileCheck %s --check-prefix=BADTMA
// RUN: tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-split=1 attention-pingpong=1 attention-p-regs=0" %s | FileCheck %s --check-prefix=TURNS
// RUN: tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-tma=0 attention-split=1 attention-pingpong=1" %s | FileCheck %s --check-prefix=NOTMA
// RUN: not tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-pingpong=2" %s 2>&1 | FileCheck %s --check-prefix=BADTURNS
// RUN: tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-split=1 attention-persistent=1" %s | FileCheck %s --check-prefix=PERSIST
// RUN: not tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-persistent=3" %s 2>&1 | FileCheck %s --check-prefix=BADPERSIST
// RUN: tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-all-partials=1" %s | FileCheck %s --check-prefix=ALLPARTS
// RUN: not tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-all-partials=2" %s 2>&1 | FileCheck %s --check-prefix=BADPARTS
// RUN: not tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-wgmma=2 attention-block-n=128" %s 2>&1 | FileCheck %s --check-prefix=AHEAD128
// RUN: not tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-wgmma=3" %s 2>&1 | FileCheck %s --check-prefix=BAD

// The Hopper flash kernel's schedule (attention-wgmma=1, the default on
// sm_90a) where the keys are split (8 tiles of 64 rows): TMA copies from a
// producer warpgroup to one consumer of 64 query rows, 128 keys a step (2
// blocks: 2 ways), 3 stages of k and v (192 KB) beside q (16 KB).
// CHECK-LABEL: func.func @attention_kernel0
//  CHECK-SAME:   tile.schedule = {attention = 1 : i64, block_m = 64 : i64, block_n = 128 : i64, grid = 16 : i64, group_m = 1 : i64, p_regs = 1 : i64, shared_bytes = 214080 : i64, split_k = 2 : i64, stages = 3 : i64, threads = 256 : i64, tma = 1 : i64, unflushed_exps = 1 : i64, warps_m = 4 : i64, wgmma = 1 : i64, workspace_bytes = 557312 : i64}
// Without TMA (the cp.async kernel): one warpgroup, 64 keys a step, shared
// memory for q (16 KB), two stages of k and v blocks (64 KB), P's bf16
// tile (8 KB) and 1 KB to align the panels; the split of the key blocks as
// for mma.sync (4 ways).
// CPASYNC-LABEL: func.func @attention_kernel0
//  CPASYNC-SAME:   tile.schedule = {attention = 1 : i64, block_m = 64 : i64, block_n = 64 : i64, grid = 32 : i64, group_m = 1 : i64, shared_bytes = 91136 : i64, split_k = 4 : i64, stages = 2 : i64, threads = 128 : i64, warps_m = 4 : i64, wgmma = 1 : i64, workspace_bytes = 1114368 : i64}
// 128 rows a CTA: two warpgroups (P's tile each).
// W128-LABEL: func.func @attention_kernel0
//  W128-SAME:   tile.schedule = {attention = 1 : i64, block_m = 128 : i64, block_n = 64 : i64, grid = 16 : i64, group_m = 1 : i64, shared_bytes = 115712 : i64, split_k = 4 : i64, stages = 2 : i64, threads = 256 : i64, warps_m = 8 : i64, wgmma = 1 : i64, workspace_bytes = 1114368 : i64}
// The next block's S issued before this one's softmax:
// AHEAD-LABEL: func.func @attention_kernel0
//  AHEAD-SAME:   wgmma = 2 : i64
// No wgmma before sm_90a or when off: the mma.sync kernel's schedule.
// SYNC-LABEL: func.func @attention_kernel0
//  SYNC-SAME:   tile.schedule = {attention = 1 : i64, block_m = 64 : i64, block_n = 64 : i64, grid = 32 : i64, group_m = 1 : i64, shared_bytes = 81920 : i64, split_k = 4 : i64, stages = 2 : i64, threads = 128 : i64, warps_m = 4 : i64, workspace_bytes = 1114368 : i64}
// Nor for keys a step that are not whole 128-byte rows (32).
// N32-LABEL: func.func @attention_kernel0
//  N32-SAME:   tile.schedule = {attention = 1 : i64, block_m = 64 : i64, block_n = 32 : i64
//   N32-NOT:   wgmma
// BAD: attention-wgmma must be 0, 1 or 2, got 3
// TMA copies (attention-tma; by default at head dim 128) where the keys
// are not split: 128 rows a CTA (two consumer warpgroups), 128 keys a step,
// and a producer warpgroup (384 threads, 168 registers a thread at
// launch); by default the consumers take turns (pingpong), P v takes P
// from registers (p_regs: no P tile) and runs under the next block's
// softmax (overlap) with 3 stages: q 32 KB, 3 x 64 KB of k and v, 1 KB
// of alignment and 64 bytes of mbarriers (q's full, 3 full, 3 empty, q's
// empty); tensor
// maps of q's rows (boxes 64 x 64), k and v (boxes of 128 keys x 64
// columns). Where the keys split (4 tiles: the default RUN line, and
// attention-tma=1 on the line after it), the cp.async kernel's schedule.
// TMA-LABEL: func.func @attention_kernel0
//  TMA-SAME:   tile.max_registers = 168
//  TMA-SAME:   tile.schedule = {attention = 1 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 4 : i64, group_m = 1 : i64, overlap = 1 : i64, p_regs = 1 : i64, pingpong = 1 : i64, shared_bytes = 230464 : i64, stages = 3 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, wgmma = 1 : i64}
//  TMA-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 64, 64>, dims = array<i64: 512, 128>}, {arg = 1 : i64, box = array<i64: 1, 128, 64>, dims = array<i64: 2, 256, 128>}, {arg = 2 : i64, box = array<i64: 1, 128, 64>, dims = array<i64: 2, 256, 128>}]
// With none of the three: 2 stages, P's bf16 tile a consumer (2 x 16 KB),
// 48 bytes of mbarriers.
// PLAIN-LABEL: func.func @attention_kernel0
//  PLAIN-SAME:   tile.schedule = {attention = 1 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 4 : i64, group_m = 1 : i64, shared_bytes = 197680 : i64, stages = 2 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, wgmma = 1 : i64}
// Without the turns, no overlap by default (measured slower alone): P from
// registers, 2 stages.
// PREGS-LABEL: func.func @attention_kernel0
//  PREGS-SAME:   tile.schedule = {attention = 1 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 4 : i64, group_m = 1 : i64, p_regs = 1 : i64, shared_bytes = 164912 : i64, stages = 2 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, wgmma = 1 : i64}
// 64 keys a step when asked for:
// TMA64-LABEL: func.func @attention_kernel0
//  TMA64-SAME:   tile.schedule = {attention = 1 : i64, block_m = 128 : i64, block_n = 64 : i64, grid = 4 : i64, group_m = 1 : i64, overlap = 1 : i64, p_regs = 1 : i64, pingpong = 1 : i64, shared_bytes = 132160 : i64, stages = 3 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, wgmma = 1 : i64}
//  TMA64-SAME:   box = array<i64: 1, 64, 64>
// Without TMA copies, the cp.async kernel (64 rows a CTA).
// NOTMA-LABEL: func.func @attention_kernel0
//  NOTMA-SAME:   tile.schedule = {attention = 1 : i64, block_m = 64 : i64, block_n = 64 : i64, grid = 8 : i64, group_m = 1 : i64, shared_bytes = 91136 : i64, stages = 2 : i64, threads = 128 : i64, warps_m = 4 : i64, wgmma = 1 : i64}
// BADTMA: attention-tma must be -1, 0 or 1, got 2

// Turns alone (attention-pingpong=1 attention-p-regs=0): the TMA kernel's
// two consumers take turns issuing S (schedule key pingpong); the cp.async kernel (one consumer, 64
// rows: the NOTMA line above with it asked for) has none.
// TURNS-LABEL: func.func @attention_kernel0
//  TURNS-SAME:   tile.schedule = {attention = 1 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 4 : i64, group_m = 1 : i64, pingpong = 1 : i64, shared_bytes = 197680 : i64, stages = 2 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, wgmma = 1 : i64}
// BADTURNS: attention-pingpong must be -1, 0 or 1, got 2
// attention-persistent=1: persistent CTAs even for 4 tiles (by default
// only past 132: below, @wide and @causal_wide), the TMA kernel otherwise
// the same.
// PERSIST-LABEL: func.func @attention_kernel0
//  PERSIST-SAME:   tile.schedule = {attention = 1 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 4 : i64, group_m = 1 : i64, overlap = 1 : i64, p_regs = 1 : i64, persistent = 1 : i64, pingpong = 1 : i64, shared_bytes = 230464 : i64
// BADPERSIST: attention-persistent must be -1, 0 or 1, got 3
// The split keys' old hand-off (every row's partials; A/B runs) is a key
// of the schedule; 0 or 1 only.
// ALLPARTS-LABEL: func.func @attention_kernel0
//  ALLPARTS-SAME:   all_partials = 1 : i64, {{.*}}split_k = 2 : i64
// BADPARTS: attention-all-partials must be 0 or 1, got 2
// attention-wgmma=2 holds two blocks' scores: 128 keys and 128 columns do
// not fit a thread's registers (ptxas spilled 24 bytes).
// AHEAD128: 128 keys a step and 128 output columns hold more accumulators than a thread's registers (keys a step plus columns at most 192)
func.func @attention(%q: tensor<2x256x128xbf16>, %k: tensor<2x256x128xbf16>, %v: tensor<2x256x128xbf16>) -> tensor<2x256x128xbf16> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<2x256x128xbf16>, tensor<2x256x128xbf16>) -> tensor<2x256x256xf32>
  %c = graph.constant 0.088 : tensor<f32>
  %cb = graph.broadcast %c : (tensor<f32>) -> tensor<2x256x256xf32>
  %ss = graph.mul %s, %cb : (tensor<2x256x256xf32>, tensor<2x256x256xf32>) -> tensor<2x256x256xf32>
  %mx = graph.reduce_max %ss {axis = 2 : i64} : (tensor<2x256x256xf32>) -> tensor<2x256x1xf32>
  %mxb = graph.broadcast %mx : (tensor<2x256x1xf32>) -> tensor<2x256x256xf32>
  %d = graph.sub %ss, %mxb : (tensor<2x256x256xf32>, tensor<2x256x256xf32>) -> tensor<2x256x256xf32>
  %e = graph.exp %d : (tensor<2x256x256xf32>) -> tensor<2x256x256xf32>
  %l = graph.reduce_sum %e {axis = 2 : i64} : (tensor<2x256x256xf32>) -> tensor<2x256x1xf32>
  %lb = graph.broadcast %l : (tensor<2x256x1xf32>) -> tensor<2x256x256xf32>
  %p = graph.div %e, %lb : (tensor<2x256x256xf32>, tensor<2x256x256xf32>) -> tensor<2x256x256xf32>
  %p16 = graph.cast %p : (tensor<2x256x256xf32>) -> tensor<2x256x256xbf16>
  %o = graph.matmul %p16, %v : (tensor<2x256x256xbf16>, tensor<2x256x128xbf16>) -> tensor<2x256x128xbf16>
  return %o : tensor<2x256x128xbf16>
}

// A causal mask: the row blocks' work grows with their rows, so by default
// a CTA a tile (heaviest first), not persistent CTAs.
// TMA-LABEL: func.func @causal_kernel0
//  TMA-SAME:   tile.schedule = {attention = 1 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 4 : i64, group_m = 1 : i64, overlap = 1 : i64, p_regs = 1 : i64, pingpong = 1 : i64, shared_bytes = 230464 : i64
func.func @causal(%q: tensor<2x256x128xbf16>, %k: tensor<2x256x128xbf16>, %v: tensor<2x256x128xbf16>) -> tensor<2x256x128xbf16> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<2x256x128xbf16>, tensor<2x256x128xbf16>) -> tensor<2x256x256xf32>
  %c = graph.constant 0.088 : tensor<f32>
  %cb = graph.broadcast %c : (tensor<f32>) -> tensor<2x256x256xf32>
  %ss = graph.mul %s, %cb : (tensor<2x256x256xf32>, tensor<2x256x256xf32>) -> tensor<2x256x256xf32>
  %cm = graph.causal_mask {period = 256 : i64} : tensor<2x256x256xf32>
  %sm = graph.add %ss, %cm : (tensor<2x256x256xf32>, tensor<2x256x256xf32>) -> tensor<2x256x256xf32>
  %mx = graph.reduce_max %sm {axis = 2 : i64} : (tensor<2x256x256xf32>) -> tensor<2x256x1xf32>
  %mxb = graph.broadcast %mx : (tensor<2x256x1xf32>) -> tensor<2x256x256xf32>
  %d = graph.sub %sm, %mxb : (tensor<2x256x256xf32>, tensor<2x256x256xf32>) -> tensor<2x256x256xf32>
  %e = graph.exp %d : (tensor<2x256x256xf32>) -> tensor<2x256x256xf32>
  %l = graph.reduce_sum %e {axis = 2 : i64} : (tensor<2x256x256xf32>) -> tensor<2x256x1xf32>
  %lb = graph.broadcast %l : (tensor<2x256x1xf32>) -> tensor<2x256x256xf32>
  %p = graph.div %e, %lb : (tensor<2x256x256xf32>, tensor<2x256x256xf32>) -> tensor<2x256x256xf32>
  %p16 = graph.cast %p : (tensor<2x256x256xf32>) -> tensor<2x256x256xbf16>
  %o = graph.matmul %p16, %v : (tensor<2x256x256xbf16>, tensor<2x256x128xbf16>) -> tensor<2x256x128xbf16>
  return %o : tensor<2x256x128xbf16>
}

// More tiles (136) than the H200's SMs: persistent CTAs by default (no
// causal mask: tiles of equal work).
// CHECK-LABEL: func.func @wide_kernel0
//  CHECK-SAME:   tile.schedule = {attention = 1 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 136 : i64, group_m = 1 : i64, overlap = 1 : i64, p_regs = 1 : i64, persistent = 1 : i64, pingpong = 1 : i64
func.func @wide(%q: tensor<34x512x128xbf16>, %k: tensor<34x512x128xbf16>, %v: tensor<34x512x128xbf16>) -> tensor<34x512x128xbf16> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<34x512x128xbf16>, tensor<34x512x128xbf16>) -> tensor<34x512x512xf32>
  %mx = graph.reduce_max %s {axis = 2 : i64} : (tensor<34x512x512xf32>) -> tensor<34x512x1xf32>
  %mxb = graph.broadcast %mx : (tensor<34x512x1xf32>) -> tensor<34x512x512xf32>
  %d = graph.sub %s, %mxb : (tensor<34x512x512xf32>, tensor<34x512x512xf32>) -> tensor<34x512x512xf32>
  %e = graph.exp %d : (tensor<34x512x512xf32>) -> tensor<34x512x512xf32>
  %l = graph.reduce_sum %e {axis = 2 : i64} : (tensor<34x512x512xf32>) -> tensor<34x512x1xf32>
  %lb = graph.broadcast %l : (tensor<34x512x1xf32>) -> tensor<34x512x512xf32>
  %p = graph.div %e, %lb : (tensor<34x512x512xf32>, tensor<34x512x512xf32>) -> tensor<34x512x512xf32>
  %p16 = graph.cast %p : (tensor<34x512x512xf32>) -> tensor<34x512x512xbf16>
  %o = graph.matmul %p16, %v : (tensor<34x512x512xbf16>, tensor<34x512x128xbf16>) -> tensor<34x512x128xbf16>
  return %o : tensor<34x512x128xbf16>
}

// Causal, grouped rows (4 runs of 384 tokens a batch): the runs are whole
// row blocks, so the tiles go heaviest first (by their place in their
// run) and the CTAs are persistent by default; runs of 200 rows are not
// (a row block crosses into the next run: its tiles' work would not fall
// in order).
// CHECK-LABEL: func.func @grouped_kernel0
//  CHECK-SAME:   tile.schedule = {attention = 1 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 408 : i64, group_m = 1 : i64, overlap = 1 : i64, p_regs = 1 : i64, persistent = 1 : i64, pingpong = 1 : i64
// CHECK-LABEL: func.func @grouped200_kernel0
//  CHECK-SAME:   tile.schedule = {attention = 1 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 238 : i64, group_m = 1 : i64, overlap = 1 : i64, p_regs = 1 : i64, pingpong = 1 : i64
func.func @grouped(%q: tensor<34x1536x128xbf16>, %k: tensor<34x384x128xbf16>, %v: tensor<34x384x128xbf16>) -> tensor<34x1536x128xbf16> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<34x1536x128xbf16>, tensor<34x384x128xbf16>) -> tensor<34x1536x384xf32>
  %cm = graph.causal_mask {period = 384 : i64} : tensor<34x1536x384xf32>
  %sm = graph.add %s, %cm : (tensor<34x1536x384xf32>, tensor<34x1536x384xf32>) -> tensor<34x1536x384xf32>
  %mx = graph.reduce_max %sm {axis = 2 : i64} : (tensor<34x1536x384xf32>) -> tensor<34x1536x1xf32>
  %mxb = graph.broadcast %mx : (tensor<34x1536x1xf32>) -> tensor<34x1536x384xf32>
  %d = graph.sub %sm, %mxb : (tensor<34x1536x384xf32>, tensor<34x1536x384xf32>) -> tensor<34x1536x384xf32>
  %e = graph.exp %d : (tensor<34x1536x384xf32>) -> tensor<34x1536x384xf32>
  %l = graph.reduce_sum %e {axis = 2 : i64} : (tensor<34x1536x384xf32>) -> tensor<34x1536x1xf32>
  %lb = graph.broadcast %l : (tensor<34x1536x1xf32>) -> tensor<34x1536x384xf32>
  %p = graph.div %e, %lb : (tensor<34x1536x384xf32>, tensor<34x1536x384xf32>) -> tensor<34x1536x384xf32>
  %p16 = graph.cast %p : (tensor<34x1536x384xf32>) -> tensor<34x1536x384xbf16>
  %o = graph.matmul %p16, %v : (tensor<34x1536x384xbf16>, tensor<34x384x128xbf16>) -> tensor<34x1536x128xbf16>
  return %o : tensor<34x1536x128xbf16>
}
func.func @grouped200(%q: tensor<34x800x128xbf16>, %k: tensor<34x200x128xbf16>, %v: tensor<34x200x128xbf16>) -> tensor<34x800x128xbf16> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<34x800x128xbf16>, tensor<34x200x128xbf16>) -> tensor<34x800x200xf32>
  %cm = graph.causal_mask {period = 200 : i64} : tensor<34x800x200xf32>
  %sm = graph.add %s, %cm : (tensor<34x800x200xf32>, tensor<34x800x200xf32>) -> tensor<34x800x200xf32>
  %mx = graph.reduce_max %sm {axis = 2 : i64} : (tensor<34x800x200xf32>) -> tensor<34x800x1xf32>
  %mxb = graph.broadcast %mx : (tensor<34x800x1xf32>) -> tensor<34x800x200xf32>
  %d = graph.sub %sm, %mxb : (tensor<34x800x200xf32>, tensor<34x800x200xf32>) -> tensor<34x800x200xf32>
  %e = graph.exp %d : (tensor<34x800x200xf32>) -> tensor<34x800x200xf32>
  %l = graph.reduce_sum %e {axis = 2 : i64} : (tensor<34x800x200xf32>) -> tensor<34x800x1xf32>
  %lb = graph.broadcast %l : (tensor<34x800x1xf32>) -> tensor<34x800x200xf32>
  %p = graph.div %e, %lb : (tensor<34x800x200xf32>, tensor<34x800x200xf32>) -> tensor<34x800x200xf32>
  %p16 = graph.cast %p : (tensor<34x800x200xf32>) -> tensor<34x800x200xbf16>
  %o = graph.matmul %p16, %v : (tensor<34x800x200xbf16>, tensor<34x200x128xbf16>) -> tensor<34x800x128xbf16>
  return %o : tensor<34x800x128xbf16>
}
