// RUN: tilec-opt --split-input-file --tilec-lower-fusion-to-tile %s | FileCheck %s

// Lowering of row fusions with slices and concatenations along the last
// axis, parts of rows and inputs that broadcast along row dims:
//   - a slice reads its input `start` columns to the right: a load of an
//     input becomes `tile.load ... {col_offset = N}` (element j is
//     src[row, j + N], zero outside the buffer's width);
//   - a concatenation becomes `tile.select_cols %low, %high {split = K}`,
//     each piece seen at the shift that puts it at its columns;
//   - an input whose rows broadcast into the domain's is read at a row
//     computed from tile.row_id with arith.divui / arith.remui / arith.muli;
//   - a result that is a part of a row goes to a memref<?xWxT> (W < C) with
//     `tile.store ... {col_offset = 0}` (only its W columns are written);
//   - `tile.row_buffer` names the argument with one row per domain row (the
//     distribution sizes its grid from it).

// Rotary embedding over [4, 2, 128] f32 (cos, sin: [4, 1, 128]). x (third
// input) is the row buffer; cos and sin are read at row / 2. The rotation
// reads x twice more through windows: at +64 (negated, for columns < 64)
// and at -64 (for columns >= 64).
// CHECK-LABEL: func.func @rope_kernel0
//  CHECK-SAME:   (%[[COS:.+]]: memref<?x128xf32>, %[[SIN:.+]]: memref<?x128xf32>, %[[X:.+]]: memref<?x128xf32>, %[[OUT:.+]]: memref<?x128xf32>)
//  CHECK-SAME:   attributes {tile.domain = array<i64: 4, 2, 128>, tile.kernel, tile.row_buffer = 2 : i64}
//  CHECK-NEXT:   %[[ROW:.+]] = tile.row_id
//  CHECK-NEXT:   %[[XT:.+]] = tile.load %[[X]][%[[ROW]]] : memref<?x128xf32> -> tensor<128xf32>
//  CHECK-NEXT:   %[[TWO:.+]] = arith.constant 2 : index
//  CHECK-NEXT:   %[[CROW:.+]] = arith.divui %[[ROW]], %[[TWO]] : index
//  CHECK-NEXT:   %[[CT:.+]] = tile.load %[[COS]][%[[CROW]]] : memref<?x128xf32> -> tensor<128xf32>
//  CHECK-NEXT:   %[[TWO2:.+]] = arith.constant 2 : index
//  CHECK-NEXT:   %[[SROW:.+]] = arith.divui %[[ROW]], %[[TWO2]] : index
//  CHECK-NEXT:   %[[ST:.+]] = tile.load %[[SIN]][%[[SROW]]] : memref<?x128xf32> -> tensor<128xf32>
//  CHECK-NEXT:   %[[HI:.+]] = tile.load %[[X]][%[[ROW]]] {col_offset = 64 : i64} : memref<?x128xf32> -> tensor<128xf32>
//  CHECK-NEXT:   %[[NEG:.+]] = arith.negf %[[HI]] : tensor<128xf32>
//  CHECK-NEXT:   %[[LO:.+]] = tile.load %[[X]][%[[ROW]]] {col_offset = -64 : i64} : memref<?x128xf32> -> tensor<128xf32>
//  CHECK-NEXT:   %[[ROT:.+]] = tile.select_cols %[[NEG]], %[[LO]] {split = 64 : i64} : tensor<128xf32>
//  CHECK-NEXT:   %[[XC:.+]] = arith.mulf %[[XT]], %[[CT]] : tensor<128xf32>
//  CHECK-NEXT:   %[[RS:.+]] = arith.mulf %[[ROT]], %[[ST]] : tensor<128xf32>
//  CHECK-NEXT:   %[[Y:.+]] = arith.addf %[[XC]], %[[RS]] : tensor<128xf32>
//  CHECK-NEXT:   tile.store %[[Y]], %[[OUT]][%[[ROW]]] : tensor<128xf32> -> memref<?x128xf32>
//  CHECK-NEXT:   return
// CHECK-LABEL: func.func @rope(
//  CHECK-SAME:   %[[HX:.+]]: tensor<4x2x128xf32>, %[[HC:.+]]: tensor<4x1x128xf32>, %[[HS:.+]]: tensor<4x1x128xf32>)
//  CHECK-NEXT:   tile.launch @rope_kernel0(%[[HC]], %[[HS]], %[[HX]]) : (tensor<4x1x128xf32>, tensor<4x1x128xf32>, tensor<4x2x128xf32>) -> tensor<4x2x128xf32>

func.func @rope(%x: tensor<4x2x128xf32>, %cos: tensor<4x1x128xf32>, %sin: tensor<4x1x128xf32>) -> tensor<4x2x128xf32> {
  %0 = graph.fusion(%cos, %sin, %x : tensor<4x1x128xf32>, tensor<4x1x128xf32>, tensor<4x2x128xf32>) attributes {domain = array<i64: 4, 2, 128>} -> tensor<4x2x128xf32> {
  ^bb0(%bc: tensor<4x1x128xf32>, %bs: tensor<4x1x128xf32>, %bx: tensor<4x2x128xf32>):
    %c = graph.broadcast %bc : (tensor<4x1x128xf32>) -> tensor<4x2x128xf32>
    %s = graph.broadcast %bs : (tensor<4x1x128xf32>) -> tensor<4x2x128xf32>
    %hi = graph.slice %bx {axis = 2 : i64, start = 64 : i64, end = 128 : i64} : (tensor<4x2x128xf32>) -> tensor<4x2x64xf32>
    %n = graph.neg %hi : (tensor<4x2x64xf32>) -> tensor<4x2x64xf32>
    %lo = graph.slice %bx {axis = 2 : i64, start = 0 : i64, end = 64 : i64} : (tensor<4x2x128xf32>) -> tensor<4x2x64xf32>
    %rot = graph.concat %n, %lo {axis = 2 : i64} : (tensor<4x2x64xf32>, tensor<4x2x64xf32>) -> tensor<4x2x128xf32>
    %a = graph.mul %bx, %c : (tensor<4x2x128xf32>, tensor<4x2x128xf32>) -> tensor<4x2x128xf32>
    %b = graph.mul %rot, %s : (tensor<4x2x128xf32>, tensor<4x2x128xf32>) -> tensor<4x2x128xf32>
    %y = graph.add %a, %b : (tensor<4x2x128xf32>, tensor<4x2x128xf32>) -> tensor<4x2x128xf32>
    graph.yield %y : tensor<4x2x128xf32>
  }
  return %0 : tensor<4x2x128xf32>
}

// -----

// A part of a row as a result: neg(exp(x)[:, 8:32]) is computed on a whole
// tile read at +8 and stored with col_offset 0 into memref<?x24xf32>. exp(x)
// is also a result, computed on the unshifted tile.
// CHECK-LABEL: func.func @part_output_kernel0
//  CHECK-SAME:   (%[[X:.+]]: memref<?x64xf32>, %[[OP:.+]]: memref<?x24xf32>, %[[OE:.+]]: memref<?x64xf32>)
//  CHECK-SAME:   tile.row_buffer = 0 : i64
//  CHECK-NEXT:   %[[ROW:.+]] = tile.row_id
//  CHECK-NEXT:   %[[XT:.+]] = tile.load %[[X]][%[[ROW]]] : memref<?x64xf32> -> tensor<64xf32>
//  CHECK-NEXT:   %[[E:.+]] = math.exp %[[XT]] : tensor<64xf32>
//  CHECK-NEXT:   %[[XS:.+]] = tile.load %[[X]][%[[ROW]]] {col_offset = 8 : i64} : memref<?x64xf32> -> tensor<64xf32>
//  CHECK-NEXT:   %[[ES:.+]] = math.exp %[[XS]] : tensor<64xf32>
//  CHECK-NEXT:   %[[N:.+]] = arith.negf %[[ES]] : tensor<64xf32>
//  CHECK-NEXT:   tile.store %[[N]], %[[OP]][%[[ROW]]] {col_offset = 0 : i64} : tensor<64xf32> -> memref<?x24xf32>
//  CHECK-NEXT:   tile.store %[[E]], %[[OE]][%[[ROW]]] : tensor<64xf32> -> memref<?x64xf32>
//  CHECK-NEXT:   return

func.func @part_output(%x: tensor<4x64xf32>) -> (tensor<4x24xf32>, tensor<4x64xf32>) {
  %0:2 = graph.fusion(%x : tensor<4x64xf32>) attributes {domain = array<i64: 4, 64>} -> tensor<4x24xf32>, tensor<4x64xf32> {
  ^bb0(%a: tensor<4x64xf32>):
    %e = graph.exp %a : (tensor<4x64xf32>) -> tensor<4x64xf32>
    %s = graph.slice %e {axis = 1 : i64, start = 8 : i64, end = 32 : i64} : (tensor<4x64xf32>) -> tensor<4x24xf32>
    %n = graph.neg %s : (tensor<4x24xf32>) -> tensor<4x24xf32>
    graph.yield %n, %e : tensor<4x24xf32>, tensor<4x64xf32>
  }
  return %0#0, %0#1 : tensor<4x24xf32>, tensor<4x64xf32>
}

// -----

// exp(concat(a, concat(b, c)))[:, 8:56] with a, b [4, 16] and c [4, 32] in
// a [4, 64] domain. Every input is a part of a row: even the unshifted read
// of a has col_offset 0 (it is narrower than the tile). Seen at shift 8 the
// pieces start at columns -8, 8 and 24: a at +8 up to column 8, b at -8 up
// to column 24, then c at -24. (The unshifted concatenation at the top is
// dead; canonicalize removes it.)
// CHECK-LABEL: func.func @nested_kernel0
//  CHECK-SAME:   (%[[A:.+]]: memref<?x16xf32>, %[[B:.+]]: memref<?x16xf32>, %[[C:.+]]: memref<?x32xf32>, %[[OUT:.+]]: memref<?x48xf32>)
//  CHECK-SAME:   tile.domain = array<i64: 4, 64>
//  CHECK-NEXT:   %[[ROW:.+]] = tile.row_id
//  CHECK-NEXT:   %[[A0:.+]] = tile.load %[[A]][%[[ROW]]] {col_offset = 0 : i64} : memref<?x16xf32> -> tensor<64xf32>
//  CHECK-NEXT:   %[[B0:.+]] = tile.load %[[B]][%[[ROW]]] {col_offset = -16 : i64} : memref<?x16xf32> -> tensor<64xf32>
//  CHECK-NEXT:   %[[C0:.+]] = tile.load %[[C]][%[[ROW]]] {col_offset = -32 : i64} : memref<?x32xf32> -> tensor<64xf32>
//  CHECK-NEXT:   %[[BC0:.+]] = tile.select_cols %[[B0]], %[[C0]] {split = 32 : i64} : tensor<64xf32>
//  CHECK-NEXT:   %[[ABC0:.+]] = tile.select_cols %[[A0]], %[[BC0]] {split = 16 : i64} : tensor<64xf32>
//  CHECK-NEXT:   math.exp %[[ABC0]]
//  CHECK-NEXT:   %[[A8:.+]] = tile.load %[[A]][%[[ROW]]] {col_offset = 8 : i64} : memref<?x16xf32> -> tensor<64xf32>
//  CHECK-NEXT:   %[[B8:.+]] = tile.load %[[B]][%[[ROW]]] {col_offset = -8 : i64} : memref<?x16xf32> -> tensor<64xf32>
//  CHECK-NEXT:   %[[C8:.+]] = tile.load %[[C]][%[[ROW]]] {col_offset = -24 : i64} : memref<?x32xf32> -> tensor<64xf32>
//  CHECK-NEXT:   %[[BC8:.+]] = tile.select_cols %[[B8]], %[[C8]] {split = 24 : i64} : tensor<64xf32>
//  CHECK-NEXT:   %[[ABC8:.+]] = tile.select_cols %[[A8]], %[[BC8]] {split = 8 : i64} : tensor<64xf32>
//  CHECK-NEXT:   %[[E8:.+]] = math.exp %[[ABC8]] : tensor<64xf32>
//  CHECK-NEXT:   tile.store %[[E8]], %[[OUT]][%[[ROW]]] {col_offset = 0 : i64} : tensor<64xf32> -> memref<?x48xf32>
//  CHECK-NEXT:   return

func.func @nested(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>, %c: tensor<4x32xf32>) -> tensor<4x48xf32> {
  %0 = graph.fusion(%a, %b, %c : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x32xf32>) attributes {domain = array<i64: 4, 64>} -> tensor<4x48xf32> {
  ^bb0(%ba: tensor<4x16xf32>, %bb: tensor<4x16xf32>, %bc: tensor<4x32xf32>):
    %0 = graph.concat %bb, %bc {axis = 1 : i64} : (tensor<4x16xf32>, tensor<4x32xf32>) -> tensor<4x48xf32>
    %1 = graph.concat %ba, %0 {axis = 1 : i64} : (tensor<4x16xf32>, tensor<4x48xf32>) -> tensor<4x64xf32>
    %2 = graph.exp %1 : (tensor<4x64xf32>) -> tensor<4x64xf32>
    %3 = graph.slice %2 {axis = 1 : i64, start = 8 : i64, end = 56 : i64} : (tensor<4x64xf32>) -> tensor<4x48xf32>
    graph.yield %3 : tensor<4x48xf32>
  }
  return %0 : tensor<4x48xf32>
}

// -----

// Mapped rows in a [2, 3, 4, 64] domain (row = ((i0 * 3) + i1) * 4 + i2):
//   c [4, 1] (a per-row scalar): row % 4
//   d [2, 3, 1, 1] (a per-row scalar): (row / 4) % 3 + (row / 12) * 3
//   a [2, 1, 4, 64]: row % 4 + (row / 12) * 4
//   b [1, 3, 1, 64]: (row / 4) % 3
// No modulo on the outermost dim (row < 24). x, the fifth argument, is the
// row buffer.
// CHECK-LABEL: func.func @maps_kernel0
//  CHECK-SAME:   (%[[A:[^:]+]]: memref<?x64xf32>, %[[B:[^:]+]]: memref<?x64xf32>, %[[C:[^:]+]]: memref<?x1xf32>, %[[D:[^:]+]]: memref<?x1xf32>, %[[X:[^:]+]]: memref<?x64xf32>, %{{.+}}: memref<?x64xf32>)
//  CHECK-SAME:   tile.row_buffer = 4 : i64
//  CHECK-NEXT:   %[[ROW:.+]] = tile.row_id
//  CHECK-NEXT:   %[[K4:.+]] = arith.constant 4 : index
//  CHECK-NEXT:   %[[CROW:.+]] = arith.remui %[[ROW]], %[[K4]] : index
//  CHECK-NEXT:   tile.load %[[C]][%[[CROW]]] : memref<?x1xf32> -> f32
//  CHECK-NEXT:   %[[K4B:.+]] = arith.constant 4 : index
//  CHECK-NEXT:   %[[D1:.+]] = arith.divui %[[ROW]], %[[K4B]] : index
//  CHECK-NEXT:   %[[K3:.+]] = arith.constant 3 : index
//  CHECK-NEXT:   %[[D2:.+]] = arith.remui %[[D1]], %[[K3]] : index
//  CHECK-NEXT:   %[[K12:.+]] = arith.constant 12 : index
//  CHECK-NEXT:   %[[D3:.+]] = arith.divui %[[ROW]], %[[K12]] : index
//  CHECK-NEXT:   %[[K3B:.+]] = arith.constant 3 : index
//  CHECK-NEXT:   %[[D4:.+]] = arith.muli %[[D3]], %[[K3B]] : index
//  CHECK-NEXT:   %[[DROW:.+]] = arith.addi %[[D2]], %[[D4]] : index
//  CHECK-NEXT:   tile.load %[[D]][%[[DROW]]] : memref<?x1xf32> -> f32
//  CHECK-NEXT:   tile.load %[[X]][%[[ROW]]] : memref<?x64xf32> -> tensor<64xf32>
//  CHECK-NEXT:   %[[K4C:.+]] = arith.constant 4 : index
//  CHECK-NEXT:   %[[A1:.+]] = arith.remui %[[ROW]], %[[K4C]] : index
//  CHECK-NEXT:   %[[K12B:.+]] = arith.constant 12 : index
//  CHECK-NEXT:   %[[A2:.+]] = arith.divui %[[ROW]], %[[K12B]] : index
//  CHECK-NEXT:   %[[K4D:.+]] = arith.constant 4 : index
//  CHECK-NEXT:   %[[A3:.+]] = arith.muli %[[A2]], %[[K4D]] : index
//  CHECK-NEXT:   %[[AROW:.+]] = arith.addi %[[A1]], %[[A3]] : index
//  CHECK-NEXT:   tile.load %[[A]][%[[AROW]]] : memref<?x64xf32> -> tensor<64xf32>
//  CHECK-NEXT:   %[[K4E:.+]] = arith.constant 4 : index
//  CHECK-NEXT:   %[[B1:.+]] = arith.divui %[[ROW]], %[[K4E]] : index
//  CHECK-NEXT:   %[[K3C:.+]] = arith.constant 3 : index
//  CHECK-NEXT:   %[[BROW:.+]] = arith.remui %[[B1]], %[[K3C]] : index
//  CHECK-NEXT:   tile.load %[[B]][%[[BROW]]] : memref<?x64xf32> -> tensor<64xf32>

func.func @maps(%x: tensor<2x3x4x64xf32>, %a: tensor<2x1x4x64xf32>, %b: tensor<1x3x1x64xf32>, %c: tensor<4x1xf32>, %d: tensor<2x3x1x1xf32>) -> tensor<2x3x4x64xf32> {
  %0 = graph.fusion(%a, %b, %c, %d, %x : tensor<2x1x4x64xf32>, tensor<1x3x1x64xf32>, tensor<4x1xf32>, tensor<2x3x1x1xf32>, tensor<2x3x4x64xf32>) attributes {domain = array<i64: 2, 3, 4, 64>} -> tensor<2x3x4x64xf32> {
  ^bb0(%ba: tensor<2x1x4x64xf32>, %bb: tensor<1x3x1x64xf32>, %bc: tensor<4x1xf32>, %bd: tensor<2x3x1x1xf32>, %bx: tensor<2x3x4x64xf32>):
    %0 = graph.broadcast %ba : (tensor<2x1x4x64xf32>) -> tensor<2x3x4x64xf32>
    %1 = graph.broadcast %bb : (tensor<1x3x1x64xf32>) -> tensor<2x3x4x64xf32>
    %2 = graph.broadcast %bc : (tensor<4x1xf32>) -> tensor<2x3x4x64xf32>
    %3 = graph.broadcast %bd : (tensor<2x3x1x1xf32>) -> tensor<2x3x4x64xf32>
    %4 = graph.mul %bx, %0 : (tensor<2x3x4x64xf32>, tensor<2x3x4x64xf32>) -> tensor<2x3x4x64xf32>
    %5 = graph.mul %4, %1 : (tensor<2x3x4x64xf32>, tensor<2x3x4x64xf32>) -> tensor<2x3x4x64xf32>
    %6 = graph.mul %5, %2 : (tensor<2x3x4x64xf32>, tensor<2x3x4x64xf32>) -> tensor<2x3x4x64xf32>
    %7 = graph.mul %6, %3 : (tensor<2x3x4x64xf32>, tensor<2x3x4x64xf32>) -> tensor<2x3x4x64xf32>
    graph.yield %7 : tensor<2x3x4x64xf32>
  }
  return %0 : tensor<2x3x4x64xf32>
}

// -----

// Every input broadcasts along a row dim, so the row buffer is the output
// (argument 2): cos [4, 1, 64] at row / 2, s [1, 2, 64] at row % 2.
// CHECK-LABEL: func.func @all_mapped_kernel0
//  CHECK-SAME:   (%[[C:.+]]: memref<?x64xf32>, %[[S:.+]]: memref<?x64xf32>, %[[OUT:.+]]: memref<?x64xf32>)
//  CHECK-SAME:   tile.row_buffer = 2 : i64
//  CHECK-NEXT:   %[[ROW:.+]] = tile.row_id
//  CHECK-NEXT:   %[[K2:.+]] = arith.constant 2 : index
//  CHECK-NEXT:   %[[CROW:.+]] = arith.divui %[[ROW]], %[[K2]] : index
//  CHECK-NEXT:   tile.load %[[C]][%[[CROW]]] : memref<?x64xf32> -> tensor<64xf32>
//  CHECK-NEXT:   %[[K2B:.+]] = arith.constant 2 : index
//  CHECK-NEXT:   %[[SROW:.+]] = arith.remui %[[ROW]], %[[K2B]] : index
//  CHECK-NEXT:   tile.load %[[S]][%[[SROW]]] : memref<?x64xf32> -> tensor<64xf32>
//  CHECK-NEXT:   arith.addf
//  CHECK-NEXT:   tile.store %{{.+}}, %[[OUT]][%[[ROW]]] : tensor<64xf32> -> memref<?x64xf32>

func.func @all_mapped(%c: tensor<4x1x64xf32>, %s: tensor<1x2x64xf32>) -> tensor<4x2x64xf32> {
  %0 = graph.fusion(%c, %s : tensor<4x1x64xf32>, tensor<1x2x64xf32>) attributes {domain = array<i64: 4, 2, 64>} -> tensor<4x2x64xf32> {
  ^bb0(%bc: tensor<4x1x64xf32>, %bs: tensor<1x2x64xf32>):
    %0 = graph.broadcast %bc : (tensor<4x1x64xf32>) -> tensor<4x2x64xf32>
    %1 = graph.broadcast %bs : (tensor<1x2x64xf32>) -> tensor<4x2x64xf32>
    %2 = graph.add %0, %1 : (tensor<4x2x64xf32>, tensor<4x2x64xf32>) -> tensor<4x2x64xf32>
    graph.yield %2 : tensor<4x2x64xf32>
  }
  return %0 : tensor<4x2x64xf32>
}

// -----

// A mapped input that is also a part of a row: c [4, 1, 64] multiplies
// both halves of x's [4, 2, 128] rows, read at row / 2 with col_offset 0
// (columns < 64) and -64 (columns >= 64, shifted with the high half).
// CHECK-LABEL: func.func @part_table_kernel0
//  CHECK-SAME:   (%[[C:.+]]: memref<?x64xf32>, %[[X:.+]]: memref<?x128xf32>, %[[OUT:.+]]: memref<?x128xf32>)
//  CHECK-SAME:   tile.row_buffer = 1 : i64
//  CHECK-NEXT:   %[[ROW:.+]] = tile.row_id
//  CHECK-NEXT:   %[[XT:.+]] = tile.load %[[X]][%[[ROW]]] : memref<?x128xf32> -> tensor<128xf32>
//  CHECK-NEXT:   %[[K2:.+]] = arith.constant 2 : index
//  CHECK-NEXT:   %[[CROW:.+]] = arith.divui %[[ROW]], %[[K2]] : index
//  CHECK-NEXT:   %[[CLO:.+]] = tile.load %[[C]][%[[CROW]]] {col_offset = 0 : i64} : memref<?x64xf32> -> tensor<128xf32>
//  CHECK-NEXT:   %[[LO:.+]] = arith.mulf %[[XT]], %[[CLO]] : tensor<128xf32>
//  CHECK-NEXT:   %[[CHI:.+]] = tile.load %[[C]][%[[CROW]]] {col_offset = -64 : i64} : memref<?x64xf32> -> tensor<128xf32>
//  CHECK-NEXT:   %[[HI:.+]] = arith.mulf %[[XT]], %[[CHI]] : tensor<128xf32>
//  CHECK-NEXT:   %[[Y:.+]] = tile.select_cols %[[LO]], %[[HI]] {split = 64 : i64} : tensor<128xf32>
//  CHECK-NEXT:   tile.store %[[Y]], %[[OUT]][%[[ROW]]] : tensor<128xf32> -> memref<?x128xf32>

func.func @part_table(%x: tensor<4x2x128xf32>, %c: tensor<4x1x64xf32>) -> tensor<4x2x128xf32> {
  %0 = graph.fusion(%c, %x : tensor<4x1x64xf32>, tensor<4x2x128xf32>) attributes {domain = array<i64: 4, 2, 128>} -> tensor<4x2x128xf32> {
  ^bb0(%bc: tensor<4x1x64xf32>, %bx: tensor<4x2x128xf32>):
    %cb = graph.broadcast %bc : (tensor<4x1x64xf32>) -> tensor<4x2x64xf32>
    %lo = graph.slice %bx {axis = 2 : i64, start = 0 : i64, end = 64 : i64} : (tensor<4x2x128xf32>) -> tensor<4x2x64xf32>
    %hi = graph.slice %bx {axis = 2 : i64, start = 64 : i64, end = 128 : i64} : (tensor<4x2x128xf32>) -> tensor<4x2x64xf32>
    %a = graph.mul %lo, %cb : (tensor<4x2x64xf32>, tensor<4x2x64xf32>) -> tensor<4x2x64xf32>
    %b = graph.mul %hi, %cb : (tensor<4x2x64xf32>, tensor<4x2x64xf32>) -> tensor<4x2x64xf32>
    %y = graph.concat %a, %b {axis = 2 : i64} : (tensor<4x2x64xf32>, tensor<4x2x64xf32>) -> tensor<4x2x128xf32>
    graph.yield %y : tensor<4x2x128xf32>
  }
  return %0 : tensor<4x2x128xf32>
}
