// The graph dialect: tensor-level operators built by the DSL, and the
// graph.fusion regions that the fusion pass forms (one region = one kernel).
#ifndef TILEC_GRAPH_OPS
#define TILEC_GRAPH_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/RegionKindInterface.td"

def Graph_Dialect : Dialect {
  let name = "graph";
  let cppNamespace = "::tilec::graph";
  let summary = "tilec's tensor-level operator graph";
  let description = [{
    Ranked tensors of f32, f16 or bf16. Elementwise operators take operands
    of one shape and dtype (broadcasts are explicit ops); reductions keep the
    reduced dimension with size 1 and accumulate in f32.
  }];
}

def Graph_FloatTensor : TensorOf<[F32, F16, BF16]>;

class Graph_Op<string mnemonic, list<Trait> traits = []>
    : Op<Graph_Dialect, mnemonic, traits>;

class Graph_BinaryOp<string mnemonic, string desc>
    : Graph_Op<mnemonic, [Pure, Elementwise]> {
  let summary = desc;
  let arguments = (ins Graph_FloatTensor:$lhs, Graph_FloatTensor:$rhs);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_AddOp : Graph_BinaryOp<"add", "elementwise a + b">;
def Graph_SubOp : Graph_BinaryOp<"sub", "elementwise a - b">;
def Graph_MulOp : Graph_BinaryOp<"mul", "elementwise a * b">;
def Graph_DivOp : Graph_BinaryOp<"div", "elementwise a / b">;
def Graph_MaxOp : Graph_BinaryOp<"max", "elementwise maximum">;
def Graph_MinOp : Graph_BinaryOp<"min", "elementwise minimum">;

class Graph_UnaryOp<string mnemonic, string desc>
    : Graph_Op<mnemonic, [Pure, Elementwise]> {
  let summary = desc;
  let arguments = (ins Graph_FloatTensor:$input);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_NegOp : Graph_UnaryOp<"neg", "elementwise -x">;
def Graph_ExpOp : Graph_UnaryOp<"exp", "elementwise e^x">;
def Graph_LogOp : Graph_UnaryOp<"log", "elementwise natural logarithm">;
def Graph_SqrtOp : Graph_UnaryOp<"sqrt", "elementwise square root">;
def Graph_RsqrtOp : Graph_UnaryOp<"rsqrt", "elementwise 1/sqrt(x)">;
def Graph_TanhOp : Graph_UnaryOp<"tanh", "elementwise tanh">;
def Graph_SigmoidOp : Graph_UnaryOp<"sigmoid", "elementwise 1/(1+e^-x)">;
def Graph_SiluOp : Graph_UnaryOp<"silu", "elementwise x*sigmoid(x)">;
def Graph_GeluOp : Graph_UnaryOp<"gelu", "elementwise GELU, tanh approximation">;

def Graph_CastOp : Graph_Op<"cast", [Pure, Elementwise]> {
  let summary = "elementwise dtype conversion (round to nearest even)";
  let arguments = (ins Graph_FloatTensor:$input);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_BroadcastOp : Graph_Op<"broadcast", [Pure]> {
  let summary = "numpy-style broadcast to the result shape";
  let description = [{
    Dimensions are aligned from the right; each operand dimension is 1 or
    equal to the result's; the result may have more (leading) dimensions.
  }];
  let arguments = (ins Graph_FloatTensor:$input);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_SliceOp : Graph_Op<"slice", [Pure]> {
  let summary = "elements [start, end) along one axis";
  let arguments = (ins Graph_FloatTensor:$input, I64Attr:$axis, I64Attr:$start,
                       I64Attr:$end);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_ConcatOp : Graph_Op<"concat", [Pure]> {
  let summary = "operands joined along one axis";
  let description = [{
    Operands have one dtype and equal dimensions except along `axis`; the
    result's `axis` dimension is the sum of theirs.
  }];
  let arguments = (ins Variadic<Graph_FloatTensor>:$inputs, I64Attr:$axis);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_UpdateSliceOp : Graph_Op<"update_slice", [Pure]> {
  let summary = "the buffer with elements [start, start + n) of one axis replaced";
  let description = [{
    The result is `buffer` (a function argument) with elements [start,
    start + n) along `axis` (a row dim) taken from `update`, n being
    update's size there; the other dims and the dtype match. As a value it
    is a new tensor; the launch plan gives it the argument's buffer
    (updated in place: only the update's rows are written), which is why
    the argument may have no other reader and the result must be returned.

    Example (a KV cache's append of one token after 4096):

    ```mlir
    %k = graph.update_slice %cache, %new {axis = 1 : i64, start = 4096 : i64}
        : (tensor<8x4097x128xbf16>, tensor<8x1x128xbf16>) -> tensor<8x4097x128xbf16>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$buffer, Graph_FloatTensor:$update, I64Attr:$axis,
                       I64Attr:$start);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$buffer `,` $update attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_ReshapeOp : Graph_Op<"reshape", [Pure]> {
  let summary = "the same elements in row-major order under another shape";
  let description = [{
    The result has the operand's dtype and element count. It is a view: the
    fusion pass keeps it out of every kernel, and the launch plan reads the
    operand's buffer under the result's shape.
  }];
  let arguments = (ins Graph_FloatTensor:$input);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_TransposeOp : Graph_Op<"transpose", [Pure]> {
  let summary = "two dims swapped";
  let description = [{
    The operand with dims `dim0` < `dim1` swapped (torch.transpose), its
    elements in the row-major order of the result's shape. A swap of row
    dims (dim1 < rank - 1) is a row op: its row kernel gathers the input's
    rows. Before fusion, tilec-fold-transposes takes a swap of the last two
    dims feeding a matmul operand as that operand's transpose, and turns a
    swap that keeps the order of the dims larger than 1 into a
    graph.reshape (a view); any other swap of the last dim is a kernel of
    its own over strided rows.

    Example:

    ```mlir
    %kt = graph.transpose %k {dim0 = 1 : i64, dim1 = 2 : i64}
        : (tensor<32x128x64xbf16>) -> tensor<32x64x128xbf16>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input, I64Attr:$dim0, I64Attr:$dim1);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

class Graph_ReduceOp<string mnemonic, string desc> : Graph_Op<mnemonic, [Pure]> {
  let summary = desc;
  let description = [{
    Reduces along `axis`, keeping it with size 1. Accumulates in f32.
  }];
  let arguments = (ins Graph_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_ReduceSumOp : Graph_ReduceOp<"reduce_sum", "sum along one axis">;
def Graph_ReduceMaxOp : Graph_ReduceOp<"reduce_max", "maximum along one axis">;
def Graph_ReduceMeanOp : Graph_ReduceOp<"reduce_mean", "mean along one axis">;

def Graph_MatmulOp : Graph_Op<"matmul", [Pure]> {
  let summary = "matrix product of the last two dims, f32 accumulation";
  let description = [{
    Like torch.matmul with optional transposes of the last two dims. `lhs` is
    [..., M, K] ([..., K, M] with `transpose_a`); `rhs` is [K, N] ([N, K] with
    `transpose_b`), shared by every batch, or [..., K, N] with exactly the
    lhs's leading (batch) dims (no other batch broadcasting). Both operands
    have rank >= 2 and one element type. The result is [..., M, N] with any
    float element type; products are accumulated in f32 and rounded once to
    the result type.

    Example:

    ```mlir
    %y = graph.matmul %x, %w {transpose_b = true}
        : (tensor<8x4096xbf16>, tensor<1024x4096xbf16>) -> tensor<8x1024xbf16>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$lhs, Graph_FloatTensor:$rhs,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_a,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_b);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_ConstantOp : Graph_Op<"constant", [Pure, ConstantLike]> {
  let summary = "a tensor filled with one value";
  let arguments = (ins F64Attr:$value);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$value attr-dict `:` type($result)";
}

def Graph_CausalMaskOp : Graph_Op<"causal_mask", [Pure]> {
  let summary = "a causal attention mask computed from the indices";
  let description = [{
    tensor<... x R x C x f32>: element [..., r, c] is 0 where
    c <= r % period + C - period, else -inf (runs of `period` query rows,
    each the last `period` positions of the C keys; Graph::causal_mask);
    with a window W > 0, only where also c > r % period + C - period - W.
    With `past` >= 0 (at most C - period) it reads `past` for C - period:
    the runs are the positions after the first `past` keys, and the keys
    after them are removed (a cache of C rows, past + period filled).
    No buffer holds it: kernels compute it where it is used.
  }];
  let arguments = (ins I64Attr:$period, DefaultValuedAttr<I64Attr, "0">:$window,
                       DefaultValuedAttr<I64Attr, "-1">:$past);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Graph_FusionOp : Graph_Op<"fusion", [IsolatedFromAbove,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "a group of operators compiled into one kernel";
  let description = [{
    Formed by the fusion pass. Block arguments stand for `inputs`; values
    passed to graph.yield become the results (written to memory once).
    Attributes set by the pass: `domain` (the row-kernel iteration shape),
    `hbm_bytes_saved` (bytes of intermediates kept on chip).
  }];
  let arguments = (ins Variadic<Graph_FloatTensor>:$inputs);
  let results = (outs Variadic<Graph_FloatTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`(` $inputs^ `:` type($inputs) `)`)? attr-dict-with-keyword (`->` type($results)^)? $body
  }];
  let hasVerifier = 1;
}

def Graph_YieldOp : Graph_Op<"yield", [Pure, Terminator, HasParent<"FusionOp">]> {
  let summary = "the results of a graph.fusion";
  let arguments = (ins Variadic<Graph_FloatTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ /* empty yield */ }]>];
}

#endif // TILEC_GRAPH_OPS
