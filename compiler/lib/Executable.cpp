// Executable: binds a CompiledProgram to device buffers and launches it.
#include "tilec/compiler/Executable.h"
#include "tilec/compiler/ProgramCache.h"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>

namespace tilec {

Expected<std::shared_ptr<Executable>>
Executable::compileFor(const Graph &graph, const std::vector<Shape> &inputShapes,
                       const std::shared_ptr<rt::Context> &ctx, const CompileOptions &options) {
  if (!graph.symbolic())
    return compile(graph, ctx, options);
  std::unique_ptr<Graph> bound;
  try {
    bound = graph.bind(graph.bindingsFor(inputShapes));
  } catch (const Error &e) {
    return Status::error(std::string("Executable::compileFor: ") + e.what());
  }
  return compile(*bound, ctx, options);
}

namespace {

struct Caches {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const CompiledProgram>> programs;
  std::map<std::pair<const void *, size_t>, std::shared_ptr<rt::Module>> modules;
};

Caches &caches() {
  static Caches c;
  return c;
}

/// The program's inputs or outputs, in graph order.
std::vector<const ProgramValue *> valuesOfKind(const CompiledProgram &p,
                                               ProgramValue::Kind kind) {
  std::vector<const ProgramValue *> values;
  for (const ProgramValue &v : p.values)
    if (v.kind == kind) {
      if (values.size() <= static_cast<size_t>(v.index))
        values.resize(v.index + 1);
      values[v.index] = &v;
    }
  return values;
}

int64_t byteSizeOf(const ProgramValue &v) {
  return numElements(v.shape) * static_cast<int64_t>(dtypeBytes(v.dtype));
}

} // namespace

Expected<std::shared_ptr<Executable>>
Executable::compile(const Graph &graph, const std::shared_ptr<rt::Context> &ctx,
                    const CompileOptions &options) {
  if (!ctx)
    return Status::error("Executable::compile: no CUDA context given");
  Caches &c = caches();
  std::string key = graphFingerprint(graph, options);
  std::shared_ptr<const CompiledProgram> program;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.programs.find(key);
    if (it != c.programs.end())
      program = it->second;
  }
  if (!program) {
    auto compiled = compileGraphCached(graph, options);
    if (!compiled)
      return compiled.status();
    program = std::make_shared<const CompiledProgram>(compiled.take());
    std::lock_guard<std::mutex> lock(c.mutex);
    c.programs.emplace(key, program);
  }
  return load(program, ctx);
}

Expected<std::shared_ptr<Executable>>
Executable::load(const std::shared_ptr<const CompiledProgram> &program,
                 const std::shared_ptr<rt::Context> &ctx) {
  if (!ctx)
    return Status::error("Executable::load: no CUDA context given");
  if (!program)
    return Status::error("Executable::load: no program given");
  Caches &c = caches();
  std::shared_ptr<rt::Module> module;
  auto moduleKey = std::make_pair(static_cast<const void *>(ctx.get()),
                                  std::hash<std::string>()(program->ptx));
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.modules.find(moduleKey);
    if (it != c.modules.end())
      module = it->second;
  }
  if (!module && !program->launches.empty()) {
    auto loaded = rt::Module::loadPTX(ctx, program->ptx);
    if (!loaded)
      return loaded.status();
    module = std::make_shared<rt::Module>(loaded.take());
    std::lock_guard<std::mutex> lock(c.mutex);
    c.modules.emplace(moduleKey, module);
  }

  auto exe = std::shared_ptr<Executable>(new Executable());
  exe->ctx_ = ctx;
  exe->program_ = program;
  for (const KernelLaunchPlan &plan : program->launches) {
    auto kernel = module->kernel(plan.name);
    if (!kernel)
      return kernel.status();
    int64_t cap = 0;
    if (plan.rowLoop) {
      // A row-loop kernel is correct with any grid; where the driver cannot
      // say what fits, it gets one CTA a row block.
      auto perSM = kernel->activeBlocksPerSM(static_cast<unsigned>(plan.blockSize()),
                                             static_cast<unsigned>(plan.sharedBytes));
      if (perSM && *perSM > 0)
        cap = static_cast<int64_t>(*perSM) * ctx->info().smCount;
    }
    // Clusters past the portable 8 CTAs (row-cluster up to 16) launch only
    // once the kernel has opted in.
    if (plan.clusterM > 8)
      if (Status s = kernel->allowNonPortableClusterSize(); !s.ok())
        return s;
    exe->gridCaps_.push_back(cap);
    // Split k: the counters start at zero; each launch leaves them so.
    rt::DeviceBuffer workspace;
    if (plan.workspaceBytes > 0) {
      auto buffer = rt::DeviceBuffer::allocate(ctx, static_cast<size_t>(plan.workspaceBytes));
      if (!buffer)
        return buffer.status();
      workspace = buffer.take();
      if (Status s = workspace.fill(0); !s.ok())
        return s;
    }
    exe->workspaces_.push_back(std::move(workspace));
    exe->kernels_.push_back(kernel.take());
  }
  exe->numInputs_ = valuesOfKind(*program, ProgramValue::Kind::Input).size();
  exe->numOutputs_ = valuesOfKind(*program, ProgramValue::Kind::Output).size();
  exe->temporaries_.resize(program->values.size());
  exe->donorOf_.assign(exe->numOutputs_, -1);
  for (const ProgramValue &v : program->values) {
    exe->valueBytes_.push_back(byteSizeOf(v));
    exe->valueElements_.push_back(numElements(v.shape));
    if (v.inPlaceOf >= 0 && v.index < static_cast<int>(exe->donorOf_.size()))
      exe->donorOf_[v.index] = program->values[v.inPlaceOf].index;
  }
  for (size_t i = 0; i < program->values.size(); ++i) {
    const ProgramValue &v = program->values[i];
    if (v.kind != ProgramValue::Kind::Temporary)
      continue;
    auto buffer = rt::DeviceBuffer::allocate(ctx, byteSizeOf(v));
    if (!buffer)
      return buffer.status();
    exe->temporaries_[i] = buffer.take();
  }
  return exe;
}

Status Executable::run(const std::vector<const rt::DeviceBuffer *> &inputs,
                       const std::vector<rt::DeviceBuffer *> &outputs,
                       rt::Stream &stream) {
  const CompiledProgram &p = *program_;
  size_t numInputs = numInputs_, numOutputs = numOutputs_;
  if (inputs.size() != numInputs || outputs.size() != numOutputs)
    return Status::error("graph '" + p.name + "' takes " + std::to_string(numInputs) +
                         " inputs and " + std::to_string(numOutputs) + " outputs, got " +
                         std::to_string(inputs.size()) + " and " +
                         std::to_string(outputs.size()));
  // Kernels read their inputs while other CTAs write their outputs (rope
  // reads the columns another thread writes; readonly-inputs promises the
  // compiler no overlap): an output may not share a buffer with an input
  // or another output, except an update_slice's with its input (which no
  // kernel reads: the donated buffer is updated in place).
  for (size_t o = 0; o < outputs.size(); ++o) {
    if (!outputs[o] || outputs[o]->devicePtr() == 0)
      continue; // (reported below)
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i] && inputs[i]->devicePtr() == outputs[o]->devicePtr() &&
          donorOf_[o] != static_cast<int>(i))
        return Status::error("output " + std::to_string(o) + " of graph '" + p.name +
                             "' is in the buffer of input " + std::to_string(i) +
                             ": tilec's kernels do not run in place (but for "
                             "update_slice's buffers); give the output its own buffer");
    for (size_t other = 0; other < o; ++other)
      if (outputs[other] && outputs[other]->devicePtr() == outputs[o]->devicePtr())
        return Status::error("outputs " + std::to_string(other) + " and " + std::to_string(o) +
                             " of graph '" + p.name + "' share one buffer");
  }
  // (The per-call tables are a thread's own, reused: a run allocates
  // nothing on the host once they have held its program's sizes.)
  thread_local std::vector<uint64_t> pointers;
  thread_local std::vector<const rt::DeviceBuffer *> buffers;
  pointers.assign(p.values.size(), 0);
  buffers.assign(p.values.size(), nullptr);
  for (size_t i = 0; i < p.values.size(); ++i) {
    const ProgramValue &v = p.values[i];
    const rt::DeviceBuffer *buffer =
        v.kind == ProgramValue::Kind::Input    ? inputs[v.index]
        : v.kind == ProgramValue::Kind::Output ? outputs[v.index]
                                               : &temporaries_[i];
    const char *what = v.kind == ProgramValue::Kind::Input ? "input" : "output";
    if (!buffer || buffer->devicePtr() == 0)
      return Status::error(std::string(what) + " " + std::to_string(v.index) +
                           " of graph '" + p.name + "' has no device buffer");
    if (static_cast<int64_t>(buffer->size()) < valueBytes_[i])
      return Status::error(std::string(what) + " " + std::to_string(v.index) + " of graph '" +
                           p.name + "' needs " + std::to_string(valueBytes_[i]) +
                           " bytes for " + dtypeName(v.dtype) + " " + shapeString(v.shape) +
                           ", its buffer has " + std::to_string(buffer->size()));
    pointers[i] = buffer->devicePtr();
    buffers[i] = buffer;
  }
  // Outputs updated in place (update_slice): the input's contents first,
  // unless the caller donated the input's buffer as the output.
  for (size_t i = 0; i < p.values.size(); ++i) {
    const ProgramValue &v = p.values[i];
    if (v.inPlaceOf >= 0 && pointers[v.inPlaceOf] != outputs[v.index]->devicePtr())
      if (Status s = outputs[v.index]->copyFromDeviceAsync(*buffers[v.inPlaceOf], valueBytes_[i],
                                                           stream);
          !s.ok())
        return s;
  }
  thread_local rt::KernelArgs args;
  for (size_t k = 0; k < kernels_.size(); ++k) {
    const KernelLaunchPlan &plan = p.launches[k];
    args.clear();
    for (const KernelBuffer &b : plan.buffers) {
      // A memref descriptor: allocated and aligned pointers, offset, sizes,
      // strides.
      uint64_t ptr = pointers[b.value];
      args.addPointer(ptr);
      args.addPointer(ptr);
      args.addI64(0);
      int64_t numel = valueElements_[b.value];
      switch (b.kind) {
      case KernelBuffer::Kind::Rows:
        args.addI64(numel / b.cols);
        args.addI64(b.cols);
        args.addI64(b.cols);
        args.addI64(1);
        break;
      case KernelBuffer::Kind::SharedVector:
        args.addI64(b.cols);
        args.addI64(1);
        break;
      case KernelBuffer::Kind::Scalar:
        break;
      case KernelBuffer::Kind::StridedRows:
        for (int64_t d : b.dims)
          args.addI64(d);
        args.addI64(b.dims[1] * b.dims[2]);
        args.addI64(b.dims[2]);
        args.addI64(1);
        break;
      }
    }
    if (plan.workspaceBytes > 0)
      args.addPointer(workspaces_[k].devicePtr());
    for (const TensorMapPlan &t : plan.tensorMaps) {
      const KernelBuffer &b = plan.buffers[t.buffer];
      DType dtype = p.values[b.value].dtype;
      rt::TensorMap map;
      if (Status s = rt::encodeTensorMap(map,
                                         dtype == DType::BF16  ? rt::TensorMapElement::BF16
                                         : dtype == DType::F16 ? rt::TensorMapElement::F16
                                                               : rt::TensorMapElement::F32,
                                         pointers[b.value], t.dims, t.box);
          !s.ok())
        return Status::error("kernel " + plan.name + ": " + s.message());
      args.addBytes(&map, sizeof map);
    }
    int64_t ctas = plan.gridSize();
    // Persistent: one CTA an SM at most, whole clusters.
    if (plan.persistent && ctx_->info().smCount >= plan.clusterM)
      ctas = std::min<int64_t>(ctas, ctx_->info().smCount / plan.clusterM * plan.clusterM);
    if (gridCaps_[k] > 0)
      ctas = std::min(ctas, gridCaps_[k]);
    // A partial cluster would fail the launch (.reqnctapercluster).
    if (ctas % plan.clusterM != 0)
      return Status::error("internal error: kernel " + plan.name + " launches " +
                           std::to_string(ctas) + " CTAs, not whole clusters of " +
                           std::to_string(plan.clusterM));
    rt::Dim3 grid{static_cast<unsigned>(ctas), 1, 1};
    rt::Dim3 block{static_cast<unsigned>(plan.blockSize()), 1, 1};
    if (Status s = kernels_[k].launch(grid, block, static_cast<unsigned>(plan.sharedBytes),
                                      stream, args, plan.dependentLaunch);
        !s.ok())
      return s;
  }
  // Outputs returned as copies of an input or of another output.
  for (size_t i = 0; i < p.values.size(); ++i) {
    const ProgramValue &v = p.values[i];
    if (v.copyOf >= 0)
      if (Status s = outputs[v.index]->copyFromDeviceAsync(*buffers[v.copyOf], valueBytes_[i],
                                                           stream);
          !s.ok())
        return s;
  }
  return Status::success();
}

Expected<std::vector<HostTensor>> Executable::runOnHost(const std::vector<HostTensor> &inputs,
                                                        rt::Stream &stream) {
  const CompiledProgram &p = *program_;
  std::vector<rt::DeviceBuffer> inBuffers, outBuffers;
  std::vector<const ProgramValue *> inValues = valuesOfKind(p, ProgramValue::Kind::Input);
  std::vector<const ProgramValue *> outValues = valuesOfKind(p, ProgramValue::Kind::Output);
  if (inputs.size() != inValues.size())
    return Status::error("graph '" + p.name + "' takes " + std::to_string(inValues.size()) +
                         " inputs, got " + std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].shape != inValues[i]->shape || inputs[i].dtype != inValues[i]->dtype)
      return Status::error("input " + std::to_string(i) + " of graph '" + p.name +
                           "' must be " + dtypeName(inValues[i]->dtype) + " " +
                           shapeString(inValues[i]->shape) + ", got " +
                           dtypeName(inputs[i].dtype) + " " + shapeString(inputs[i].shape));
    auto buffer = rt::DeviceBuffer::allocate(ctx_, inputs[i].byteSize());
    if (!buffer)
      return buffer.status();
    std::vector<uint8_t> bytes = inputs[i].toBytes();
    if (Status s = buffer->copyFromHost(bytes.data(), bytes.size()); !s.ok())
      return s;
    inBuffers.push_back(buffer.take());
  }
  for (const ProgramValue *v : outValues) {
    auto buffer = rt::DeviceBuffer::allocate(ctx_, byteSizeOf(*v));
    if (!buffer)
      return buffer.status();
    // 0xFF bytes are NaN in every float type: unwritten outputs show up.
    if (Status s = buffer->fill(0xFF); !s.ok())
      return s;
    outBuffers.push_back(buffer.take());
  }
  std::vector<const rt::DeviceBuffer *> ins;
  std::vector<rt::DeviceBuffer *> outs;
  for (auto &b : inBuffers)
    ins.push_back(&b);
  for (auto &b : outBuffers)
    outs.push_back(&b);
  if (Status s = run(ins, outs, stream); !s.ok())
    return s;
  if (Status s = stream.synchronize(); !s.ok())
    return s;
  std::vector<HostTensor> results;
  for (size_t i = 0; i < outValues.size(); ++i) {
    std::vector<uint8_t> bytes(outBuffers[i].size());
    if (Status s = outBuffers[i].copyToHost(bytes.data(), bytes.size()); !s.ok())
      return s;
    results.push_back(HostTensor::fromBytes(outValues[i]->shape, outValues[i]->dtype, bytes.data()));
  }
  return results;
}

} // namespace tilec
