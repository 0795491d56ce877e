// RUN: tilec-opt --split-input-file --verify-diagnostics --tilec-schedule-row-kernels %s

// A row too long for the register-resident schedule: 1048576 f32 = 262144
// vectors of 4, over at most 1024 threads = 256 vectors per thread > 16.
// (The limit itself is printed as "()" -- see schedule-too-wide-limit.mlir.)
// expected-error @+1 {{'func.func' op row of 1048576 elements needs 256 vectors per thread, more than the register-resident schedule allows (}}
func.func @too_wide(%in: memref<?x1048576xf32>, %out: memref<?x1048576xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 1048576>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1048576xf32> -> tensor<1048576xf32>
  tile.store %t, %out[%r] : tensor<1048576xf32> -> memref<?x1048576xf32>
  return
}

// -----

// 131072 bf16 = 16384 vectors of 8 / 1024 threads = 16 per thread: the
// largest row that still fits.
func.func @widest_that_fits(%in: memref<?x131072xbf16>, %out: memref<?x131072xbf16>) attributes {tile.kernel, tile.domain = array<i64: 2, 131072>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x131072xbf16> -> tensor<131072xbf16>
  tile.store %t, %out[%r] : tensor<131072xbf16> -> memref<?x131072xbf16>
  return
}

// -----

// One element more per vector lane: 17 vectors per thread.
// expected-error @+1 {{row of 139264 elements needs 17 vectors per thread}}
func.func @one_chunk_too_many(%in: memref<?x139264xbf16>, %out: memref<?x139264xbf16>) attributes {tile.kernel, tile.domain = array<i64: 2, 139264>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x139264xbf16> -> tensor<139264xbf16>
  tile.store %t, %out[%r] : tensor<139264xbf16> -> memref<?x139264xbf16>
  return
}

// -----

// expected-error @+1 {{'func.func' op tile kernel has no tile.domain}}
func.func @no_domain(%in: memref<?x64xf32>) attributes {tile.kernel} {
  return
}
