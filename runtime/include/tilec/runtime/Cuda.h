// The CUDA driver API, reached through dlopen("libcuda.so.1") so that tilec
// binaries start (and say plainly that no GPU is present) on machines
// without a driver.
#pragma once

#include "tilec/Status.h"

#include <cstddef>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tilec::rt {

/// Loads libcuda.so.1 and calls cuInit once. The error says "no CUDA driver"
/// (with dlerror) or "no CUDA device" (with the driver's error name).
Status initDriver();

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

struct DeviceInfo {
  std::string name;
  int ordinal = 0;
  int smCount = 0;
  int computeMajor = 0, computeMinor = 0;
  size_t totalMemory = 0;
  size_t sharedMemPerBlockOptin = 0;
};

class Stream;

/// A primary context on one device, made current on the calling thread.
class Context {
public:
  static Expected<std::shared_ptr<Context>> create(int device = 0);
  ~Context();
  const DeviceInfo &info() const { return info_; }
  /// Makes this context current on the calling thread.
  Status makeCurrent() const;
  void *handle() const { return ctx_; }

private:
  Context() = default;
  void *ctx_ = nullptr; // CUcontext
  int device_ = 0;
  DeviceInfo info_;
};

/// Owns device memory (cuMemAlloc / cuMemFree). Move-only.
class DeviceBuffer {
public:
  static Expected<DeviceBuffer> allocate(const std::shared_ptr<Context> &ctx,
                                         size_t bytes);
  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer();

  uint64_t devicePtr() const { return ptr_; }
  size_t size() const { return bytes_; }
  /// Synchronous copies; `bytes` must not exceed size().
  Status copyFromHost(const void *src, size_t bytes);
  Status copyToHost(void *dst, size_t bytes) const;
  /// Sets every byte to `value` (e.g. 0xFF poisons floats with NaN).
  Status fill(uint8_t value);
  /// Asynchronous device-to-device copy of `bytes` from `src` on `stream`.
  Status copyFromDeviceAsync(const DeviceBuffer &src, size_t bytes, Stream &stream);

private:
  std::shared_ptr<Context> ctx_;
  uint64_t ptr_ = 0;
  size_t bytes_ = 0;
};

class Stream {
public:
  static Expected<std::unique_ptr<Stream>>
  create(const std::shared_ptr<Context> &ctx);
  ~Stream();
  Status synchronize();
  void *handle() const { return stream_; }

private:
  Stream() = default;
  std::shared_ptr<Context> ctx_;
  void *stream_ = nullptr; // CUstream
};

/// Device-side timing: record two events on a stream, then elapsedMs.
class Event {
public:
  static Expected<std::unique_ptr<Event>>
  create(const std::shared_ptr<Context> &ctx);
  ~Event();
  Status record(Stream &stream);
  /// Milliseconds from `start` to `end` (both recorded); waits for `end`.
  static Expected<float> elapsedMs(Event &start, Event &end);

private:
  Event() = default;
  std::shared_ptr<Context> ctx_;
  void *event_ = nullptr; // CUevent
};

/// Kernel parameters, packed in order as the compiled signature expects.
class KernelArgs {
public:
  void addPointer(uint64_t devicePtr) { addSlot(devicePtr); }
  void addI64(int64_t value) { addSlot(static_cast<uint64_t>(value)); }
  void addI32(int32_t value) { addRaw(&value, sizeof value); }
  /// A by-value parameter such as a TensorMap (copied here).
  void addBytes(const void *data, size_t bytes) { addRaw(data, bytes); }
  /// Pointers to each packed argument, as cuLaunchKernel takes them. Valid
  /// until the next add.
  std::vector<void *> pointers();
  /// The same in an array the KernelArgs keeps (null when there are no
  /// arguments): no allocation once its capacity suffices. Valid until the
  /// next add or clear.
  void **argumentArray();
  size_t count() const { return offsets_.size(); }
  /// Forgets the arguments and keeps the memory: a KernelArgs reused for
  /// each launch packs without allocating (the launch path of the small
  /// shapes is the host's).
  void clear() {
    storage_.clear();
    offsets_.clear();
  }

private:
  void addRaw(const void *data, size_t bytes);
  /// One 8-byte argument (most of a launch's: the memref descriptors).
  void addSlot(uint64_t value) {
    offsets_.push_back(storage_.size());
    storage_.push_back(value);
  }
  std::vector<uint64_t> storage_; // 8-byte slots keep every arg aligned
  std::vector<size_t> offsets_;   // slot index of each argument
  std::vector<void *> array_;     // argumentArray()'s
};

/// A CUtensorMap (TMA descriptor): 128 opaque bytes the driver writes and
/// a kernel takes by value.
struct alignas(64) TensorMap {
  uint64_t words[16] = {};
};

enum class TensorMapElement { F16, BF16, F32 };

/// Describes the row-major tensor at `devicePtr` (dims outer first) for
/// TMA copies of `box` elements (outer first) into shared memory in the
/// 128-byte swizzle, zero-filled past the tensor's edges
/// (cuTensorMapEncodeTiled). The innermost box row must be 128 bytes or
/// less and every row 16-byte aligned; the driver's refusal is reported
/// with the tensor's description.
Status encodeTensorMap(TensorMap &map, TensorMapElement element, uint64_t devicePtr,
                       const std::vector<int64_t> &dims, const std::vector<int64_t> &box);

class Module;

class Kernel {
public:
  const std::string &name() const { return name_; }
  /// Launches asynchronously on `stream`; checks the launch's own error.
  /// `dependentLaunch`: with programmatic stream serialization (the kernel
  /// may start before the previous kernel in the stream has finished), for
  /// kernels that execute griddepcontrol.wait before touching memory (tilec
  /// compiles them so for sm_90+). Plain launch order where the driver
  /// lacks cuLaunchKernelEx or TILEC_DEPENDENT_LAUNCH=0 is set.
  Status launch(Dim3 grid, Dim3 block, unsigned dynamicSharedBytes,
                Stream &stream, KernelArgs &args, bool dependentLaunch = false) const;
  /// CTAs of `blockSize` threads and `dynamicSharedBytes` of dynamic shared
  /// memory that one SM holds at once (the driver's occupancy calculator).
  Expected<int> activeBlocksPerSM(unsigned blockSize, unsigned dynamicSharedBytes) const;
  /// Lets the kernel launch in clusters of more than 8 CTAs (sm_90's
  /// non-portable sizes, up to 16: cuFuncSetAttribute
  /// NON_PORTABLE_CLUSTER_SIZE_ALLOWED); a driver that refuses says so.
  Status allowNonPortableClusterSize() const;

private:
  friend class Module;
  std::string name_;
  void *function_ = nullptr; // CUfunction
  std::shared_ptr<void> module_; // keeps the CUmodule alive
  // Dynamic shared memory the function has opted in to (shared by copies of
  // this Kernel: one driver call per size, not one per launch).
  std::shared_ptr<std::atomic<unsigned>> sharedOptIn_ =
      std::make_shared<std::atomic<unsigned>>(0);
};

/// A PTX module JIT-compiled by the driver (cuModuleLoadDataEx). A failed
/// load's error carries the driver's JIT error log.
class Module {
public:
  static Expected<Module> loadPTX(const std::shared_ptr<Context> &ctx,
                                  const std::string &ptx);
  Expected<Kernel> kernel(const std::string &name) const;
  /// The JIT info log of a successful load (may be empty).
  const std::string &infoLog() const { return infoLog_; }

private:
  std::shared_ptr<Context> ctx_;
  std::shared_ptr<void> module_; // CUmodule, unloaded by the deleter
  std::string infoLog_;
};

} // namespace tilec::rt
