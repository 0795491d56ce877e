// tilec's passes: fusion, tile lowering, scheduling, distribution to GPU.
#ifndef TILEC_PASSES
#define TILEC_PASSES

include "mlir/Pass/PassBase.td"

def FoldTransposes : Pass<"tilec-fold-transposes", "mlir::ModuleOp"> {
  let summary = "Fold the graph's transposes that need no kernel";
  let description = [{
    Before fusion: a transpose applied twice is its operand; a swap that
    keeps the order of the dims larger than 1 becomes a graph.reshape (a
    view); a swap of the last two dims feeding a matmul operand becomes
    that operand's transpose flag. The others are left to tilec-fuse:
    swaps of row dims (the last dim kept) are gathered by row kernels, and
    swaps of the last dim become kernels of strided rows.
  }];
  let dependentDialects = ["tilec::graph::GraphDialect"];
}

def FuseRowOps : Pass<"tilec-fuse", "mlir::ModuleOp"> {
  let summary = "Group graph operators into graph.fusion regions (one per kernel)";
  let description = [{
    Greedy producer-consumer fusion in topological order: an operator joins
    the fusion of its operands when every value of the merged group fits one
    row domain [rows..., C] (row tiles, per-row scalars from reductions along
    the last axis, vectors shared by all rows, scalars) and merging makes no
    cycle between fusions. Constants are cloned into each fusion that uses
    them. Each fusion records `domain` and `hbm_bytes_saved`.

    An attention (scores = q k^T with an elementwise epilogue, softmax
    over the keys, cast, probabilities @ v, epilogue) whose scores and
    probabilities nothing else reads may become one fusion marked
    `attention`: a flash-attention kernel keeps both on chip. `attention`
    says when: `true` always, `false` never (three kernels), `auto` (the
    default) by shape: where the query rows of one batch (grouped heads
    included) are at least 256, the keys at least 4096, or the keys at
    least 2048 over 64 rows or more. Elsewhere (decode over short caches)
    three kernels were measured faster (docs/perf.md).
  }];
  let options = [
    Option<"attention", "attention", "std::string", "\"auto\"",
           "Fuse attention's two products and its softmax into one kernel (flash "
           "attention; 16-bit q, k, v, head dim a multiple of 16 up to 128): "
           "auto (by shape, the default), true or false">,
    Option<"siblingGemmRows", "sibling-gemm-rows", "int64_t", "2048",
           "Two 16-bit GEMMs of one lhs and weights of one shape (k and v projections) "
           "become one kernel of two products up to this many rows">,
    Option<"sinkTails", "sink-tails", "bool", "true",
           "Move a GEMM epilogue's tail that only a row kernel reads into that kernel "
           "where it saves HBM bytes (false: the greedy plan's epilogue, for A/B runs)">,
  ];
  let dependentDialects = ["tilec::graph::GraphDialect"];
}

def LowerFusionToTile : Pass<"tilec-lower-fusion-to-tile", "mlir::ModuleOp"> {
  let summary = "Outline each graph.fusion into a tile kernel (func.func) and a tile.launch";
  let description = [{
    16-bit (f16, bf16) arithmetic is computed in f32. By default a value
    stays in f32 inside the kernel and is rounded to its dtype where it
    leaves the kernel (stores) or where the graph casts it explicitly, as
    XLA (allow excess precision) and TorchInductor do; `round-every-op`
    rounds after every op instead, as eager PyTorch does.
  }];
  let options = [
    Option<"roundEveryOp", "round-every-op", "bool", "false",
           "Round 16-bit results to their dtype after every op (eager semantics) "
           "instead of only at stores and explicit casts">,
    Option<"fastMath", "fast-math", "bool", "false",
           "Mark exp, log, tanh and divisions `afn`: they lower to the approximate "
           "hardware instructions (ex2/lg2/tanh/div.approx) instead of libdevice">,
  ];
  let dependentDialects = ["tilec::tile::TileDialect", "mlir::func::FuncDialect",
                           "mlir::arith::ArithDialect", "mlir::math::MathDialect",
                           "mlir::memref::MemRefDialect", "mlir::tensor::TensorDialect"];
}

def FormOnlineSoftmax : Pass<"tilec-form-online-softmax", "mlir::ModuleOp"> {
  let summary = "Fuse a row's max and its sum of exp(x - max) into one reduction (online softmax)";
  let description = [{
    In each row kernel, `m = tile.reduce_max(x)` and `s = tile.reduce_sum(
    exp(x - tile.splat(m)))` (exp or exp2) become `m, s =
    tile.reduce_max_sum_exp(x)`: one round of synchronisation instead of
    two, and one pass over a streamed row instead of two. Anything else (a
    max subtracted from another tile, exp of something else) is left alone.
    When the exp tile has other users (softmax's e / s), the pair also
    gives it, so rows in registers compute one exp an element.
    tilec-schedule-row-kernels runs it, after choosing the schedule, on
    rows whose reduction crosses warps, CTAs or column blocks, unless
    `online-softmax=false`.
  }];
}

def FormWelford : Pass<"tilec-form-welford", "mlir::ModuleOp"> {
  let summary = "Fuse a row's mean and its sum of squared deviations into one reduction (Chan/Welford pair)";
  let description = [{
    In each row kernel, `mean = tile.reduce_sum(x) / W` (W the tile's
    width) and `m2 = tile.reduce_sum(d * d)`, `d = x - tile.splat(mean)`,
    become `mean, m2 = tile.reduce_mean_m2(x)`: one round of
    synchronisation instead of two, and one pass over a streamed row
    instead of two (layer_norm). The pair is reduced from partial (count,
    mean, M2) triples, each thread's from its own elements in two exact
    passes, so large means with small variances stay accurate. Anything
    else (a sum used besides the mean, squares of another difference) is
    left alone. tilec-schedule-row-kernels runs it, after choosing the
    schedule, as its `welford` option says.
  }];
}

def FoldRowScalars : Pass<"tilec-fold-row-scalars", "mlir::ModuleOp"> {
  let summary = "Apply a row's scalars once: x / s as x * (1 / s), (x - m) * r and exp(x - m) as one FMA";
  let description = [{
    Under fast math, in each row kernel: `x / splat(s)` (with `afn`)
    becomes `x * splat(1 / s)` (div.approx already is a * rcp(b)), and,
    with `contract`, `(x - splat(m)) * splat(r)` becomes
    `x * splat(r) + splat(-(m * r))` and `exp(x - splat(m))` becomes
    `exp2(x * splat(log2 e) + splat(-(m * log2 e)))`: one FMA an element
    where there were two ops. Those two re-associate (an absolute error of
    about 2^-24 |m r|), so they apply only where everything depending on
    the result ends in an f16/bf16 conversion, unless `all`. With
    `into-exps`, likewise: `exp2(y) / splat(s)` becomes
    `exp2(y - splat(log2 s))` (merged into (c)'s offset where y is (c)'s),
    and an online-softmax pair whose subtraction contracts is marked
    tile.folded_shift (its exps taken as exp2(x L - m L)).
    tilec-schedule-row-kernels runs it as its `row-scalars` and
    `fold-into-exp` options say.
  }];
  let options = [
    Option<"all", "all", "bool", "false",
           "Re-associate (b) and (c) whatever the result's dtype (f32 results too)">,
    Option<"intoExps", "into-exps", "bool", "true",
           "Also fold a division by a row's scalar into the exp2 it divides, and mark "
           "online-softmax pairs tile.folded_shift">,
  ];
}

def ScheduleRowKernels : Pass<"tilec-schedule-row-kernels", "mlir::ModuleOp"> {
  let summary = "Choose vector width, threads per row and rows per CTA for each tile kernel";
  let description = [{
    Sets `tile.schedule = {vector_width, threads_per_row, rows_per_block,
    chunks, col_blocks, stream_blocks}` on each function marked `tile.kernel`,
    from the row length and the widest element type it moves (16-byte
    accesses where the row length allows). Rows with reductions that do not
    fit in registers get `stream_blocks` > 0: a multi-pass schedule. On
    sm_90a, few wide rows with reductions are split over a thread-block
    cluster: `cluster` = `col_blocks` CTAs a row, combining their partial
    reductions through distributed shared memory.
  }];
  let options = [
    Option<"maxThreadsPerBlock", "max-threads-per-block", "int64_t", "512",
           "Upper bound on threads per CTA (512 leaves 128 registers a thread for wide rows; at 512, rows with reductions that would keep 64 values a thread in registers take 1024)">,
    Option<"minThreadsPerBlock", "min-threads-per-block", "int64_t", "128",
           "CTAs smaller than this pack several rows">,
    Option<"fewRows", "few-rows", "int64_t", "0",
           "Kernels with at most this many rows spread each row over as many threads as possible (0: off; measured slower on the H200, see docs/perf.md)">,
    Option<"maxChunksPerThread", "max-chunks-per-thread", "int64_t", "16",
           "Longest row (in 16-byte vectors per thread) kept in registers; wider rows with reductions are streamed. Rows of 16-bit types keep a quarter of it (their f32 values take twice the registers per byte moved)">,
    Option<"rowChunks", "row-chunks", "int64_t", "0",
           "Vectors of each tile a thread keeps in kernels with reductions (0: auto, 1 in "
           "kernels of one row reduction over rows of 128 vectors or more, such as rms_norm, "
           "else 4)">,
    Option<"elementwiseElements", "elementwise-elements", "int64_t", "8",
           "Elements of each tile a thread keeps in kernels without reductions">,
    Option<"elementwiseThreadsPerBlock", "elementwise-threads-per-block", "int64_t", "256",
           "Upper bound on threads per CTA for kernels without reductions (more, smaller "
           "CTAs fit in the register file: see docs/perf.md)">,
    Option<"maxRegisters", "max-registers", "int64_t", "0",
           "Registers per thread ptxas may use (nvvm.maxnreg); 0: its own choice">,
    Option<"oneWaveRegisters", "one-wave-registers", "bool", "false",
           "Row kernels of one wave (at most 132 CTAs of <= 256 threads) get 255 "
           "registers a thread (nvvm.maxnreg), as GEMMs of one wave always do: ptxas "
           "otherwise aims at several CTAs an SM and may spill. Off: measured no faster "
           "at tokens 1 and 16 (docs/perf.md, twentieth session), and it would make a "
           "kernel's PTX depend on its row count (a second module for few tokens)">,
    Option<"fullCtaRegisters", "full-cta-registers", "bool", "true",
           "Row kernels in CTAs of 1024 threads get nvvm.maxnreg 64, all the register "
           "file gives them: under .maxntid alone ptxas spilled there at 64 registers "
           "(bf16 add_rms_norm [4096, 32768], 16 bytes), with the cap it did not">,
    Option<"rowClusterMax", "row-cluster-max", "int64_t", "8",
           "sm_90a: kernels with reductions over few wide rows split each row over a "
           "cluster of up to this many CTAs (up to 8, the portable cluster size; 1: off)">,
    Option<"rowCluster", "row-cluster", "int64_t", "0",
           "sm_90a: split rows with reductions over clusters of exactly this many CTAs "
           "(2 to 16, any size; above 8 the non-portable sizes, which the runtime opts "
           "each kernel in to, measured slower where tried, docs/perf.md, sixteenth "
           "session; 0: chosen, see row-cluster-max)">,
    Option<"sinkLoads", "sink-loads", "std::string", "\"auto\"",
           "Move loads first used past a reduction (weights, biases) to that use "
           "in rows held in registers: fewer registers live across the reduction. "
           "auto (default): where the row takes half a thread's registers, and in "
           "16-bit rows over 256 threads or more with two such loads (layer_norm bf16 "
           "[4096, 8192]: 3% faster in four sessions' A/Bs, [4096, 16384] 1.45x; "
           "elsewhere 1-3% slower, docs/perf.md); "
           "true: every row in registers; false: only where the row takes half the "
           "registers (the loads at the top would spill)">,
    Option<"rewiden", "rewiden", "std::string", "\"false\"",
           "Rows held in registers: a loaded bf16 row used both before and after a "
           "reduction stays packed across it and is widened again past it (integer "
           "shift), instead of living as f32 (rewidenPastReductions). true: every such "
           "row; false: none (unmeasured)">,
    Option<"recomputeExp", "recompute-exp", "std::string", "\"auto\"",
           "Softmax over bf16 rows held in registers: the online pair gives only (max, "
           "sum), takes each thread's max on the packed row, and the exp tile is made "
           "again past the reduction from the packed row, so the row lives across the "
           "reduction in half the registers of its exp tile, at one more exp an element; "
           "under fast math its exps flush results below 2^-126 (ex2.approx.ftz). "
           "auto (default), under fast math, with row-scalars=auto's folds there: many bf16 "
           "rows in the clusters of 8 CTAs of 256 the scheduler gives them, and rows in "
           "clusters of 4 from four waves of CTAs (docs/perf.md); true: every such kernel; "
           "false: none">,
    Option<"streamShared", "stream-shared", "std::string", "\"auto\"",
           "Streamed rows keep the row inputs they load in the first pass in dynamic "
           "shared memory, and later passes read them there instead of from HBM/L2 "
           "(where the row's inputs fit in 112 KB, two CTAs an SM): auto (rows not "
           "split over a cluster: measured 1-9% faster at bf16 rows of 32768, "
           "docs/perf.md), true (clusters too: not measured), false (never)">,
    Option<"rowLoop", "row-loop", "std::string", "\"auto\"",
           "Rows held in registers loop over row blocks: the grid is the CTAs that fit on "
           "the GPU at once (the runtime sizes it from the kernel's occupancy) and each "
           "CTA loads the vectors shared by all rows (weights, biases) once. true: kernels "
           "of at least 1024 row blocks, whole rows in one CTA; auto and false: one CTA a "
           "row block (the loop measured 5-37% slower with reductions, docs/perf.md)">,
    Option<"stageWeights", "stage-weights", "std::string", "\"false\"",
           "Rows in registers, one CTA a row: the weights and biases (vectors shared by "
           "every row) are copied into shared memory with cp.async (through L1) once the "
           "row's loads are out, and read there where they are used, so loads sunk past "
           "the reductions (sink-loads) do not wait on L2 there. true: every such kernel; "
           "auto and false (default): none (measured 0-12% slower, docs/perf.md, twelfth "
           "session)">,
    Option<"rowPrefetch", "row-prefetch", "int64_t", "0",
           "Row-loop kernels (row-loop, and implied by this option) copy the row inputs "
           "of the row blocks ahead into a ring of this many stages of dynamic shared "
           "memory with cp.async while the CTA works on the current block, so HBM reads "
           "stay in flight through the reductions (2 to 4; 0, the default: off; measured "
           "0-22% slower than one CTA a row, docs/perf.md, twelfth session)">,
    Option<"rowL2Prefetch", "row-l2-prefetch", "int64_t", "-1",
           "Row kernels of rows in registers, one row block a CTA: each CTA prefetches "
           "into L2 (prefetch.global.L2, a 128-byte line a thread) its own column slice "
           "of each row input of the row block this many blocks ahead, just before its "
           "own loads, so HBM reads run ahead of the CTAs that will use them. -1 "
           "(default): rows of under 128 KiB of row inputs take the blocks that hold "
           "row-l2-prefetch-bytes (2 MiB, kernels with reductions) or "
           "row-l2-prefetch-elementwise-bytes (1 MiB, kernels without) of their row "
           "inputs, where the grid has at least twice that many and 1056 CTAs (measured "
           "with reductions: 2-6% faster on an H100, 1-3% on an H200; 1 and 4 MiB no "
           "better, 8 MiB and more slower than none; rows of 128 KiB and more 1-3% "
           "slower than none on an H200; without: 1-5% faster at 1-2 MiB with the first "
           "blocks' own rows on an H100, 7 MiB and more slower than none; docs/perf.md, "
           "thirty-seventh, thirty-ninth and fortieth sessions); 0: none. sm_90 only; "
           "not for streamed rows or the row loop">,
    Option<"rowL2PrefetchFirst", "row-l2-prefetch-first", "std::string", "\"auto\"",
           "With row-l2-prefetch: the CTAs of the first D row blocks (which no CTA "
           "ahead prefetches for) prefetch their own slices too, ahead of the "
           "dependent-launch wait, so their rows stream into L2 while the kernel ahead "
           "finishes; without rows ahead, every CTA. auto (default): with rows ahead, "
           "kernels without reductions, and kernels with reductions and one row input "
           "whose rows are not split over a cluster (measured on an H200: the bf16 norms "
           "2-5% faster at 4096 tokens, softmax level; add_rms_norm up to 1.6% and "
           "softmax over a cluster 8% slower; on an H100, rope 3% faster than its rows "
           "ahead alone); without, rows split over a cluster in a grid of one wave (H100: "
           "softmax [16, 131072] 12-14% faster, level at one row); true: every kernel "
           "of rows in registers (but under row-l2-prefetch=0); false: none">,
    Option<"rowL2PrefetchBytes", "row-l2-prefetch-bytes", "int64_t", "2097152",
           "The bytes of row inputs that row-l2-prefetch=-1 (the default) prefetches "
           "ahead in kernels with reductions: D is this over the bytes of the row inputs "
           "in one row block (at least 1). 2 MiB by default (measured on an H100); for "
           "tuning on other devices">,
    Option<"rowL2PrefetchElementwiseBytes", "row-l2-prefetch-elementwise-bytes", "int64_t",
           "1048576",
           "The same for kernels without reductions (elementwise, rope): 1 MiB by default "
           "(measured on an H100 in bf16, with the first blocks' own rows: 1-2 MiB 2-5% "
           "faster than none at 4096 tokens and 1-2% at 16384; 3.5-4 MiB level with none "
           "or up to 1% slower, 7 MiB and more 7-22% slower). The vectors a thread are cut "
           "to 32 bytes of row inputs for it, and a kernel whose threads load more takes "
           "none (f32 silu_mul and elementwise_chain: two vectors of each input and 1 MiB "
           "ahead 0.4-1.7% slower than none, one and 1 MiB ahead 0.7-3% faster); 0: none, "
           "and the vectors of elementwise-elements (the default before the fortieth "
           "session)">,
    Option<"onlineSoftmax", "online-softmax", "std::string", "\"auto\"",
           "Reduce a row's max and sum of exp(x - max) together, as one pair (online "
           "softmax, tilec-form-online-softmax): auto (rows split over a cluster, where "
           "it was measured faster), true (every row schedule with a CTA barrier or a "
           "cluster or a streamed pass to save), false (never: max, then sum)">,
    Option<"readonlyInputs", "readonly-inputs", "bool", "false",
           "Row kernels: the buffers a kernel only reads are marked noalias and readonly "
           "(LLVM), so the NVPTX backend loads them with ld.global.nc (the read-only "
           "path; Executable::run refuses outputs in input buffers). Measured 0-2.6% slower "
           "(docs/perf.md, thirteenth session)">,
    Option<"rowScalars", "row-scalars", "std::string", "\"false\"",
           "Fast math: apply a row's scalars once (tilec-fold-row-scalars): x / s as "
           "x * (1 / s), and (x - m) * r and exp(x - m) as one FMA an element where the "
           "results are f16/bf16 (auto); true: f32 results too; false (default): as written "
           "(auto measured within 1% of it, docs/perf.md, thirteenth session)">,
    Option<"transposeTiles", "transpose-tiles", "bool", "true",
           "Swaps of the last dim (tile.transpose kernels) go through 32-bit words in "
           "swizzled shared-memory tiles (tilec-distribute-transpose-tiles): coalesced "
           "reads and writes (default; 18-38x the strided rows at 4096 x 4096, "
           "docs/perf.md, twentieth session). false, or where the dims are under 8 "
           "elements or a 16-bit swap has an odd dim: strided rows (coalesced reads, a "
           "row a thread)">,
    Option<"transposeTileBytes", "transpose-tile-bytes", "int64_t", "16",
           "Accesses of the transpose tiles: 16 (default), a v x v block a thread in "
           "16-byte vectors (v = 16 / element bytes) through 16 v x 16 v tiles where K "
           "and L are multiples of v, else 32-bit words; 4: 32-bit words always">,
    Option<"foldIntoExp", "fold-into-exp", "std::string", "\"auto\"",
           "Where row-scalars' folds run after recompute-exp (true): softmax's division "
           "by the sum folds into the exps made again past the reduction, exp2(x L + "
           "(-(M L) - log2 s)), one FMA and one ex2 an element, and the online pair's own "
           "exps are exp2(x L - m L) (bf16 results only). auto (default): where "
           "recompute-exp=auto makes the exps again (measured 1.4-3.6% faster, docs/perf.md, "
           "eighteenth session). false: the folds run before recompute-exp and its exps keep "
           "x - M and the product with 1 / s">,
    Option<"welford", "welford", "std::string", "\"true\"",
           "Reduce a row's mean and sum of squared deviations together, as one pair "
           "(layer_norm; tilec-form-welford): true (every row kernel; on the H200 never "
           "slower, seventh session; on an H100 11-19% faster over clusters, level in "
           "one CTA but for bf16 [4096, 4096], 1.8% slower, and 20% slower over 512 "
           "threads of one vector, forty-fifth session, docs/perf.md), auto (only rows "
           "over several warps, split over a cluster or streamed: a CTA barrier, a "
           "cluster exchange or a pass to save), false (never: mean, then the squared "
           "deviations)">,
    Option<"gemmBlockM", "gemm-block-m", "int64_t", "0", "GEMM CTA tile rows (0: chosen from the shape)">,
    Option<"gemmBlockN", "gemm-block-n", "int64_t", "0", "GEMM CTA tile columns (0: chosen)">,
    Option<"gemmBlockK", "gemm-block-k", "int64_t", "0", "GEMM k step per pipeline stage (0: chosen)">,
    Option<"gemmWarpsM", "gemm-warps-m", "int64_t", "0", "GEMM warps along M (0: chosen)">,
    Option<"gemmWarpsN", "gemm-warps-n", "int64_t", "0", "GEMM warps along N (0: chosen)">,
    Option<"gemmStages", "gemm-stages", "int64_t", "0", "GEMM shared-memory pipeline stages (0: chosen)">,
    Option<"gemmWgmma", "gemm-wgmma", "int64_t", "1",
           "On sm_90a, GEMMs with K-major 16-bit operands use warpgroup MMA (wgmma); 0: mma.sync">,
    Option<"gemmWgmmaMinRows", "gemm-wgmma-min-rows", "int64_t", "33",
           "wgmma GEMMs from this many rows (a batch's); fewer: mma.sync tiles (measured: "
           "wgmma 1.10-1.41x faster at 33-64 rows, 1.14x slower at 16)">,
    Option<"gemmWgmmaMN", "gemm-wgmma-mn", "bool", "true",
           "wgmma also for a [K, N] rhs, read MN-major from 64-column blocks (false: mma.sync)">,
    Option<"gemmMmaPending", "gemm-mma-pending", "int64_t", "1",
           "wgmma: k steps of MMAs left running when the next step starts (1: overlap MMAs "
           "with the barrier, copies run stages-2 steps ahead; 0: stages-1 ahead)">,
    Option<"gemmTma", "gemm-tma", "int64_t", "1",
           "wgmma GEMMs load their panels with TMA from a producer warpgroup (mbarrier "
           "pipeline; needs 16-byte aligned operand rows); 0: cp.async by the MMA warps">,
    Option<"gemmPersistent", "gemm-persistent", "bool", "true",
           "TMA GEMMs run persistent CTAs (one an SM, looping over tiles; the epilogue "
           "overlaps the next tile's copies); false: one CTA a tile">,
    Option<"gemmClusterM", "gemm-cluster-m", "int64_t", "1",
           "TMA GEMMs: CTAs a cluster (1 or 2) on consecutive block rows, sharing the B "
           "panel by TMA multicast (measured 1.00-1.15x slower than one CTA, run s32c: "
           "off by default)">,
    Option<"gemmTmaStore", "gemm-tma-store", "bool", "true",
           "TMA GEMMs with one 16-bit or f32 [M, N] output (batched: a 3-D map): each MMA "
           "warpgroup writes its results to shared memory in blocks of 64 rows x 128 bytes "
           "(two buffers) that TMA stores, whole lines and asynchronous; false: every "
           "thread stores its pairs to global memory">,
    Option<"gemmPingpong", "gemm-pingpong", "bool", "false",
           "Persistent TMA GEMMs: the two MMA warpgroups take alternate 64-row tiles "
           "(ping-pong), so one's epilogue runs under the other's MMAs; false: both share "
           "128-row tiles">,
    Option<"gemmMChains", "gemm-m-chains", "int64_t", "1",
           "wgmma TMA GEMMs of one product: 64-row MMA chains a warpgroup (1 or 2); 2 "
           "with block_m 256 gives each of the two MMA warpgroups 128 rows (two m64 accumulators sharing "
           "each B descriptor), as cuBLAS's 256x128 kernels">,
    Option<"attentionBlockM", "attention-block-m", "int64_t", "0",
           "Flash-attention kernels (tile.attention): query rows a CTA, 16 a warp (16 to "
           "128; 0: 64, even where a batch has fewer rows)">,
    Option<"attentionBlockN", "attention-block-n", "int64_t", "0",
           "Flash-attention kernels: keys a step (16 to 128, a multiple of 16; 0: 64)">,
    Option<"attentionStages", "attention-stages", "int64_t", "0",
           "Flash-attention kernels: shared-memory buffers of k and v blocks (2 to 4; 0: 2)">,
    Option<"attentionWgmma", "attention-wgmma", "int64_t", "1",
           "Flash-attention kernels on sm_90a: 1 (default): S = q k^T and O += P v by warpgroup "
           "MMA (wgmma; 64 query rows a warpgroup, P through shared memory) where head dims, "
           "v's columns and keys a step are multiples of 64, else mma.sync; 2: the same, with S "
           "of the next key block issued before the softmax of this one (k copied a block "
           "ahead of v); 0: mma.sync">,
    Option<"attentionTma", "attention-tma", "int64_t", "-1",
           "wgmma flash-attention kernels (attention-wgmma=1) whose keys are not split: 1: q, "
           "k and v copied by TMA from a producer warpgroup into stages that the consumer "
           "warpgroups (128 query rows a CTA, 128 keys a step by default) share through "
           "mbarriers, no CTA barrier a key block; 0: cp.async by every thread; -1 (default): "
           "1 where the head dims are multiples of 64 and attention-block-n is not set">,
    Option<"attentionPingpong", "attention-pingpong", "int64_t", "-1",
           "TMA flash-attention kernels with two consumer warpgroups: 1: they take turns "
           "issuing S = q k^T (named barriers 3 and 4), so one's softmax runs under the "
           "other's MMAs (FlashAttention-3's ping-pong); 0: no turns; -1 (default): 1 "
           "(measured 1.01-1.05x alone, 1.07-1.15x with P from registers and the overlap)">,
    Option<"attentionPersistent", "attention-persistent", "int64_t", "-1",
           "TMA flash-attention kernels: 1: persistent CTAs (at most one an SM, each "
           "looping over tiles; the producer copies the next tile's first key blocks and q "
           "while the consumers finish this one's; causal tiles heaviest first in waves of "
           "alternating order); 0: one CTA a tile; -1 (default): 1 with two consumers (128 "
           "rows) past 132 tiles where causal tiles go heaviest first (runs of grouped rows "
           "whole row blocks; measured 1.02-1.10x)">,
    Option<"attentionPRegs", "attention-p-regs", "int64_t", "-1",
           "wgmma flash-attention kernels: 1: O += P v takes P from the registers the "
           "softmax left it in (wgmma with A in registers, tile.wgmma_rs), as "
           "FlashAttention-3 does; 0: P through shared memory (a store, a "
           "proxy fence and a warpgroup barrier a key block); -1 (default): 1 in TMA "
           "kernels, 0 in the cp.async ones (not measured there)">,
    Option<"attentionOverlap", "attention-overlap", "int64_t", "-1",
           "TMA flash-attention kernels with two consumer warpgroups and P from registers: 1: "
           "each block's P v is issued behind the next block's S and runs under its "
           "softmax (FlashAttention-3's intra-warpgroup pipelining; 3 stages unless "
           "attention-stages says otherwise or they do not fit); 0: each block's "
           "S, softmax and P v in turn; -1 (default): 1 with the turns (without them "
           "measured 0.93-0.99x)">,
    Option<"attentionFoldScale", "attention-fold-scale", "int64_t", "1",
           "Flash-attention kernels whose scores are q k^T times a positive constant (then "
           "at most a causal mask): 1 (default): the constant folded into the softmax (the "
           "max of the unscaled scores scaled once a row, one fma and ex2 a score); 0: each "
           "score multiplied (A/B runs)">,
    Option<"attentionDescriptorOffsets", "attention-descriptor-offsets", "int64_t", "1",
           "wgmma flash-attention kernels: 1 (default): the wgmma descriptors of a k or v block's "
           "k steps are the first's plus constant offsets (one 64-bit add each); 0: each "
           "built from its shared address (an add, a bit-field extract and an or; A/B runs)">,
    Option<"attentionFlushExps", "attention-flush-exps", "int64_t", "1",
           "Flash-attention kernels under fast math: 1 (default): the softmax's exps are "
           "ex2.approx.ftz (tile.flush_exp, as the row kernels' softmax: one MUFU.EX2 an exp "
           "instead of four instructions; exps below 2^-126 of a row's max add nothing to "
           "its sum of at least 1); 0: the IEEE form (A/B runs)">,
    Option<"attentionAllPartials", "attention-all-partials", "int64_t", "0",
           "Flash-attention kernels with split keys: 0 (default): only the rows of the batch "
           "hand their partial outputs to the last split (decode's 1-8 query rows a kv head: "
           "an eighth of a 64-row tile's), whose warps combine them loading a few output "
           "tiles ahead (at most 32 rows: the whole warpgroup, each warp a share); 1: every "
           "row of the tile, each warp its own, a tile at a time (the hand-off before; A/B "
           "runs)">,
    Option<"attentionSplit", "attention-split", "int64_t", "0",
           "Flash-attention kernels: the key blocks split over this many CTAs a tile of query "
           "rows (flash decoding: partial outputs, maxima and sums in a workspace, combined "
           "by the last split to finish; 1: none; 0: chosen, splits while the tiles fill at "
           "most half the SMs)">,
    Option<"gemmFillSms", "gemm-fill-sms", "bool", "true",
           "GEMM grids that leave SMs idle: while wgmma tiles fill at most half the SMs "
           "they narrow to 128, then 64 columns, then to 64 rows, and a wave of them "
           "takes as many stages as fit, up to 8; decode (rows <= 32, 16-bit) takes 32-column CTAs where 64 would fill at "
           "most half the SMs, and 8 stages where the grid is one wave (docs/perf.md, "
           "twentieth session); so do 16-bit GEMMs of 33-64 rows (64-row CTAs); wgmma "
           "tiles wider than N's power of two halve down to it. Explicit block and stage "
           "options win">,
    Option<"gemmSplitK", "gemm-split-k", "int64_t", "0",
           "GEMMs whose tiles leave SMs idle split their k steps over CTAs: each CTA of "
           "a (tile, split) computes its share, writes its partial sums to a workspace "
           "and counts itself in on the tile's counter; the last to arrive adds the "
           "partials in split order and runs the fused epilogue. 0 (default): chosen "
           "(doubled while twice the CTAs fit in one wave and each split keeps 256 of K; "
           "kept where that makes 4 or more splits of a K of 2048 or more: docs/perf.md, "
           "twenty-first session); 1: no split; N: N splits (at most the k steps)">,
    Option<"dependentLaunch", "dependent-launch", "bool", "false",
           "The kernels wait for the kernel ahead of them in the stream "
           "(tilec-dependent-launch; the pipeline sets this with it, on sm_90): what a "
           "kernel does before its griddepcontrol.wait runs under that kernel's tail">,
    Option<"gemmL2Prefetch", "gemm-l2-prefetch", "int64_t", "-1",
           "Bytes of an [N, K] rhs (weights) each GEMM CTA prefetches into L2 first thing "
           "(prefetch.global.L2 of its first tile's first k steps, each row's share): with "
           "dependent-launch they load under the previous kernel's tail, ahead of the "
           "griddepcontrol.wait (a prefetch changes no value, so it need not wait). -1 "
           "(default): 32768 for GEMMs of at most 64 rows (decode) with dependent-launch, "
           "else none (measured: docs/perf.md, thirty-sixth session); 0: none. sm_90 only">,
    Option<"attentionL2Prefetch", "attention-l2-prefetch", "int64_t", "-1",
           "Bytes of k and v (half each) each flash-attention CTA prefetches into L2 first "
           "thing (prefetch.global.L2 of its first tile's first key blocks: its split's, "
           "with split keys), ahead of the griddepcontrol.wait under dependent-launch. -1 "
           "(default): 65536 for split-key (decode) kernels with dependent-launch, else "
           "none; 0: none. sm_90 only">,
    Option<"gemmGroupM", "gemm-group-m", "int64_t", "0",
           "GEMM tile order: tiles go in groups of this many block rows (column by column "
           "within a group), so that tiles running at once share panels in L2 (0: 16 for "
           "wgmma, 32 for ping-pong, 8 otherwise)">,
    Option<"target", "target", "std::string", "\"sm_80\"",
           "The GPU the kernels are for (sm_80 ... sm_90a): picks the tensor-core instructions">,
  ];
}

def DistributeRowTiles : Pass<"tilec-distribute-row-tiles", "mlir::ModuleOp"> {
  let summary = "Lower scheduled tile kernels to gpu.func: vectors per thread, warp and CTA reductions";
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::vector::VectorDialect",
                           "mlir::scf::SCFDialect", "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect", "mlir::math::MathDialect",
                           "mlir::NVVM::NVVMDialect", "mlir::LLVM::LLVMDialect",
                           "mlir::nvgpu::NVGPUDialect"];
}

def DistributeTransposeTiles : Pass<"tilec-distribute-transpose-tiles", "mlir::ModuleOp"> {
  let summary = "Lower transposes given tiles (tile.transpose_tiles) to gpu.func through shared memory";
  let description = [{
    A kernel swapping dims K and L of its input viewed as [O, K, M, L]
    (tile.transpose, given tiles by tilec-schedule-row-kernels) becomes one
    CTA of 256 threads a tile of tile_k x tile_l elements of one (o, m)
    slab. Threads move 32-bit words: a warp reads 32 consecutive words of
    an input row (coalesced), 16-bit elements are paired across two input
    rows in registers (a 2 x 2 transpose, one byte permute a word), the
    words go to shared memory at column kw ^ (row / p mod 32) (an XOR
    swizzle: no bank conflicts on either side), and after a barrier a warp
    writes 32 consecutive words of an output row. Full tiles are unmasked;
    the last tiles of K and L mask each word.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::vector::VectorDialect",
                           "mlir::scf::SCFDialect", "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

def DistributeGemmTiles : Pass<"tilec-distribute-gemm-tiles", "mlir::ModuleOp"> {
  let summary = "Lower scheduled GEMM kernels (tile.gemm) to gpu.func on tensor cores";
  let description = [{
    Multi-stage cp.async pipeline into swizzled shared memory, ldmatrix and
    mma.sync m16n8k16 (f16/bf16, f32 accumulators); on sm_90a wgmma from
    128-byte swizzled panels, filled by cp.async or by TMA from a producer
    warpgroup (mbarrier pipeline); and the kernel's row program applied to
    the accumulators in registers as the epilogue.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::vector::VectorDialect",
                           "mlir::scf::SCFDialect", "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect", "mlir::math::MathDialect",
                           "mlir::nvgpu::NVGPUDialect", "mlir::NVVM::NVVMDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def ApproxMath : Pass<"tilec-approx-math", "mlir::gpu::GPUModuleOp"> {
  let summary = "Fast-math f32 tanh to tanh.approx.f32, flushing exps to ex2.approx.ftz";
  let description = [{
    Before convert-gpu-to-nvvm, which lowers every f32 `math.tanh` to
    libdevice's `__nv_tanhf` whatever its flags: an f32 (or vector of f32)
    `math.tanh` marked `afn` becomes `llvm.intr.tanh` with `afn`, which the
    NVPTX backend emits as the `tanh.approx.f32` instruction. An f32
    `math.exp` or `math.exp2` marked `afn` and `tile.flush_exp` becomes the
    `llvm.nvvm.ex2.approx.ftz.f` intrinsic element by element (of x log2 e
    for exp): results below 2^-126 read as zero.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::vector::VectorDialect",
                           "mlir::arith::ArithDialect"];
}

def LowerWgmmaRs : Pass<"tilec-lower-wgmma-rs", "mlir::gpu::GPUModuleOp"> {
  let summary = "tile.wgmma_rs (wgmma with A in registers) to its PTX instruction";
  let description = [{
    NVVM 22's wgmma.mma_async reads A from shared memory only, and LLVM has
    no wgmma intrinsic (MLIR lowers its NVVM op to inline PTX). Each
    tile.wgmma_rs becomes the register-A instruction as an llvm.inline_asm
    with side effects: the accumulators as outputs tied to their inputs,
    A's four registers, B's descriptor, the scale of D and B's transpose as
    immediates. Flash attention uses it for O += P v with P in registers.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def FlushSubnormals : Pass<"tilec-flush-subnormals", "mlir::gpu::GPUModuleOp"> {
  let summary = "Fast math: f32 arithmetic flushes subnormals to zero (.ftz forms)";
  let description = [{
    After convert-gpu-to-nvvm: every llvm.func of the gpu.module gets
    `denormal_fp_math_f32 = "preserve-sign"`, so the NVPTX backend selects
    the `.ftz` forms of f32 instructions, as nvcc --use_fast_math does.
    ex2.approx.ftz and div.approx.ftz are one SASS instruction each; their
    IEEE forms wrap MUFU.EX2 and MUFU.RCP in three more to keep subnormals.
    The compiler runs it under fast math when CompileOptions::
    flushSubnormals is on (off by default: measured no faster on the H200,
    docs/perf.md, fourteenth session).
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def MarkTmaParams : Pass<"tilec-mark-tma-params", "mlir::gpu::GPUModuleOp"> {
  let summary = "Pass TMA tensor maps to kernels by value (128-byte grid constants)";
  let description = [{
    After convert-gpu-to-nvvm: the trailing `tile.tma_params` pointer
    arguments of a kernel become `byval` 128-byte, 64-byte aligned
    `nvvm.grid_constant` parameters, so the host passes each CUtensorMap in
    the launch's parameter buffer and the kernel reads it in place. Also
    (readonly-inputs) the parameters a row kernel's `tile.readonly_params`
    lists become `noalias readonly`, which NVPTX loads with ld.global.nc.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect"];
}

def ExternDynamicShared : Pass<"tilec-extern-dynamic-shared", "mlir::gpu::GPUModuleOp"> {
  let summary = "Declare the dynamic shared memory external, after the static shared memory";
  let description = [{
    After convert-gpu-to-nvvm: the zero-sized addrspace(3) globals that
    gpu.dynamic_shared_memory lowers to get external linkage, so the NVPTX
    backend declares them `.extern .shared ... []` (placed by the driver
    after the kernel's static shared variables) instead of demoting them
    to one static byte that overlaps those variables. Every shared
    global gets at least 16-byte alignment (LLVM merges reduction-buffer
    reads into 16-byte vector loads).
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def DependentLaunch : Pass<"tilec-dependent-launch", "mlir::gpu::GPUModuleOp"> {
  let summary = "Let each kernel start during the previous kernel's tail (sm_90+)";
  let description = [{
    After convert-gpu-to-nvvm: every kernel (llvm.func marked nvvm.kernel)
    starts with `nvvm.griddepcontrol wait`, before any memory access, then
    `nvvm.griddepcontrol launch_dependents`. The runtime launches such
    kernels with programmatic stream serialization, so a kernel's CTAs may
    be scheduled while the kernel ahead of it in the stream finishes; the
    wait keeps them from reading or writing memory until it has. Requires
    sm_90 (PTX griddepcontrol); the pipeline adds it only there.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect"];
}

#endif // TILEC_PASSES
