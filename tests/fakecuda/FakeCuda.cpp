// A stand-in CUDA driver (libcuda.so.1) for tests and host-side
// measurements on machines without a GPU: the entry points tilec's runtime
// loads (runtime/lib/DriverLoader.h), with "device memory" in host memory,
// modules that are the PTX's entry signatures, and launches that run
// nothing but are recorded (kernel, grid, block, shared bytes, dependent
// launch, each parameter's bytes as the PTX declares them). Events read
// the host clock, so a timer around launches measures the host's side of
// the launch path alone.
//
// Tests reach it through the tilecFake* functions (dlopen it with
// RTLD_NOLOAD once the runtime has loaded it): the launches so far, and a
// driver call made to fail with a given result (and, for
// cuModuleLoadDataEx, an error log).
//
// Only for tests: never installed, found by LD_LIBRARY_PATH.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

using CUresult = int;
constexpr CUresult kSuccess = 0, kInvalidValue = 1, kNotFound = 500;

struct Entry {
  std::string name;
  std::vector<size_t> paramBytes;
};

struct Module {
  std::vector<Entry> entries;
};

struct Launch {
  std::string kernel;
  unsigned grid[3], block[3], sharedBytes;
  bool dependent;
  std::vector<std::vector<uint8_t>> params;
};

// The last kRing launches are kept (a benchmark launches millions), each
// slot's buffers reused.
constexpr size_t kRing = 64;

struct State {
  std::mutex mutex;
  std::vector<Launch> ring = std::vector<Launch>(kRing);
  size_t launches = 0; // all so far
  std::map<std::string, CUresult> failures;
  std::string jitLog;
  std::map<uintptr_t, size_t> allocations;
  std::atomic<bool> anyFailure{false};
} state;

CUresult failure(const char *fn) {
  // (No lookup while nothing is made to fail: a benchmark's launches
  // measure the caller's side, not this.)
  if (!state.anyFailure.load(std::memory_order_relaxed))
    return kSuccess;
  std::lock_guard<std::mutex> lock(state.mutex);
  auto it = state.failures.find(fn);
  return it == state.failures.end() ? kSuccess : it->second;
}

/// The bytes of one `.param` declaration: `.u64 name`, `.align 64 .b8
/// name[128]`, ...
size_t paramBytes(const std::string &decl) {
  auto elementBytes = [&]() -> size_t {
    for (auto [bits, bytes] : {std::pair<const char *, size_t>{"64", 8}, {"32", 4}, {"16", 2}})
      for (const char *kind : {".u", ".s", ".b", ".f"})
        if (decl.find(std::string(kind) + bits + " ") != std::string::npos)
          return bytes;
    return 1;
  };
  size_t open = decl.find('['), close = decl.find(']');
  if (open != std::string::npos && close != std::string::npos && close > open)
    return elementBytes() * std::strtoull(decl.c_str() + open + 1, nullptr, 10);
  return elementBytes();
}

/// The `.entry` signatures of a PTX module.
std::vector<Entry> parseEntries(const std::string &ptx) {
  std::vector<Entry> entries;
  for (size_t at = ptx.find(".entry "); at != std::string::npos;
       at = ptx.find(".entry ", at + 1)) {
    size_t nameStart = at + 7;
    size_t open = ptx.find('(', nameStart);
    size_t close = ptx.find(')', open);
    if (open == std::string::npos || close == std::string::npos)
      break;
    Entry e;
    e.name = ptx.substr(nameStart, open - nameStart);
    while (!e.name.empty() && (e.name.back() == ' ' || e.name.back() == '\n'))
      e.name.pop_back();
    std::string params = ptx.substr(open + 1, close - open - 1);
    for (size_t p = params.find(".param"); p != std::string::npos;
         p = params.find(".param", p + 1)) {
      size_t end = params.find(',', p);
      e.paramBytes.push_back(paramBytes(params.substr(p, end == std::string::npos ? end : end - p) + " "));
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

CUresult record(const Entry *fn, const unsigned grid[3], const unsigned block[3],
                unsigned shared, bool dependent, void **params) {
  std::lock_guard<std::mutex> lock(state.mutex);
  Launch &l = state.ring[state.launches++ % kRing];
  l.kernel.assign(fn->name);
  std::memcpy(l.grid, grid, sizeof l.grid);
  std::memcpy(l.block, block, sizeof l.block);
  l.sharedBytes = shared;
  l.dependent = dependent;
  l.params.resize(fn->paramBytes.size());
  for (size_t i = 0; i < fn->paramBytes.size(); ++i) {
    const uint8_t *p = static_cast<const uint8_t *>(params[i]);
    l.params[i].assign(p, p + fn->paramBytes[i]);
  }
  return kSuccess;
}

struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void *hStream;
  struct Attribute {
    int id;
    char pad[4];
    union {
      char bytes[64];
      int programmaticStreamSerializationAllowed;
    } value;
  } *attrs;
  unsigned numAttrs;
};

} // namespace

#define FAKE(fn) extern "C" __attribute__((visibility("default"))) CUresult fn
#define FAIL_IF_ASKED(fn)                                                                          \
  if (CUresult r = failure(fn); r != kSuccess)                                                     \
  return r

FAKE(cuGetErrorName)(CUresult r, const char **name) {
  switch (r) {
  case 0: *name = "CUDA_SUCCESS"; return kSuccess;
  case 1: *name = "CUDA_ERROR_INVALID_VALUE"; return kSuccess;
  case 2: *name = "CUDA_ERROR_OUT_OF_MEMORY"; return kSuccess;
  case 218: *name = "CUDA_ERROR_INVALID_PTX"; return kSuccess;
  case 500: *name = "CUDA_ERROR_NOT_FOUND"; return kSuccess;
  case 700: *name = "CUDA_ERROR_ILLEGAL_ADDRESS"; return kSuccess;
  case 701: *name = "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"; return kSuccess;
  default: *name = nullptr; return kInvalidValue;
  }
}
FAKE(cuGetErrorString)(CUresult r, const char **text) {
  const char *name = nullptr;
  cuGetErrorName(r, &name);
  *text = name ? "the fake driver's error" : nullptr;
  return name ? kSuccess : kInvalidValue;
}
FAKE(cuInit)(unsigned) { return failure("cuInit"); }
FAKE(cuDeviceGetCount)(int *n) { *n = 1; return kSuccess; }
FAKE(cuDeviceGet)(int *d, int i) { *d = i; return i == 0 ? kSuccess : kInvalidValue; }
FAKE(cuDeviceGetName)(char *name, int len, int) {
  std::strncpy(name, "tilec fake driver (sm_90, 132 SMs)", len);
  return kSuccess;
}
FAKE(cuDeviceGetAttribute)(int *v, int attribute, int) {
  switch (attribute) {
  case 16: *v = 132; return kSuccess;        // MULTIPROCESSOR_COUNT
  case 75: *v = 9; return kSuccess;          // COMPUTE_CAPABILITY_MAJOR
  case 76: *v = 0; return kSuccess;          // ..._MINOR
  case 97: *v = 227 * 1024; return kSuccess; // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
  default: return kInvalidValue;
  }
}
FAKE(cuDeviceTotalMem_v2)(size_t *bytes, int) { *bytes = size_t(141) << 30; return kSuccess; }
FAKE(cuDevicePrimaryCtxRetain)(void **ctx, int) {
  static int context;
  *ctx = &context;
  return kSuccess;
}
FAKE(cuDevicePrimaryCtxRelease_v2)(int) { return kSuccess; }
FAKE(cuCtxSetCurrent)(void *) { return kSuccess; }
FAKE(cuCtxSynchronize)() { return failure("cuCtxSynchronize"); }
FAKE(cuMemAlloc_v2)(uint64_t *ptr, size_t bytes) {
  FAIL_IF_ASKED("cuMemAlloc_v2");
  void *p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p)
    return 2;
  std::lock_guard<std::mutex> lock(state.mutex);
  state.allocations[reinterpret_cast<uintptr_t>(p)] = bytes;
  *ptr = reinterpret_cast<uintptr_t>(p);
  return kSuccess;
}
FAKE(cuMemFree_v2)(uint64_t ptr) {
  std::lock_guard<std::mutex> lock(state.mutex);
  if (!state.allocations.erase(ptr))
    return kInvalidValue;
  std::free(reinterpret_cast<void *>(ptr));
  return kSuccess;
}
FAKE(cuMemcpyHtoD_v2)(uint64_t dst, const void *src, size_t n) {
  std::memcpy(reinterpret_cast<void *>(dst), src, n);
  return kSuccess;
}
FAKE(cuMemcpyDtoH_v2)(void *dst, uint64_t src, size_t n) {
  std::memcpy(dst, reinterpret_cast<void *>(src), n);
  return kSuccess;
}
FAKE(cuMemsetD8_v2)(uint64_t dst, unsigned char v, size_t n) {
  std::memset(reinterpret_cast<void *>(dst), v, n);
  return kSuccess;
}
FAKE(cuMemcpyDtoDAsync_v2)(uint64_t dst, uint64_t src, size_t n, void *) {
  std::memmove(reinterpret_cast<void *>(dst), reinterpret_cast<void *>(src), n);
  return kSuccess;
}
FAKE(cuModuleLoadDataEx)(void **module, const void *ptx, unsigned n, int *options,
                         void **values) {
  if (CUresult r = failure("cuModuleLoadDataEx"); r != kSuccess) {
    // The error log the caller asked for (CU_JIT_ERROR_LOG_BUFFER = 5, its
    // size 6), as the real driver fills it.
    char *log = nullptr;
    size_t size = 0;
    for (unsigned i = 0; i < n; ++i) {
      if (options[i] == 5)
        log = static_cast<char *>(values[i]);
      if (options[i] == 6)
        size = reinterpret_cast<uintptr_t>(values[i]);
    }
    std::lock_guard<std::mutex> lock(state.mutex);
    if (log && size > 0) {
      std::strncpy(log, state.jitLog.c_str(), size - 1);
      log[size - 1] = '\0';
    }
    return r;
  }
  *module = new Module{parseEntries(static_cast<const char *>(ptx))};
  return kSuccess;
}
FAKE(cuModuleUnload)(void *module) {
  delete static_cast<Module *>(module);
  return kSuccess;
}
FAKE(cuModuleGetFunction)(void **fn, void *module, const char *name) {
  for (Entry &e : static_cast<Module *>(module)->entries)
    if (e.name == name) {
      *fn = &e;
      return kSuccess;
    }
  return kNotFound;
}
FAKE(cuFuncSetAttribute)(void *, int, int) { return kSuccess; }
FAKE(cuLaunchKernel)(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                     unsigned bz, unsigned shared, void *, void **params, void **) {
  FAIL_IF_ASKED("cuLaunchKernel");
  unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  return record(static_cast<Entry *>(fn), grid, block, shared, false, params);
}
FAKE(cuLaunchKernelEx)(const LaunchConfig *c, void *fn, void **params, void **) {
  FAIL_IF_ASKED("cuLaunchKernelEx");
  bool dependent = false;
  for (unsigned i = 0; i < c->numAttrs; ++i)
    dependent |= c->attrs[i].id == 6 && c->attrs[i].value.programmaticStreamSerializationAllowed;
  unsigned grid[3] = {c->gridDimX, c->gridDimY, c->gridDimZ};
  unsigned block[3] = {c->blockDimX, c->blockDimY, c->blockDimZ};
  return record(static_cast<Entry *>(fn), grid, block, c->sharedMemBytes, dependent, params);
}
FAKE(cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *n, void *, int, size_t) {
  *n = 4;
  return kSuccess;
}
FAKE(cuTensorMapEncodeTiled)(void *map, int, unsigned, void *, const unsigned long long *,
                             const unsigned long long *, const unsigned *, const unsigned *, int,
                             int, int, int) {
  std::memset(map, 0, 128);
  return kSuccess;
}
FAKE(cuStreamCreate)(void **s, unsigned) {
  static int stream;
  *s = &stream;
  return kSuccess;
}
FAKE(cuStreamDestroy_v2)(void *) { return kSuccess; }
FAKE(cuStreamSynchronize)(void *) { return failure("cuStreamSynchronize"); }
FAKE(cuEventCreate)(void **e, unsigned) {
  *e = new std::chrono::steady_clock::time_point();
  return kSuccess;
}
FAKE(cuEventDestroy_v2)(void *e) {
  delete static_cast<std::chrono::steady_clock::time_point *>(e);
  return kSuccess;
}
FAKE(cuEventRecord)(void *e, void *) {
  *static_cast<std::chrono::steady_clock::time_point *>(e) = std::chrono::steady_clock::now();
  return kSuccess;
}
FAKE(cuEventSynchronize)(void *) { return kSuccess; }
FAKE(cuEventElapsedTime)(float *ms, void *a, void *b) {
  *ms = std::chrono::duration<float, std::milli>(
            *static_cast<std::chrono::steady_clock::time_point *>(b) -
            *static_cast<std::chrono::steady_clock::time_point *>(a))
            .count();
  return kSuccess;
}

// The tests' side.
extern "C" __attribute__((visibility("default"))) int tilecFakeLaunchCount() {
  std::lock_guard<std::mutex> lock(state.mutex);
  return static_cast<int>(state.launches);
}

namespace {
/// Launch i (counted from the last clear), if it is among the last kRing.
const Launch *launchAt(int i) {
  if (i < 0 || static_cast<size_t>(i) >= state.launches ||
      static_cast<size_t>(i) + kRing < state.launches)
    return nullptr;
  return &state.ring[i % kRing];
}
} // namespace

/// Launch i: its kernel's name, grid and block (3 each), shared bytes,
/// dependent launch (0/1) and parameter count; false past the last (or
/// before the last 64).
extern "C" __attribute__((visibility("default"))) bool
tilecFakeLaunch(int i, const char **kernel, unsigned *grid, unsigned *block, unsigned *shared,
                int *dependent, int *params) {
  std::lock_guard<std::mutex> lock(state.mutex);
  const Launch *found = launchAt(i);
  if (!found)
    return false;
  const Launch &l = *found;
  *kernel = l.kernel.c_str();
  std::memcpy(grid, l.grid, sizeof l.grid);
  std::memcpy(block, l.block, sizeof l.block);
  *shared = l.sharedBytes;
  *dependent = l.dependent;
  *params = static_cast<int>(l.params.size());
  return true;
}
/// Parameter p of launch i: its bytes (as the PTX declares it).
extern "C" __attribute__((visibility("default"))) const uint8_t *
tilecFakeLaunchParam(int i, int p, size_t *bytes) {
  std::lock_guard<std::mutex> lock(state.mutex);
  const Launch *l = launchAt(i);
  if (!l || p < 0 || static_cast<size_t>(p) >= l->params.size())
    return nullptr;
  *bytes = l->params[p].size();
  return l->params[p].data();
}
/// Makes `fn` (its exported name) return `result` from now on (0: works
/// again); for cuModuleLoadDataEx, `log` is written into the error log.
extern "C" __attribute__((visibility("default"))) void tilecFakeFail(const char *fn, int result,
                                                                    const char *log) {
  std::lock_guard<std::mutex> lock(state.mutex);
  if (result == kSuccess)
    state.failures.erase(fn);
  else
    state.failures[fn] = result;
  state.anyFailure = !state.failures.empty();
  if (log)
    state.jitLog = log;
}
extern "C" __attribute__((visibility("default"))) void tilecFakeClearLaunches() {
  std::lock_guard<std::mutex> lock(state.mutex);
  state.launches = 0;
}
