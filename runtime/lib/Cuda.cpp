// The CUDA driver layer: libcuda.so.1 is dlopen'ed at run time (never linked)
// and every driver failure becomes a Status naming the operation.
#include "tilec/runtime/Cuda.h"

#include "DriverLoader.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

using namespace tilec;
using namespace tilec::rt;
using namespace tilec::rt::detail;

//===----------------------------------------------------------------------===//
// Driver loading
//===----------------------------------------------------------------------===//

namespace {

// One entry of the symbol table: the name to resolve (the _v2 one where the
// driver has it), an older name to fall back on, and where to store it.
struct Symbol {
  const char *name;
  const char *fallback;
  void *slot; // Address of a DriverApi function pointer.
};

template <typename Fn> void *slotOf(Fn &fn) {
  static_assert(sizeof(Fn) == sizeof(void *), "POSIX function pointers");
  return &fn;
}

} // namespace

Status tilec::rt::detail::loadDriverFrom(const char *path, DriverApi &api) {
  api = DriverApi();
  // RTLD_LOCAL keeps the driver's symbols out of the global namespace, so
  // nothing else in the process binds to them by accident.
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    return Status::error(std::string("no CUDA driver: ") + path +
                         " could not be loaded (" +
                         (why ? why : "unknown dlopen error") +
                         "); GPU execution is unavailable on this machine");
  }

  DriverApi loaded;
  const Symbol symbols[] = {
      {"cuGetErrorName", nullptr, slotOf(loaded.cuGetErrorName)},
      {"cuGetErrorString", nullptr, slotOf(loaded.cuGetErrorString)},
      {"cuInit", nullptr, slotOf(loaded.cuInit)},
      {"cuDeviceGetCount", nullptr, slotOf(loaded.cuDeviceGetCount)},
      {"cuDeviceGet", nullptr, slotOf(loaded.cuDeviceGet)},
      {"cuDeviceGetName", nullptr, slotOf(loaded.cuDeviceGetName)},
      {"cuDeviceGetAttribute", nullptr, slotOf(loaded.cuDeviceGetAttribute)},
      {"cuDeviceTotalMem_v2", nullptr, slotOf(loaded.cuDeviceTotalMem)},
      {"cuDevicePrimaryCtxRetain", nullptr,
       slotOf(loaded.cuDevicePrimaryCtxRetain)},
      // The _v2 release only exists from CUDA 11 on; the old one behaves the
      // same for a retained primary context.
      {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease",
       slotOf(loaded.cuDevicePrimaryCtxRelease)},
      {"cuCtxSetCurrent", nullptr, slotOf(loaded.cuCtxSetCurrent)},
      {"cuCtxSynchronize", nullptr, slotOf(loaded.cuCtxSynchronize)},
      {"cuMemAlloc_v2", nullptr, slotOf(loaded.cuMemAlloc)},
      {"cuMemFree_v2", nullptr, slotOf(loaded.cuMemFree)},
      {"cuMemcpyHtoD_v2", nullptr, slotOf(loaded.cuMemcpyHtoD)},
      {"cuMemcpyDtoH_v2", nullptr, slotOf(loaded.cuMemcpyDtoH)},
      {"cuMemsetD8_v2", nullptr, slotOf(loaded.cuMemsetD8)},
      {"cuMemcpyDtoDAsync_v2", nullptr, slotOf(loaded.cuMemcpyDtoDAsync)},
      {"cuModuleLoadDataEx", nullptr, slotOf(loaded.cuModuleLoadDataEx)},
      {"cuModuleUnload", nullptr, slotOf(loaded.cuModuleUnload)},
      {"cuModuleGetFunction", nullptr, slotOf(loaded.cuModuleGetFunction)},
      {"cuFuncSetAttribute", nullptr, slotOf(loaded.cuFuncSetAttribute)},
      {"cuLaunchKernel", nullptr, slotOf(loaded.cuLaunchKernel)},
      {"cuStreamCreate", nullptr, slotOf(loaded.cuStreamCreate)},
      {"cuStreamDestroy_v2", nullptr, slotOf(loaded.cuStreamDestroy)},
      {"cuStreamSynchronize", nullptr, slotOf(loaded.cuStreamSynchronize)},
      {"cuEventCreate", nullptr, slotOf(loaded.cuEventCreate)},
      {"cuEventDestroy_v2", nullptr, slotOf(loaded.cuEventDestroy)},
      {"cuEventRecord", nullptr, slotOf(loaded.cuEventRecord)},
      {"cuEventSynchronize", nullptr, slotOf(loaded.cuEventSynchronize)},
      {"cuEventElapsedTime", nullptr, slotOf(loaded.cuEventElapsedTime)},
  };
  for (const Symbol &sym : symbols) {
    dlerror(); // A stale error would otherwise be reported for this symbol.
    void *fn = dlsym(handle, sym.name);
    if (!fn && sym.fallback)
      fn = dlsym(handle, sym.fallback);
    if (!fn) {
      const char *why = dlerror();
      std::string message = std::string("unusable CUDA driver: ") + path +
                            " has no symbol '" + sym.name + "'";
      if (sym.fallback)
        message += std::string(" (nor '") + sym.fallback + "')";
      message += "; the driver is probably too old";
      if (why)
        message += std::string(" (") + why + ")";
      dlclose(handle);
      return Status::error(message);
    }
    // POSIX guarantees object and function pointers share a representation
    // (dlsym relies on it); memcpy avoids reading one as the other.
    std::memcpy(sym.slot, &fn, sizeof fn);
  }
  // Optional entry points.
  dlerror();
  if (void *fn = dlsym(handle, "cuTensorMapEncodeTiled"))
    std::memcpy(slotOf(loaded.cuTensorMapEncodeTiled), &fn, sizeof fn);
  if (void *fn = dlsym(handle, "cuOccupancyMaxActiveBlocksPerMultiprocessor"))
    std::memcpy(slotOf(loaded.cuOccupancyMaxActiveBlocksPerMultiprocessor), &fn, sizeof fn);
  if (void *fn = dlsym(handle, "cuLaunchKernelEx"))
    std::memcpy(slotOf(loaded.cuLaunchKernelEx), &fn, sizeof fn);
  loaded.handle = handle;
  api = loaded;
  return Status::success();
}

namespace {

// Written once under std::call_once in initDriver, read-only afterwards.
DriverApi driverApi;
Status driverStatus;

/// The loaded driver; only valid after initDriver() succeeded, which every
/// object holding a driver handle implies.
const DriverApi &api() { return driverApi; }

/// "CUDA_ERROR_X (description)" for a driver result.
std::string describe(CUresult result) {
  const char *name = nullptr;
  const char *text = nullptr;
  if (api().cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = nullptr;
  if (api().cuGetErrorString(result, &text) != CUDA_SUCCESS || !text)
    text = nullptr;
  std::string out =
      name ? std::string(name) : "CUDA error " + std::to_string(result);
  out += " (";
  out += text ? text : "unrecognized error code";
  out += ")";
  switch (result) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_LAUNCH_FAILED:
    out += ": a kernel faulted, and the CUDA context cannot be used again in this process "
           "(every later CUDA call reports this error)";
    break;
  default:
    break;
  }
  return out;
}

/// Success, or "<what> failed: CUDA_ERROR_X (description)".
Status check(CUresult result, const std::string &what) {
  if (result == CUDA_SUCCESS)
    return Status::success();
  return Status::error(what + " failed: " + describe(result));
}

/// initDriver() plus the check that an object was given a context; the
/// driver error comes first because it is the one that explains the rest.
Status requireContext(const std::shared_ptr<Context> &ctx, const char *what) {
  Status status = initDriver();
  if (!status.ok())
    return status;
  if (!ctx)
    return Status::error(std::string(what) + ": no CUDA context was given");
  return ctx->makeCurrent();
}

/// Deletes a CUmodule. Stored as the module's shared_ptr deleter so that the
/// context outlives every module and kernel that came from it; Kernel reaches
/// the context through it (std::get_deleter) to make it current.
struct ModuleUnloader {
  std::shared_ptr<Context> ctx;
  void operator()(void *module) const {
    // Errors are ignored: there is no one to report them to in a deleter.
    (void)ctx->makeCurrent();
    api().cuModuleUnload(static_cast<CUmodule>(module));
  }
};

} // namespace

Status tilec::rt::initDriver() {
  static std::once_flag once;
  std::call_once(once, [] {
    driverStatus = loadDriverFrom("libcuda.so.1", driverApi);
    if (!driverStatus.ok())
      return;
    CUresult result = driverApi.cuInit(0);
    if (result != CUDA_SUCCESS)
      driverStatus =
          Status::error("no CUDA device: cuInit failed: " + describe(result));
  });
  return driverStatus;
}

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

Expected<std::shared_ptr<Context>> Context::create(int device) {
  Status status = initDriver();
  if (!status.ok())
    return status;

  int count = 0;
  status = check(api().cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (!status.ok())
    return status;
  if (device < 0 || device >= count)
    return Status::error("CUDA device " + std::to_string(device) +
                         " does not exist (this machine has " +
                         std::to_string(count) + " CUDA device" +
                         (count == 1 ? "" : "s") + ")");

  CUdevice dev = 0;
  status = check(api().cuDeviceGet(&dev, device),
                 "cuDeviceGet(" + std::to_string(device) + ")");
  if (!status.ok())
    return status;

  // The primary context is the one the runtime API and other libraries
  // share, so tilec's allocations interoperate with theirs.
  std::shared_ptr<Context> ctx(new Context());
  CUcontext handle = nullptr;
  status =
      check(api().cuDevicePrimaryCtxRetain(&handle, dev),
            "cuDevicePrimaryCtxRetain(device " + std::to_string(device) + ")");
  if (!status.ok())
    return status;
  ctx->ctx_ = handle;
  ctx->device_ = dev;
  status = ctx->makeCurrent();
  if (!status.ok())
    return status;

  DeviceInfo &info = ctx->info_;
  info.ordinal = device;
  char name[256] = {};
  status = check(api().cuDeviceGetName(name, sizeof name - 1, dev),
                 "cuDeviceGetName");
  if (!status.ok())
    return status;
  info.name = name;

  struct {
    CUdevice_attribute attribute;
    const char *label;
    int *value;
  } attributes[] = {
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "MULTIPROCESSOR_COUNT",
       &info.smCount},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "COMPUTE_CAPABILITY_MAJOR",
       &info.computeMajor},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "COMPUTE_CAPABILITY_MINOR",
       &info.computeMinor},
  };
  for (auto &attr : attributes) {
    status = check(api().cuDeviceGetAttribute(attr.value, attr.attribute, dev),
                   std::string("cuDeviceGetAttribute(") + attr.label + ")");
    if (!status.ok())
      return status;
  }
  int optin = 0;
  status = check(
      api().cuDeviceGetAttribute(
          &optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev),
      "cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)");
  if (!status.ok())
    return status;
  info.sharedMemPerBlockOptin = static_cast<size_t>(optin);

  size_t total = 0;
  status = check(api().cuDeviceTotalMem(&total, dev), "cuDeviceTotalMem");
  if (!status.ok())
    return status;
  info.totalMemory = total;
  return ctx;
}

Context::~Context() {
  if (ctx_)
    api().cuDevicePrimaryCtxRelease(device_);
}

Status Context::makeCurrent() const {
  return check(api().cuCtxSetCurrent(static_cast<CUcontext>(ctx_)),
               "cuCtxSetCurrent");
}

//===----------------------------------------------------------------------===//
// DeviceBuffer
//===----------------------------------------------------------------------===//

Expected<DeviceBuffer>
DeviceBuffer::allocate(const std::shared_ptr<Context> &ctx, size_t bytes) {
  Status status = requireContext(ctx, "DeviceBuffer::allocate");
  if (!status.ok())
    return status;
  if (bytes == 0)
    return Status::error("cannot allocate 0 bytes");

  CUdeviceptr ptr = 0;
  status = check(api().cuMemAlloc(&ptr, bytes),
                 "cuMemAlloc(" + std::to_string(bytes) + " bytes)");
  if (!status.ok())
    return status;
  DeviceBuffer buffer;
  buffer.ctx_ = ctx;
  buffer.ptr_ = ptr;
  buffer.bytes_ = bytes;
  return buffer;
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : ctx_(std::move(other.ctx_)), ptr_(other.ptr_), bytes_(other.bytes_) {
  other.ptr_ = 0;
  other.bytes_ = 0;
}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this != &other) {
    // Swapping hands our old allocation to `other`, whose destructor frees
    // it with the right context.
    std::swap(ctx_, other.ctx_);
    std::swap(ptr_, other.ptr_);
    std::swap(bytes_, other.bytes_);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (!ptr_ || !ctx_)
    return;
  // A destructor cannot report failure; a failed free only leaks.
  (void)ctx_->makeCurrent();
  api().cuMemFree(ptr_);
}

Status DeviceBuffer::copyFromHost(const void *src, size_t bytes) {
  if (bytes > bytes_)
    return Status::error("copyFromHost: " + std::to_string(bytes) +
                         " bytes do not fit in a device buffer of " +
                         std::to_string(bytes_) + " bytes");
  if (bytes == 0)
    return Status::success();
  Status status = ctx_->makeCurrent();
  if (!status.ok())
    return status;
  return check(api().cuMemcpyHtoD(ptr_, src, bytes),
               "cuMemcpyHtoD(" + std::to_string(bytes) + " bytes)");
}

Status DeviceBuffer::copyToHost(void *dst, size_t bytes) const {
  if (bytes > bytes_)
    return Status::error("copyToHost: " + std::to_string(bytes) +
                         " bytes requested from a device buffer of " +
                         std::to_string(bytes_) + " bytes");
  if (bytes == 0)
    return Status::success();
  Status status = ctx_->makeCurrent();
  if (!status.ok())
    return status;
  return check(api().cuMemcpyDtoH(dst, ptr_, bytes),
               "cuMemcpyDtoH(" + std::to_string(bytes) + " bytes)");
}

Status DeviceBuffer::fill(uint8_t value) {
  if (bytes_ == 0)
    return Status::success();
  Status status = ctx_->makeCurrent();
  if (!status.ok())
    return status;
  return check(api().cuMemsetD8(ptr_, value, bytes_),
               "cuMemsetD8(" + std::to_string(bytes_) + " bytes)");
}

Status DeviceBuffer::copyFromDeviceAsync(const DeviceBuffer &src, size_t bytes,
                                         Stream &stream) {
  if (bytes > bytes_ || bytes > src.bytes_)
    return Status::error("device copy of " + std::to_string(bytes) +
                         " bytes exceeds a buffer (" + std::to_string(src.bytes_) +
                         " -> " + std::to_string(bytes_) + " bytes)");
  Status status = ctx_->makeCurrent();
  if (!status.ok())
    return status;
  return check(api().cuMemcpyDtoDAsync(ptr_, src.ptr_, bytes,
                                       static_cast<CUstream>(stream.handle())),
               "cuMemcpyDtoDAsync(" + std::to_string(bytes) + " bytes)");
}

//===----------------------------------------------------------------------===//
// Stream and Event
//===----------------------------------------------------------------------===//

Expected<std::unique_ptr<Stream>>
Stream::create(const std::shared_ptr<Context> &ctx) {
  Status status = requireContext(ctx, "Stream::create");
  if (!status.ok())
    return status;
  CUstream handle = nullptr;
  // Flags 0: a blocking stream, ordered with the synchronous cuMemcpy calls
  // DeviceBuffer makes on the legacy default stream.
  status = check(api().cuStreamCreate(&handle, 0), "cuStreamCreate");
  if (!status.ok())
    return status;
  std::unique_ptr<Stream> stream(new Stream());
  stream->ctx_ = ctx;
  stream->stream_ = handle;
  return stream;
}

Stream::~Stream() {
  if (!stream_)
    return;
  (void)ctx_->makeCurrent();
  api().cuStreamDestroy(static_cast<CUstream>(stream_));
}

Status Stream::synchronize() {
  Status status = ctx_->makeCurrent();
  if (!status.ok())
    return status;
  return check(api().cuStreamSynchronize(static_cast<CUstream>(stream_)),
               "cuStreamSynchronize");
}

Expected<std::unique_ptr<Event>>
Event::create(const std::shared_ptr<Context> &ctx) {
  Status status = requireContext(ctx, "Event::create");
  if (!status.ok())
    return status;
  CUevent handle = nullptr;
  // Flags 0 (not CU_EVENT_DISABLE_TIMING): these events exist for timing.
  status = check(api().cuEventCreate(&handle, 0), "cuEventCreate");
  if (!status.ok())
    return status;
  std::unique_ptr<Event> event(new Event());
  event->ctx_ = ctx;
  event->event_ = handle;
  return event;
}

Event::~Event() {
  if (!event_)
    return;
  (void)ctx_->makeCurrent();
  api().cuEventDestroy(static_cast<CUevent>(event_));
}

Status Event::record(Stream &stream) {
  Status status = ctx_->makeCurrent();
  if (!status.ok())
    return status;
  return check(api().cuEventRecord(static_cast<CUevent>(event_),
                                   static_cast<CUstream>(stream.handle())),
               "cuEventRecord");
}

Expected<float> Event::elapsedMs(Event &start, Event &end) {
  Status status = end.ctx_->makeCurrent();
  if (!status.ok())
    return status;
  status = check(api().cuEventSynchronize(static_cast<CUevent>(end.event_)),
                 "cuEventSynchronize");
  if (!status.ok())
    return status;
  float ms = 0;
  status =
      check(api().cuEventElapsedTime(&ms, static_cast<CUevent>(start.event_),
                                     static_cast<CUevent>(end.event_)),
            "cuEventElapsedTime");
  if (!status.ok())
    return status;
  return ms;
}

//===----------------------------------------------------------------------===//
// KernelArgs
//===----------------------------------------------------------------------===//

void KernelArgs::addRaw(const void *data, size_t bytes) {
  // Whole 8-byte slots keep every argument aligned for any scalar type; an
  // empty argument still gets a slot so that its pointer stays in bounds.
  size_t slots = std::max<size_t>(1, (bytes + 7) / 8);
  size_t offset = storage_.size();
  storage_.insert(storage_.end(), slots, 0);
  std::memcpy(&storage_[offset], data, bytes);
  offsets_.push_back(offset);
}

Status tilec::rt::encodeTensorMap(TensorMap &map, TensorMapElement element, uint64_t devicePtr,
                                  const std::vector<int64_t> &dims,
                                  const std::vector<int64_t> &box) {
  // (Described only for an error: maps are encoded at every GEMM launch.)
  auto what = [&] {
    auto list = [](const std::vector<int64_t> &v) {
      std::string text = "[";
      for (size_t i = 0; i < v.size(); ++i)
        text += (i ? ", " : "") + std::to_string(v[i]);
      return text + "]";
    };
    return "tensor " + list(dims) + " in boxes of " + list(box);
  };
  size_t rank = dims.size();
  if (rank == 0 || rank > 5 || box.size() != rank)
    return Status::error("a tensor map needs 1 to 5 dims and a box of the same rank, got " +
                         what());
  for (size_t d = 0; d < rank; ++d)
    if (dims[d] <= 0 || box[d] <= 0 || box[d] > 256)
      return Status::error("a tensor map needs positive dims and boxes of at most 256 "
                           "elements a dim, got " + what());
  if (Status s = initDriver(); !s.ok())
    return s;
  if (!api().cuTensorMapEncodeTiled)
    return Status::error("the CUDA driver has no cuTensorMapEncodeTiled (a CUDA 12 or newer "
                         "driver is needed for TMA kernels)");
  size_t elemBytes = element == TensorMapElement::F32 ? 4 : 2;
  int dataType = element == TensorMapElement::F16    ? 6  // CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                 : element == TensorMapElement::BF16 ? 9  // ..._BFLOAT16
                                                     : 7; // ..._FLOAT32
  // The driver takes everything innermost first, and the byte strides of
  // all but the innermost dim.
  unsigned long long globalDim[5], globalStride[4];
  unsigned boxDim[5], elementStride[5];
  unsigned long long stride = elemBytes;
  for (size_t i = 0; i < rank; ++i) {
    size_t d = rank - 1 - i;
    globalDim[i] = static_cast<unsigned long long>(dims[d]);
    boxDim[i] = static_cast<unsigned>(box[d]);
    elementStride[i] = 1;
    if (i > 0)
      globalStride[i - 1] = stride;
    stride *= globalDim[i];
  }
  constexpr int kInterleaveNone = 0, kSwizzle128B = 3, kL2Promote256B = 3, kOobZero = 0;
  CUresult result = api().cuTensorMapEncodeTiled(
      map.words, dataType, static_cast<unsigned>(rank), reinterpret_cast<void *>(devicePtr),
      globalDim, globalStride, boxDim, elementStride, kInterleaveNone, kSwizzle128B,
      kL2Promote256B, kOobZero);
  if (result == CUDA_SUCCESS)
    return Status::success();
  char address[32];
  std::snprintf(address, sizeof address, "0x%llx", static_cast<unsigned long long>(devicePtr));
  return check(result, "cuTensorMapEncodeTiled(" + what() + " of " + std::to_string(elemBytes) +
                           "-byte elements at " + address + ")");
}

std::vector<void *> KernelArgs::pointers() {
  void **array = argumentArray();
  return std::vector<void *>(array, array + offsets_.size());
}

void **KernelArgs::argumentArray() {
  array_.resize(offsets_.size());
  for (size_t i = 0; i < offsets_.size(); ++i)
    array_[i] = &storage_[offsets_[i]];
  return array_.empty() ? nullptr : array_.data();
}

//===----------------------------------------------------------------------===//
// Module and Kernel
//===----------------------------------------------------------------------===//

Expected<Module> Module::loadPTX(const std::shared_ptr<Context> &ctx,
                                 const std::string &ptx) {
  Status status = requireContext(ctx, "Module::loadPTX");
  if (!status.ok())
    return status;

  constexpr size_t logSize = 16 * 1024;
  std::vector<char> infoLog(logSize, '\0');
  std::vector<char> errorLog(logSize, '\0');
  CUjit_option options[] = {
      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_LOG_VERBOSE};
  // Size and flag options are passed by value, cast to a pointer.
  void *values[] = {
      infoLog.data(), reinterpret_cast<void *>(uintptr_t(logSize)),
      errorLog.data(), reinterpret_cast<void *>(uintptr_t(logSize)),
      reinterpret_cast<void *>(uintptr_t(1))};
  CUmodule handle = nullptr;
  CUresult result = api().cuModuleLoadDataEx(&handle, ptx.c_str(),
                                             sizeof options / sizeof options[0],
                                             options, values);
  // The driver writes NUL-terminated text, but bound the scan in case it
  // filled the buffer completely.
  auto logText = [](const std::vector<char> &log) {
    return std::string(log.data(), strnlen(log.data(), log.size()));
  };
  if (result != CUDA_SUCCESS) {
    std::string message = "PTX JIT failed: " + describe(result);
    std::string log = logText(errorLog);
    if (!log.empty())
      message += "\n" + log;
    return Status::error(message);
  }

  Module module;
  module.ctx_ = ctx;
  module.module_ = std::shared_ptr<void>(handle, ModuleUnloader{ctx});
  module.infoLog_ = logText(infoLog);
  return module;
}

Expected<Kernel> Module::kernel(const std::string &name) const {
  if (!module_)
    return Status::error("kernel '" + name +
                         "' requested from a module that is not loaded");
  Status status = ctx_->makeCurrent();
  if (!status.ok())
    return status;
  CUfunction function = nullptr;
  CUresult result = api().cuModuleGetFunction(
      &function, static_cast<CUmodule>(module_.get()), name.c_str());
  if (result != CUDA_SUCCESS)
    return Status::error("kernel '" + name +
                         "' not found in module: cuModuleGetFunction failed: " +
                         describe(result));
  Kernel kernel;
  kernel.name_ = name;
  kernel.function_ = function;
  kernel.module_ = module_;
  return kernel;
}

/// Makes the context of the module holding a kernel current; `what` (the
/// operation) and `name` go into the error, formatted only on failure.
static Status enterContext(const std::shared_ptr<void> &module, void *function,
                           const char *what, const std::string &name) {
  const ModuleUnloader *owner = module ? std::get_deleter<ModuleUnloader>(module) : nullptr;
  if (!function || !owner)
    return Status::error(std::string(what) + " of kernel '" + name +
                         "', which was not obtained from a loaded module");
  return owner->ctx->makeCurrent();
}

Expected<int> Kernel::activeBlocksPerSM(unsigned blockSize,
                                        unsigned dynamicSharedBytes) const {
  if (!api().cuOccupancyMaxActiveBlocksPerMultiprocessor)
    return Status::error("the CUDA driver has no cuOccupancyMaxActiveBlocksPerMultiprocessor");
  if (Status status = enterContext(module_, function_, "occupancy", name_); !status.ok())
    return status;
  int blocks = 0;
  Status status = check(api().cuOccupancyMaxActiveBlocksPerMultiprocessor(
                            &blocks, static_cast<CUfunction>(function_),
                            static_cast<int>(blockSize), dynamicSharedBytes),
                        "cuOccupancyMaxActiveBlocksPerMultiprocessor(kernel '" + name_ + "', " +
                            std::to_string(blockSize) + " threads)");
  if (!status.ok())
    return status;
  return blocks;
}

Status Kernel::allowNonPortableClusterSize() const {
  if (Status status = enterContext(module_, function_, "cluster opt-in", name_); !status.ok())
    return status;
  return check(api().cuFuncSetAttribute(static_cast<CUfunction>(function_),
                                        CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
               "cuFuncSetAttribute(kernel '" + name_ +
                   "', NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 1)");
}

/// TILEC_DEPENDENT_LAUNCH=0 launches every kernel in plain stream order (to
/// rule programmatic dependent launch out when chasing an ordering problem).
static bool dependentLaunchAllowed() {
  static const bool allowed = [] {
    const char *env = std::getenv("TILEC_DEPENDENT_LAUNCH");
    return !(env && std::string(env) == "0");
  }();
  return allowed;
}

Status Kernel::launch(Dim3 grid, Dim3 block, unsigned dynamicSharedBytes,
                      Stream &stream, KernelArgs &args, bool dependentLaunch) const {
  Status status = enterContext(module_, function_, "launch", name_);
  if (!status.ok())
    return status;

  auto fn = static_cast<CUfunction>(function_);
  // Above 48 KB (static and dynamic together) a kernel must opt in to its
  // dynamic shared memory; kernels with a few bytes of static shared memory
  // pass the limit just below 48 KB of dynamic memory.
  constexpr unsigned optInAbove = 47 * 1024;
  if (dynamicSharedBytes > optInAbove && dynamicSharedBytes > sharedOptIn_->load()) {
    status = check(api().cuFuncSetAttribute(
                       fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                       static_cast<int>(dynamicSharedBytes)),
                   "cuFuncSetAttribute(kernel '" + name_ +
                       "', MAX_DYNAMIC_SHARED_SIZE_BYTES = " +
                       std::to_string(dynamicSharedBytes) + ")");
    if (!status.ok())
      return status;
    sharedOptIn_->store(dynamicSharedBytes);
  }

  void **params = args.argumentArray();
  CUresult result;
  const bool early = dependentLaunch && api().cuLaunchKernelEx && dependentLaunchAllowed();
  if (early) {
    CUlaunchAttribute attribute{};
    attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attribute.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config{};
    config.gridDimX = grid.x, config.gridDimY = grid.y, config.gridDimZ = grid.z;
    config.blockDimX = block.x, config.blockDimY = block.y, config.blockDimZ = block.z;
    config.sharedMemBytes = dynamicSharedBytes;
    config.hStream = static_cast<CUstream>(stream.handle());
    config.attrs = &attribute;
    config.numAttrs = 1;
    result = api().cuLaunchKernelEx(&config, fn, params, nullptr);
  } else {
    result = api().cuLaunchKernel(fn, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                  dynamicSharedBytes, static_cast<CUstream>(stream.handle()),
                                  params, nullptr);
  }
  // (The message only on failure: a launch is on the small kernels' path.)
  if (result == CUDA_SUCCESS)
    return Status::success();
  auto dim = [](Dim3 d) {
    return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " +
           std::to_string(d.z) + ")";
  };
  return check(result, std::string(early ? "cuLaunchKernelEx('" : "cuLaunchKernel('") + name_ + "', grid " + dim(grid) +
                           ", block " + dim(block) + ", " +
                           std::to_string(dynamicSharedBytes) +
                           " bytes dynamic shared memory, " +
                           std::to_string(args.count()) + " arguments)");
}
