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
// Hopper: the CTA's shared memory is one window of real addresses (what
// descriptors and ptr<3> hold). wgmma (m64nNk16) reads its operands through
// the matrix descriptors' 128-byte swizzle, and the bytes it reads may not
// be written until the wait that retires its group. TMA boxes (swizzled,
// out-of-bounds zeros, multicast) complete when issued on their mbarriers
// (counts, transaction bytes, phase parity waits). Fibers: the CTAs of a
// cluster, the two branches of an scf.if that wait on mbarriers (warp
// specialization), and in a branch that holds a bar.arrive each warpgroup
// (they take turns at named barriers: a bar.sync of fewer threads than its
// count waits for other fibers' syncs and arrivals; arrivals left at exit
// are an error), run by turns, each as far as barriers let it; a read of
// another CTA's shared memory no cluster barrier orders after its write
// reads NaN bytes, one after that CTA returned is an error, and a deadlock
// is an error naming what each fiber waits for.
//
// Races in shared memory: warps run in lockstep (as if a barrier followed
// every op), so each warp keeps a vector clock of the barriers and
// mbarrier waits it passed, and each shared byte its last write and read by
// a thread: an access by another warp that has not synchronized with it
// since (a read after a write, a write after a read or write) is an error.
//
// What it cannot see: races within a warp, in global memory, or between
// CTAs outside a cluster (they run one after another); dependent launch is
// not modeled.
// Ops it does not model make it return an error naming the op.
#pragma once

#include "tilec/Graph.h"
#include "tilec/HostTensor.h"
#include "tilec/Status.h"
#include "tilec/compiler/Compiler.h"

#include <map>
#include <string>
#include <vector>

namespace tilec::gpusim {

/// Lowers `graph` to the GPU stage with `options` and simulates its
/// launches on `inputs` (one a graph input, in order). Persistent GEMMs
/// get at most `smCount` CTAs (whole clusters) and row-loop kernels at most
/// `smCount`, as on a GPU of so many SMs (fewer make their CTAs loop over
/// more tiles and rows). Returns the outputs, or an
/// error naming an unsupported op, an out-of-bounds access, a deadlock, or
/// a compile error.
/// What one launch moved through device memory (the program's buffers;
/// split-k workspaces left out), counted by the accesses the kernels make:
/// bytes read and written by program value, and how many of all those
/// bytes moved in accesses of 16 bytes or more (a thread's vector.load /
/// store of 16 bytes, cp.async of 16, TMA boxes), the LDG.E.128 / STG.E.128
/// that issue 3 asks for.
struct LaunchTraffic {
  std::string kernel;
  std::map<int, int64_t> bytesRead, bytesWritten; // by program value
  int64_t bytes = 0, bytesInWideAccesses = 0;
  // L2 prefetches: each prefetched byte address (of the line it names), by
  // program value, with how many prefetches named it.
  std::map<int, std::map<int64_t, int64_t>> prefetched;
};

Expected<std::vector<HostTensor>> runAtGpuStage(const Graph &graph,
                                                const std::vector<HostTensor> &inputs,
                                                const CompileOptions &options,
                                                int64_t smCount = 132,
                                                std::vector<LaunchTraffic> *traffic = nullptr);

} // namespace tilec::gpusim
