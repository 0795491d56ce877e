// The "too wide" diagnostic prints the max-chunks-per-thread limit in use
// (it once streamed the option object itself and printed "()").

// RUN: not tilec-opt --tilec-schedule-row-kernels %s 2>&1 | FileCheck %s
// RUN: not tilec-opt --tilec-schedule-row-kernels=max-chunks-per-thread=8 %s 2>&1 | FileCheck %s --check-prefix=EIGHT

// @too_wide: 1048576 f32 = 262144 vectors / 512 threads = 512 per thread.
// @sixteen: 32768 f32 = 8192 vectors / 512 threads = 16 per thread, which
// fits the default limit but not a limit of 8.
// CHECK-NOT: error
// CHECK: error: 'func.func' op row of 1048576 elements needs 512 vectors per thread, more than the register-resident schedule allows (16); wider rows need a multi-pass schedule
// CHECK-NOT: error

// The pass stops at the first kernel that fails.
// EIGHT-NOT: error
// EIGHT: error: 'func.func' op row of 32768 elements needs 16 vectors per thread, more than the register-resident schedule allows (8); wider rows need a multi-pass schedule
// EIGHT-NOT: error
func.func @sixteen(%in: memref<?x32768xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 32768>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x32768xf32> -> tensor<32768xf32>
  %s = tile.reduce_sum %t : tensor<32768xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

func.func @too_wide(%in: memref<?x1048576xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 1048576>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1048576xf32> -> tensor<1048576xf32>
  %s = tile.reduce_sum %t : tensor<1048576xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}
