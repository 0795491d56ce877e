// RUN: tilec-opt --split-input-file --tilec-distribute-row-tiles %s | FileCheck %s

// row-prefetch (DistributeRowTiles.cpp, runRowLoop with prefetch = S): the
// row input goes through a ring of S stages in dynamic shared memory. Two
// stages, RMSNorm over f32 rows of 256 at 64 threads a row, two rows a CTA:
// a stage is 2 x 256 floats. Before the loop the CTA copies its first block
// (stage 0) with cp.async (16 bytes, .cg; rows past the last are
// zero-filled and read from row 0) as one group. Each iteration copies the
// block one grid step ahead into the other stage (if there is one), commits
// a group (also when empty), waits until at most one group is pending and
// reads its vectors from the current stage; the weight is not hoisted.

// CHECK-LABEL: gpu.func @rms_norm_kernel0(
// CHECK-SAME:    %[[X:[^:]+]]: memref<?x256xf32>, %[[W:[^:]+]]: memref<256xf32>, %[[OUT:[^:]+]]: memref<?x256xf32>)
// CHECK-NOT:     vector.load
// CHECK:         %[[BLOCKS:.+]] = arith.ceildivui
// CHECK:         %[[BID:.+]] = gpu.block_id x
// CHECK:         %[[GRID:.+]] = gpu.grid_dim x
// CHECK:         %[[DYN:.+]] = gpu.dynamic_shared_memory
// CHECK:         %[[RING:.+]] = memref.view %[[DYN]][%{{.+}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK:         scf.if
// CHECK:           %[[OK0:.+]] = arith.cmpi ult, %{{.+}}, %{{.+}} : index
// CHECK:           %[[SRC0:.+]] = arith.select %[[OK0]], %{{.+}}, %{{.+}} : index
// CHECK:           %[[N0:.+]] = arith.select %[[OK0]], %{{.+}}, %{{.+}} : index
// CHECK:           nvgpu.device_async_copy %[[X]][%[[SRC0]], %{{.+}}], %[[RING]][%{{.+}}], 4, %[[N0]] {bypassL1}
// CHECK:         }
// CHECK:         %[[T0:.+]] = nvgpu.device_async_create_group
// CHECK:         scf.for %[[BLK:.+]] = %[[BID]] to %[[BLOCKS]] step %[[GRID]] iter_args(%[[STAGE:.+]] = %{{.+}}, %{{.+}} = %[[T0]]) -> (index, !nvgpu.device.async.token) {
// CHECK:           %[[AHEAD:.+]] = arith.addi %[[BLK]], %{{.+}} : index
// CHECK:           %[[HAVE:.+]] = arith.cmpi ult, %[[AHEAD]], %[[BLOCKS]] : index
// CHECK:           scf.if %[[HAVE]] {
// CHECK:             nvgpu.device_async_copy %[[X]]
// CHECK:           }
// CHECK:           %[[T:.+]] = nvgpu.device_async_create_group
// CHECK:           nvgpu.device_async_wait %[[T]] {numGroups = 1 : i32}
// CHECK:           %[[SLOT:.+]] = arith.muli %[[STAGE]], %c512 : index
// CHECK:           vector.load %[[RING]][%{{.+}}] {alignment = 16 : i64} : memref<1024xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NOT:       vector.load %[[X]]
// CHECK:           vector.load %[[W]]
// CHECK:           gpu.shuffle
// CHECK:           vector.store %{{.+}}, %[[OUT]]
// CHECK:           gpu.barrier
// CHECK-NEXT:      scf.yield %{{.+}}, %[[T]] : index, !nvgpu.device.async.token
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.return

module {
  func.func @rms_norm_kernel0(%arg0: memref<?x256xf32>, %arg1: memref<256xf32>, %arg2: memref<?x256xf32>) attributes {tile.domain = array<i64: 4096, 256>, tile.kernel, tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, prefetch = 2 : i64, row_loop = 1 : i64, rows_per_block = 2 : i64, shared_bytes = 4096 : i64, threads_per_row = 64 : i64, vector_width = 4 : i64}} {
    %cst = arith.constant 9.99999997E-7 : f32
    %cst_0 = arith.constant 2.560000e+02 : f32
    %0 = tile.row_id
    %1 = tile.load %arg0[%0] : memref<?x256xf32> -> tensor<256xf32>
    %2 = tile.load %arg1 : memref<256xf32> -> tensor<256xf32>
    %3 = arith.mulf %1, %1 : tensor<256xf32>
    %4 = tile.reduce_sum %3 : tensor<256xf32> -> f32
    %5 = arith.divf %4, %cst_0 : f32
    %6 = arith.addf %5, %cst : f32
    %7 = math.rsqrt %6 : f32
    %8 = tile.splat %7 : f32 -> tensor<256xf32>
    %9 = arith.mulf %1, %8 : tensor<256xf32>
    %10 = arith.mulf %9, %2 : tensor<256xf32>
    tile.store %10, %arg2[%0] : tensor<256xf32> -> memref<?x256xf32>
    return
  }
  func.func @rms_norm(%arg0: tensor<4096x256xf32>, %arg1: tensor<256xf32>) -> tensor<4096x256xf32> {
    %0 = tile.launch @rms_norm_kernel0(%arg0, %arg1) {fused_ops = 9 : i64, hbm_bytes_saved = 0 : i64} : (tensor<4096x256xf32>, tensor<256xf32>) -> tensor<4096x256xf32>
    return %0 : tensor<4096x256xf32>
  }
}

// -----

// Three stages, two prefetched bf16 inputs (add_rms_norm: x and the
// residual; the weight is read as before), rows of 200 in 16-row CTAs of 8
// threads a row, 4 vectors of 8 a thread: a stage is 16 x 256 elements, a
// ring 3 stages (24576 bytes, the second ring right after). The fourth
// vector can pass the row's end (column 200): it is zero-filled there and
// read from column 0. Two blocks are copied before the loop; each iteration
// copies the block two grid steps ahead into stage (stage + 2) mod 3 and
// waits until at most two groups are pending.

// CHECK-LABEL: gpu.func @add_rms_norm_kernel0(
// CHECK-SAME:    %[[X:[^:]+]]: memref<?x200xbf16>, %[[R:[^:]+]]: memref<?x200xbf16>, %[[W:[^:]+]]: memref<200xbf16>,
// CHECK:         %[[C200:.+]] = arith.constant 200 : index
// CHECK-NEXT:    %[[IN3:.+]] = arith.cmpi ult, %[[COL3:.+]], %[[C200]] : index
// CHECK:         %[[RINGX:.+]] = memref.view %{{.+}}[%c0{{.*}}][] : {{.*}} to memref<12288xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[RINGR:.+]] = memref.view %{{.+}}[%c24576][] : {{.*}} to memref<12288xbf16, #gpu.address_space<workgroup>>
// CHECK:         scf.if
// CHECK-COUNT-3:   nvgpu.device_async_copy %[[X]]
// CHECK:           %[[BOTH:.+]] = arith.andi %{{.+}}, %[[IN3]] : i1
// CHECK:           %[[SRCCOL:.+]] = arith.select %[[IN3]], %[[COL3]], %{{.+}} : index
// CHECK:           %[[N:.+]] = arith.select %[[BOTH]], %{{.+}}, %{{.+}} : index
// CHECK:           nvgpu.device_async_copy %[[X]][%{{.+}}, %[[SRCCOL]]], %[[RINGX]][%{{.+}}], 8, %[[N]] {bypassL1}
// CHECK-COUNT-4:   nvgpu.device_async_copy %[[R]]
// CHECK:         nvgpu.device_async_create_group
// CHECK:         scf.if
// CHECK-COUNT-8:   nvgpu.device_async_copy
// CHECK:         %[[T1:.+]] = nvgpu.device_async_create_group
// CHECK:         scf.for {{.+}} iter_args({{.+}}, %{{.+}} = %[[T1]])
// CHECK:           arith.addi %{{.+}}, %c2{{.*}} : index
// CHECK:           arith.cmpi uge, %{{.+}}, %c3{{.*}} : index
// CHECK:           scf.if
// CHECK-COUNT-8:     nvgpu.device_async_copy
// CHECK:           %[[T:.+]] = nvgpu.device_async_create_group
// CHECK:           nvgpu.device_async_wait %[[T]] {numGroups = 2 : i32}
// CHECK-COUNT-4:   vector.load %[[RINGX]]
// CHECK-COUNT-4:   vector.load %[[RINGR]]
// CHECK:           vector.load %[[W]]
// CHECK-NOT:       vector.load %[[X]]
// CHECK-NOT:       vector.load %[[R]]
// CHECK:           scf.yield

module {
  func.func @add_rms_norm_kernel0(%arg0: memref<?x200xbf16>, %arg1: memref<?x200xbf16>, %arg2: memref<200xbf16>, %arg3: memref<?x200xbf16>, %arg4: memref<?x200xbf16>) attributes {tile.domain = array<i64: 16384, 200>, tile.kernel, tile.row_buffer = 0 : i64, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, prefetch = 3 : i64, row_loop = 1 : i64, rows_per_block = 16 : i64, shared_bytes = 49152 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 8 : i64}} {
    %cst = arith.constant 9.99999997E-7 : f32
    %cst_0 = arith.constant 2.000000e+02 : f32
    %0 = tile.row_id
    %1 = tile.load %arg0[%0] : memref<?x200xbf16> -> tensor<200xbf16>
    %2 = tile.load %arg1[%0] : memref<?x200xbf16> -> tensor<200xbf16>
    %3 = tile.load %arg2 : memref<200xbf16> -> tensor<200xbf16>
    %4 = arith.extf %1 : tensor<200xbf16> to tensor<200xf32>
    %5 = arith.extf %2 : tensor<200xbf16> to tensor<200xf32>
    %6 = arith.addf %4, %5 fastmath<contract> : tensor<200xf32>
    %7 = arith.mulf %6, %6 fastmath<contract> : tensor<200xf32>
    %8 = tile.reduce_sum %7 : tensor<200xf32> -> f32
    %9 = arith.divf %8, %cst_0 fastmath<contract,afn> : f32
    %10 = arith.addf %9, %cst fastmath<contract> : f32
    %11 = math.rsqrt %10 : f32
    %12 = arith.extf %3 : tensor<200xbf16> to tensor<200xf32>
    %13 = tile.splat %11 : f32 -> tensor<200xf32>
    %14 = arith.mulf %6, %13 fastmath<contract> : tensor<200xf32>
    %15 = arith.mulf %14, %12 fastmath<contract> : tensor<200xf32>
    %16 = arith.truncf %15 : tensor<200xf32> to tensor<200xbf16>
    %17 = arith.truncf %6 : tensor<200xf32> to tensor<200xbf16>
    tile.store %17, %arg3[%0] : tensor<200xbf16> -> memref<?x200xbf16>
    tile.store %16, %arg4[%0] : tensor<200xbf16> -> memref<?x200xbf16>
    return
  }
  func.func @add_rms_norm(%arg0: tensor<16384x200xbf16>, %arg1: tensor<16384x200xbf16>, %arg2: tensor<200xbf16>) -> (tensor<16384x200xbf16>, tensor<16384x200xbf16>) {
    %0:2 = tile.launch @add_rms_norm_kernel0(%arg0, %arg1, %arg2) {fused_ops = 13 : i64, hbm_bytes_saved = 177473088 : i64} : (tensor<16384x200xbf16>, tensor<16384x200xbf16>, tensor<200xbf16>) -> (tensor<16384x200xbf16>, tensor<16384x200xbf16>)
    return %0#1, %0#0 : tensor<16384x200xbf16>, tensor<16384x200xbf16>
  }
}
