// The tile dialect: one program instance computes one row of a row kernel.
//
// Values are whole row tiles (tensor<C x T>) or per-row scalars; elementwise
// math on them uses upstream arith/math ops on tensors. The distribution pass
// later spreads each tile over the threads of a CTA (vector width, threads
// per row, rows per CTA come from the kernel's `tile.schedule`).
#ifndef TILEC_TILE_OPS
#define TILEC_TILE_OPS

include "mlir/Dialect/Arith/IR/ArithBase.td"
include "mlir/Dialect/LLVMIR/LLVMOpBase.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tilec::tile";
  let summary = "tile-level programs for tilec kernels";
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

def Tile_RowTile : 1DTensorOf<[F32, F16, BF16]>;
def Tile_FloatScalar : AnyTypeOf<[F32, F16, BF16]>;

def Tile_RowIdOp : Tile_Op<"row_id", [Pure]> {
  let summary = "the row this program instance computes";
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
}

def Tile_LoadOp : Tile_Op<"load", [MemoryEffects<[MemRead]>]> {
  let summary = "load a row tile, a column vector or a per-row scalar";
  let description = [{
    memref<?xCxT>[%row] -> tensor<CxT>: row %row of a row-major matrix.
    memref<?x1xT>[%row] -> T: the per-row scalar of row %row.
    memref<CxT> -> tensor<CxT>: a vector shared by every row (weights).
    memref<T> -> T: a scalar shared by every row.
    memref<OxKxIxT>[%row] -> tensor<KxT>: a strided row, [row / I, :, row % I]
    (reductions along an inner axis).

    With `col_offset = s` the row or shared vector is read through a window:
    memref<?xWxT>[%row] -> tensor<CxT> (any W) gives element j = [row, j + s]
    where 0 <= j + s < W and 0 elsewhere (slices and concatenations along
    the last axis).
  }];
  let arguments = (ins AnyMemRef:$source, Optional<Index>:$row,
                       OptionalAttr<I64Attr>:$col_offset);
  let results = (outs AnyTypeOf<[Tile_RowTile, Tile_FloatScalar]>:$result);
  let assemblyFormat = "$source (`[` $row^ `]`)? attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [MemoryEffects<[MemWrite]>]> {
  let summary = "store a row tile or a per-row scalar (or, without a row, a shared value)";
  let description = [{
    With a row: the forms of tile.load. Without one, a vector or scalar
    shared by all rows (computed identically by every row) is written once.
    With `col_offset = s`, element j of the tile goes to [row, j + s] where
    0 <= j + s < W and is dropped elsewhere.
  }];
  let arguments = (ins AnyTypeOf<[Tile_RowTile, Tile_FloatScalar]>:$value,
                       AnyMemRef:$dest, Optional<Index>:$row,
                       OptionalAttr<I64Attr>:$col_offset);
  let assemblyFormat = "$value `,` $dest (`[` $row^ `]`)? attr-dict `:` type($value) `->` type($dest)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure]> {
  let summary = "a row tile with every element equal to a scalar";
  let arguments = (ins Tile_FloatScalar:$input);
  let results = (outs Tile_RowTile:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_SelectColsOp : Tile_Op<"select_cols", [Pure, AllTypesMatch<["low", "high", "result"]>]> {
  let summary = "columns below `split` from one tile, the rest from another";
  let description = [{
    Element j of the result is low[j] when j < split, else high[j]: joins
    the pieces of a concatenation along the last axis.
  }];
  let arguments = (ins Tile_RowTile:$low, Tile_RowTile:$high, I64Attr:$split);
  let results = (outs Tile_RowTile:$result);
  let assemblyFormat = "$low `,` $high attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_CausalMaskOp : Tile_Op<"causal_mask", [Pure]> {
  let summary = "a row of a causal attention mask: 0 for the keys the row sees, -inf past them";
  let description = [{
    Element j is 0 where j <= row % period + offset, else -inf (graph's
    causal_mask, offset = keys - period, less any column shift it is read
    at); with a window W > 0, only where also j > row % period + offset - W.
    Flash attention bounds its key loop by it.
  }];
  let arguments = (ins Index:$row, I64Attr:$period, I64Attr:$offset,
                       DefaultValuedAttr<I64Attr, "0">:$window);
  let results = (outs Tile_RowTile:$result);
  let assemblyFormat = "$row attr-dict `:` type($result)";
  let hasVerifier = 1;
}

class Tile_ReduceOp<string mnemonic, string desc> : Tile_Op<mnemonic, [Pure]> {
  let summary = desc;
  let arguments = (ins Tile_RowTile:$input);
  let results = (outs F32:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ReduceSumOp : Tile_ReduceOp<"reduce_sum", "sum of a row tile (f32)">;
def Tile_ReduceMaxOp : Tile_ReduceOp<"reduce_max", "maximum of a row tile (f32)">;

def Tile_ReduceMaxSumExpOp : Tile_Op<"reduce_max_sum_exp", [Pure]> {
  let summary = "maximum of a row tile and the sum of exp(x - maximum), in one reduction";
  let description = [{
    `%m, %s = tile.reduce_max_sum_exp %x` gives m = max(x) and
    s = sum(exp(x - m)) (with `base2`, sum(exp2(x - m))): the softmax
    denominator without a second reduction. Partial results combine as
    pairs, (m1, s1) + (m2, s2) = (M, s1 exp(m1 - M) + s2 exp(m2 - M)) with
    M = max(m1, m2) (online softmax, Milakov & Gimelshein 2018), so the
    distribution pass reduces both in one round. Formed by
    tilec-form-online-softmax from reduce_max, splat, subf, exp and
    reduce_sum; `fastmath` is the exp's flags, kept for the exps the
    combination needs. A row of -inf gives (-inf, 0).

    With a third result, `%m, %s, %e = tile.reduce_max_sum_exp %x : ... ->
    f32, f32, tensor<...>`, the op also gives the tile e = exp(x - m) (exp2
    with `base2`), which the reduction computes anyway: the rewrite uses it
    for the softmax's numerator instead of a second exp(x - splat(m)). Where
    x is -inf, e is 0, also in a row of only -inf (m is taken as 0 there, as
    for s). Rows held in registers keep each thread's exp(x - m_t), m_t the
    thread's own max, and rescale it by exp(m_t - m) once m is known: one
    exp an element instead of two.
  }];
  let arguments = (ins Tile_RowTile:$input, UnitAttr:$base2,
                       OptionalAttr<Arith_FastMathAttr>:$fastmath);
  let results = (outs F32:$max, F32:$sum, Optional<Tile_RowTile>:$exp);
  let assemblyFormat =
      "$input attr-dict `:` type($input) `->` type($max) `,` type($sum) (`,` type($exp)^)?";
  let hasVerifier = 1;
}

def Tile_ReduceMeanM2Op : Tile_Op<"reduce_mean_m2", [Pure]> {
  let summary = "mean of a row tile and the sum of squared deviations from it, in one reduction";
  let description = [{
    `%mean, %m2 = tile.reduce_mean_m2 %x` gives mean = sum(x) / W and
    M2 = sum((x - mean)^2) over the W elements of the tile: layer_norm's
    mean and (times 1 / W) variance without a second reduction. Partial
    triples (n, mean, M2) combine as n = nA + nB, delta = meanB - meanA,
    mean = meanA + delta nB / n, M2 = M2A + M2B + delta^2 nA nB / n (Chan,
    Golub & LeVeque 1979), so the distribution pass reduces both in one
    round; each thread first takes its own elements' mean and then their
    squared deviations from it (exact two-pass: they are in registers), so
    large means with small variances lose nothing to cancellation, as
    E[x^2] - E[x]^2 would. Formed by tilec-form-welford from reduce_sum,
    the division by W, splat, subf, mulf and reduce_sum; `fastmath` is the
    mean division's flags, kept for the divisions of the combination.
  }];
  let arguments = (ins Tile_RowTile:$input, OptionalAttr<Arith_FastMathAttr>:$fastmath);
  let results = (outs F32:$mean, F32:$m2);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($mean) `,` type($m2)";
  let hasVerifier = 1;
}

def Tile_MatmulOp : Tile_Op<"matmul", [MemoryEffects<[MemRead]>]> {
  let summary = "row `row` of op(lhs) @ op(rhs), accumulated in f32";
  let description = [{
    lhs is memref<?xKxT> (memref<KxMxT> with `transpose_a`), rhs is
    memref<KxNxT> (memref<NxKxT> with `transpose_b`); the result is row
    `row` of the product, tensor<Nxf32>. A batched rhs memref<BxKxNxT>
    splits the lhs rows into B equal blocks, block b multiplied by rhs[b];
    a batched transposed lhs memref<BxKxMxT> makes B blocks of M rows,
    block b read from lhs[b] (and multiplied by rhs[b] if the rhs is
    batched too). A kernel with this op is a GEMM
    kernel (`tile.gemm`): its row program is the epilogue applied to each
    row of the accumulator, and the distribution pass computes whole CTA
    tiles of rows and columns on tensor cores.
  }];
  let arguments = (ins AnyMemRef:$lhs, AnyMemRef:$rhs, Index:$row,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_a,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_b);
  let results = (outs 1DTensorOf<[F32]>:$result);
  let assemblyFormat = "$lhs `,` $rhs `[` $row `]` attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_RowMatmulOp : Tile_Op<"row_matmul", [MemoryEffects<[MemRead]>]> {
  let summary = "a computed row times op(rhs), accumulated in f32 (attention's P @ V)";
  let description = [{
    `lhs` is a row tile of K 16-bit elements computed by the kernel (the
    row's attention probabilities); rhs is memref<KxNxT> (memref<NxKxT>
    with `transpose_b`), or batched memref<BxKxNxT>, which splits the
    kernel's rows into B equal blocks as tile.matmul does: row `row` is
    multiplied by rhs[row / (rows / B)]. The result is tensor<Nxf32>. Only
    attention kernels (`tile.attention`) hold it: there the row tile never
    exists as such; the distribution pass streams it through registers
    (flash attention).
  }];
  let arguments = (ins Tile_RowTile:$lhs, AnyMemRef:$rhs, Index:$row,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_b);
  let results = (outs 1DTensorOf<[F32]>:$result);
  let assemblyFormat = "$lhs `,` $rhs `[` $row `]` attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_LaunchOp : Tile_Op<"launch", [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "run a tile kernel on tensors (host side of the program)";
  let description = [{
    Replaces a graph.fusion in the host function: the kernel `callee` reads
    `inputs` and writes one buffer per result.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyRankedTensor>:$inputs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = "$callee `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)";
}

def Tile_WgmmaRsOp : Tile_Op<"wgmma_rs", [AllTypesMatch<["acc", "result"]>]> {
  let summary = "wgmma.mma_async m64nNk16 with A in registers (RS), B from shared memory";
  let description = [{
    The register-A form of `nvvm.wgmma.mma_async`, which NVVM 22's op does
    not have (its A is a shared-memory descriptor only): D = A B (+ D) on
    the 128 threads of a warpgroup, A 64 x 16 and B 16 x N of 16-bit
    `multiplicand` (bf16 or f16), D f32. Each thread holds A's fragment in
    `a`: four i32 of two elements each (low half first), thread l of the
    warpgroup holding, as mma.sync m16n8k16's A of warp l / 32 for rows
    16 (l / 32) + [0, 16): a[r] = row (l % 32) / 4 + 8 (r % 2), columns
    2 (l % 4) + 8 (r / 2) + {0, 1}. `descriptor_b` is B's shared-memory
    matrix descriptor, K-major (`b_mn` false) or MN-major (true). `acc` and
    the result are the accumulators (an LLVM struct of N / 2 f32 a thread,
    nvvm.wgmma.mma_async's layout); `zero_acc` ignores `acc` (scale-d 0).
    Issued asynchronously like the NVVM op: ordered by wgmma.fence,
    commit_group and wait_group, and A's registers and the accumulators
    must not be touched until a wait retires it. tilec-lower-wgmma-rs
    makes it the PTX instruction (an llvm.inline_asm, as MLIR's own
    lowering of the NVVM op does).
  }];
  let arguments = (ins LLVM_AnyStruct:$acc, Variadic<I32>:$a, I64:$descriptor_b,
                       TypeAttr:$multiplicand,
                       DefaultValuedAttr<BoolAttr, "false">:$b_mn,
                       DefaultValuedAttr<BoolAttr, "false">:$zero_acc);
  let results = (outs LLVM_AnyStruct:$result);
  let assemblyFormat = "$acc `,` `[` $a `]` `,` $descriptor_b attr-dict `:` type($acc)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// N, the columns of B and D.
    int64_t getN();
  }];
}

#endif // TILEC_TILE_OPS
