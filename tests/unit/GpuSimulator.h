// A CPU simulator of the GPU stage: the kernels the distribution passes
// build (gpu.func bodies of arith, math, vector, memref, scf, gpu, nvgpu,
// nvvm and llvm.extractvalue ops), run launch by launch on the program's
// buffers as Executable::run binds them.
//
// A CTA's threads run in lockstep: every SSA value holds one value a thread,
// structured control flow (scf.if, scf.for) runs its regions under a mask of
// the threads that take them, and warp-collective ops (gpu.shuffle,
// nvgpu.ldmatrix, nvvm.mma.sync) combine the 32 lanes of each warp as the
// PTX ISA specifies their fragments. cp.async copies (nvgpu.device_async_copy)
// are held until the wait that covers their group, then copied (zero-filled
// past srcElements). 16-bit and f32 results are rounded to their types;
// approximate math (afn) is computed exactly, FMA contraction is not
// modeled (a few ulp). Every memory access is checked against its memref's
// shape: an out-of-bounds index is an error naming the op, not a wrong
// number. Shared memory starts as NaN bytes, outputs and temporaries too.
//
// Thread-block clusters (row kernels' wide rows): the CTAs of a cluster run
// by turns, each as far as the cluster barriers let it (nvvm.cluster.arrive
// / wait), with their own shared memory, which nvvm.mapa pointers reach;
// reading it before a barrier orders the write reads NaN bytes, after its
// CTA returned is an error.
//
// What it cannot see: races between the warps of a CTA (they run in
// lockstep, as if a barrier followed every op) or between CTAs outside a
// cluster (they run one after another). Kernels it does not model (TMA,
// wgmma, dependent launch) make it return an error naming the op: tests
// compile for sm_80 (mma.sync, cp.async) where they need not sm_90a.
#pragma once

#include "tilec/Graph.h"
#include "tilec/HostTensor.h"
#include "tilec/Status.h"
#include "tilec/compiler/Compiler.h"

#include <vector>

namespace tilec::gpusim {

/// Lowers `graph` to the GPU stage with `options` and simulates its
/// launches on `inputs` (one a graph input, in order). Persistent kernels
/// get at most `smCount` CTAs (whole clusters), as on a GPU of so many SMs
/// (fewer make their CTAs loop over more tiles). Returns the outputs, or an
/// error naming an unsupported op, an out-of-bounds access, a deadlock, or
/// a compile error.
Expected<std::vector<HostTensor>> runAtGpuStage(const Graph &graph,
                                                const std::vector<HostTensor> &inputs,
                                                const CompileOptions &options,
                                                int64_t smCount = 132);

} // namespace tilec::gpusim
