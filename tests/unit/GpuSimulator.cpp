#include "GpuSimulator.h"
#include "TileInterpreter.h"

#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/compiler/Internal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <condition_variable>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <unordered_map>

using namespace mlir;

namespace tilec::gpusim {
namespace {

constexpr int64_t kWarp = 32;

/// Device memory: a buffer's bytes. `exited`: a CTA's shared memory once
/// the CTA has returned (distributed shared memory may not read it then).
struct Memory {
  std::vector<uint8_t> bytes;
  std::string name;
  bool exited = false;
  int value = -1; // the program value it holds (device buffers)
};

/// A memref value: `shape` (row-major) of `elem` at byte `offset` of `mem`.
struct Desc {
  Memory *mem = nullptr;
  int64_t offset = 0;
  Type elem;
  SmallVector<int64_t> shape;
};

/// A cell: a long double, whose 64-bit significand holds every 64-bit
/// integer exactly (wgmma descriptors set bit 62 above an address's low
/// bits); floats are already rounded to their type.
using Cell = long double;

/// An SSA value: `width` cells a thread (a scalar 1, a vector its elements,
/// an LLVM struct its fields, a memref the index of its descriptor).
struct Val {
  int64_t width = 1;
  std::vector<Cell> cells; // [thread][cell]
};

using Mask = std::vector<uint8_t>;

Type elemOf(Type t) {
  if (auto s = llvm::dyn_cast<ShapedType>(t))
    return s.getElementType();
  return t;
}

int64_t widthOf(Type t) {
  if (auto v = llvm::dyn_cast<VectorType>(t))
    return v.getNumElements();
  if (auto s = llvm::dyn_cast<LLVM::LLVMStructType>(t))
    return s.getBody().size();
  return 1;
}

int64_t bytesOf(Type t) {
  if (t.isIndex())
    return 8;
  return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

int64_t intWidth(Type t) { return t.isIndex() ? 64 : t.getIntOrFloatBitWidth(); }

/// An integer result normalized to its type: i1 as 0/1, narrower types
/// sign-wrapped to their width.
Cell normInt(Type t, int64_t v) {
  int64_t w = intWidth(t);
  if (w == 1)
    return v & 1;
  if (w < 64) {
    uint64_t m = (uint64_t(1) << w) - 1;
    uint64_t u = uint64_t(v) & m;
    if (u >> (w - 1))
      u |= ~m;
    return static_cast<Cell>(static_cast<int64_t>(u));
  }
  return static_cast<Cell>(v);
}

uint64_t asUnsigned(Type t, Cell v) {
  int64_t w = intWidth(t);
  uint64_t u = static_cast<uint64_t>(static_cast<int64_t>(v));
  return w >= 64 ? u : u & ((uint64_t(1) << w) - 1);
}

/// `v` rounded to float type `t`.
double roundFloat(Type t, double v) {
  if (t.isF64())
    return v;
  if (t.isF32())
    return static_cast<double>(static_cast<float>(v));
  return roundTo(dtypeOf(t), static_cast<float>(v));
}

uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// The bits of element `v` of type `t` (floats rounded to `t` first).
uint64_t toBits(Type t, Cell v) {
  if (t.isF32())
    return floatBits(static_cast<float>(v));
  if (t.isBF16())
    return floatBits(roundTo(DType::BF16, static_cast<float>(v))) >> 16;
  if (t.isF16()) {
    _Float16 h = static_cast<_Float16>(static_cast<float>(v));
    uint16_t u;
    std::memcpy(&u, &h, 2);
    return u;
  }
  return asUnsigned(t, v);
}

Cell fromBits(Type t, uint64_t u) {
  if (t.isF32())
    return bitsFloat(static_cast<uint32_t>(u));
  if (t.isBF16())
    return bitsFloat(static_cast<uint32_t>(u) << 16);
  if (t.isF16()) {
    uint16_t b = static_cast<uint16_t>(u);
    _Float16 h;
    std::memcpy(&h, &b, 2);
    return static_cast<float>(h);
  }
  return normInt(t, static_cast<int64_t>(u));
}

std::string str(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << op->getName() << " at " << op->getLoc();
  return s;
}

/// The 128-byte swizzle of a shared address (TMA boxes, wgmma
/// descriptors): bits 4-6 XOR bits 7-9.
int64_t swizzle128(int64_t at) { return at ^ (((at >> 7) & 7) << 4); }

/// One pending cp.async copy: `count` bytes from src (of which `valid` are
/// read, the rest zero) to dst.
struct Copy {
  Memory *dst, *src;
  int64_t dstAt, srcAt, count, valid;
  int64_t thread; // that issued it
};

/// An LLVM pointer into device memory (a split-k workspace and addresses in
/// it) or another CTA's shared memory (mapa): the index of a descriptor of
/// the memory and a byte offset into it, in one cell. Numbers below 2^40 are
/// addresses in the CTA's own shared memory window (what
/// memref.extract_aligned_pointer_as_index gives for shared memrefs, and
/// wgmma descriptors and ptr<3> hold).
constexpr double kPtrScale = 1099511627776.0; // 2^40
double makePtr(int64_t desc, int64_t offset) { return (desc + 1) * kPtrScale + offset; }
bool isSharedAddress(double p) { return p < kPtrScale; }
int64_t ptrDesc(double p) { return static_cast<int64_t>(p / kPtrScale) - 1; }
int64_t ptrOffset(double p) { return static_cast<int64_t>(p - (ptrDesc(p) + 1) * kPtrScale); }

/// Fibers: pieces of a launch that run by turns, each on a thread of its
/// own (the first on the caller's), handing one baton around: only its
/// holder runs, so the simulation stays deterministic and free of races. A
/// fiber keeps the baton until it blocks (a condition not yet true) or ends;
/// then the next fiber that can go on (round robin) takes it. When none
/// can while some have not ended, that is a deadlock: an error saying what
/// each waits for. A fiber's failure stops the others (their blocking
/// calls return an error) and is what run returns.
class Scheduler {
public:
  using Body = std::function<Status()>;
  using Ready = std::function<bool()>;

  /// A new fiber (from the caller before run, or from the running fiber):
  /// it starts when it is first given the baton. Returns its id.
  int64_t spawn(Body body) {
    std::lock_guard<std::mutex> lock(m);
    int64_t id = static_cast<int64_t>(fibers.size());
    fibers.push_back(std::make_unique<Fiber>());
    fibers.back()->body = std::move(body);
    if (id > 0)
      fibers.back()->thread = std::thread([this, id] { threadMain(id); });
    return id;
  }

  /// Runs fiber 0 on this thread and the rest as the baton reaches them;
  /// returns once every fiber has ended.
  Status run() {
    current() = 0;
    Status s = fibers[0]->body();
    {
      std::unique_lock<std::mutex> lock(m);
      finish(0, s);
      cv.wait(lock, [&] {
        return llvm::all_of(fibers, [](const auto &f) { return f->state == State::Done; });
      });
    }
    for (auto &f : fibers)
      if (f->thread.joinable())
        f->thread.join();
    return failed ? failure : Status::success();
  }

  /// Blocks the running fiber until `ready` holds (`what` names it for a
  /// deadlock's message).
  Status block(Ready ready, std::string what) {
    int64_t me = current();
    std::unique_lock<std::mutex> lock(m);
    if (failed)
      return stopped();
    if (ready())
      return Status::success();
    Fiber &f = *fibers[me];
    f.state = State::Blocked;
    f.ready = std::move(ready);
    f.what = std::move(what);
    handOff(me);
    cv.wait(lock, [&] { return baton == me || failed; });
    if (failed)
      return stopped();
    f.state = State::Running;
    return Status::success();
  }

  /// Blocks the running fiber until fiber `other` has ended (after a
  /// failure: until it has unwound, so what it refers to may go).
  Status join(int64_t other) {
    {
      std::unique_lock<std::mutex> lock(m);
      if (failed) {
        cv.wait(lock, [&] { return fibers[other]->state == State::Done; });
        return stopped();
      }
    }
    return block([this, other] { return fibers[other]->state == State::Done; },
                 "the end of fiber " + std::to_string(other));
  }

  /// Stops every fiber with `s` (the running fiber's failure).
  void fail(Status s) {
    std::lock_guard<std::mutex> lock(m);
    failWith(std::move(s));
  }

  static int64_t &current() {
    static thread_local int64_t id = 0;
    return id;
  }

private:
  enum class State { Ready, Running, Blocked, Done };
  struct Fiber {
    Body body;
    std::thread thread;
    State state = State::Ready;
    Ready ready;
    std::string what;
  };

  static Status stopped() {
    return Status::error("gpusim: stopped (another fiber of the launch failed)");
  }

  void threadMain(int64_t id) {
    current() = id;
    {
      std::unique_lock<std::mutex> lock(m);
      cv.wait(lock, [&] { return baton == id || failed; });
      if (failed) {
        fibers[id]->state = State::Done;
        cv.notify_all();
        return;
      }
      fibers[id]->state = State::Running;
    }
    Status s = fibers[id]->body();
    std::lock_guard<std::mutex> lock(m);
    finish(id, s);
  }

  // (Holding m.)
  void finish(int64_t id, Status s) {
    fibers[id]->state = State::Done;
    if (!s.ok())
      failWith(std::move(s));
    else if (!failed)
      handOff(id);
    cv.notify_all();
  }
  bool canGo(int64_t id) const {
    const Fiber &f = *fibers[id];
    return f.state == State::Ready || (f.state == State::Blocked && f.ready());
  }
  void handOff(int64_t from) {
    int64_t n = static_cast<int64_t>(fibers.size());
    for (int64_t k = 1; k <= n; ++k) {
      int64_t id = (from + k) % n;
      if (canGo(id)) {
        baton = id;
        cv.notify_all();
        return;
      }
    }
    if (llvm::all_of(fibers, [](const auto &f) { return f->state == State::Done; }))
      return;
    std::string why = "gpusim: deadlock:";
    for (int64_t id = 0; id < n; ++id)
      if (fibers[id]->state == State::Blocked)
        why += " fiber " + std::to_string(id) + " waits for " + fibers[id]->what + ";";
    failWith(Status::error(why));
  }
  void failWith(Status s) {
    if (!failed) {
      failed = true;
      failure = std::move(s);
    }
    cv.notify_all();
  }

  std::vector<std::unique_ptr<Fiber>> fibers;
  std::mutex m;
  std::condition_variable cv;
  int64_t baton = 0;
  bool failed = false;
  Status failure = Status::success();
};

class Cluster;

/// A TMA tensor map passed to a kernel: the tensor it views (a descriptor
/// of the buffer) as `dims`, copied in boxes of `box` (outer first), in the
/// 128-byte swizzle, out-of-bounds elements read as zeros (as
/// rt::encodeTensorMap encodes every map).
struct TensorMapInfo {
  int64_t desc = -1;
  SmallVector<int64_t> dims, box;
};

/// What a launch passes besides its buffers: tensor maps, by the
/// descriptor index their parameter's cell points at; where to count its
/// traffic (or null).
struct LaunchInfo {
  std::map<int64_t, TensorMapInfo> tensorMaps;
  LaunchTraffic *traffic = nullptr;
};

/// Counts an access of `bytes` to `mem` (a program buffer) in `traffic`.
void countTraffic(LaunchTraffic *traffic, const Memory *mem, int64_t bytes, bool write) {
  if (!traffic || mem->value < 0 || bytes <= 0)
    return;
  (write ? traffic->bytesWritten : traffic->bytesRead)[mem->value] += bytes;
  traffic->bytes += bytes;
  if (bytes >= 16)
    traffic->bytesInWideAccesses += bytes;
}

/// An mbarrier: `count` arrivals a phase, `pending` of them still to come,
/// transaction bytes still expected (`tx`), the phase number.
struct MBarrier {
  int64_t count = 0, pending = 0, tx = 0, phase = 0;
};

class Cta {
public:
  /// The CTA of rank `rank` in `cluster` (a cluster of one outside one).
  Cta(gpu::GPUFuncOp fn, int64_t threads, int64_t block, int64_t grid, int64_t sharedBytes,
      std::vector<Desc> &descs, Cluster *cluster, int64_t rank, const LaunchInfo &launch)
      : fn(fn), threads(threads), block(block), grid(grid), descs(descs), cluster(cluster),
        rank(rank), launch(launch) {
    // The shared memory window: 16 unused bytes (no valid address is 0),
    // the workgroup attributions, then the dynamic shared memory, each
    // 16-byte aligned (kernels align their 1024-byte swizzle atoms
    // themselves). NaN floats: unwritten reads show.
    int64_t at = 16;
    for (BlockArgument a : fn.getWorkgroupAttributions()) {
      auto t = llvm::cast<MemRefType>(a.getType());
      workgroupAt.push_back(at);
      at = llvm::alignTo(at + t.getNumElements() * bytesOf(t.getElementType()), 16);
    }
    dynamicAt = at;
    window.bytes.assign(at + sharedBytes, 0xFF);
    clocks.assign(warps(), std::vector<int64_t>(warps(), 0));
    for (int64_t w = 0; w < warps(); ++w)
      clocks[w][w] = 1;
    window.name = "shared memory of CTA " + std::to_string(block);
  }

  Memory &sharedWindow() { return window; }

  /// `bytes` of a transaction (a TMA copy) done on the mbarrier at `at`.
  Status completeTx(Operation *op, int64_t at, int64_t bytes) {
    auto it = mbarriers.find(at);
    if (it == mbarriers.end())
      return error(op, "signals shared address " + std::to_string(at) + " of CTA " +
                           std::to_string(block) + ", which is no initialized mbarrier");
    it->second.tx -= bytes;
    advance(it->second);
    return Status::success();
  }
  Status arriveAt(Operation *op, int64_t at, int64_t count, int64_t tx) {
    auto it = mbarriers.find(at);
    if (it == mbarriers.end())
      return error(op, "arrives at shared address " + std::to_string(at) + " of CTA " +
                           std::to_string(block) + ", which is no initialized mbarrier");
    it->second.tx += tx;
    it->second.pending -= count;
    if (it->second.pending < 0)
      return error(op, "more arrivals than the mbarrier's count in one phase");
    advance(it->second);
    return Status::success();
  }
  /// Copies `data` to shared address `at` (the TMA's swizzled box rows).
  Status writeShared(Operation *op, int64_t at, const uint8_t *data, int64_t bytes) {
    if (at < dynamicAt || at + bytes > static_cast<int64_t>(window.bytes.size()))
      return error(op, "writes shared address " + std::to_string(at) + " of CTA " +
                           std::to_string(block) + ", outside its dynamic shared memory");
    if (Status s = checkWrite(op, &window, at, bytes); !s.ok())
      return s;
    std::memcpy(window.bytes.data() + at, data, bytes);
    asyncWrite(at, bytes);
    return Status::success();
  }

  /// After the kernel returns: its shared memory is gone.
  void exit() { window.exited = true; }

  /// `args`: a descriptor for each buffer, then (split k) the workspace's,
  /// then (TMA) each tensor map's.
  Status run(ArrayRef<int> args) {
    Block &entry = fn.getBody().front();
    if (fn.getNumArguments() != args.size())
      return Status::error("gpusim: kernel " + fn.getName().str() + " takes " +
                           std::to_string(fn.getNumArguments()) + " arguments, " +
                           std::to_string(args.size()) + " bound");
    for (auto [arg, d] : llvm::zip(entry.getArguments().take_front(args.size()), args)) {
      Val &v = table()[arg];
      v.width = 1;
      v.cells.assign(threads, llvm::isa<LLVM::LLVMPointerType>(arg.getType()) ? makePtr(d, 0) : d);
    }
    Type i8 = IntegerType::get(fn.getContext(), 8);
    descs.push_back(Desc{&window, 0, i8, {static_cast<int64_t>(window.bytes.size())}});
    windowDesc = static_cast<int64_t>(descs.size()) - 1;
    for (auto [a, offset] : llvm::zip(fn.getWorkgroupAttributions(), workgroupAt)) {
      auto t = llvm::cast<MemRefType>(a.getType());
      descs.push_back(Desc{&window, offset, t.getElementType(), SmallVector<int64_t>(t.getShape())});
      Val &v = table()[a];
      v.cells.assign(threads, static_cast<double>(descs.size() - 1));
    }
    if (!fn.getPrivateAttributions().empty())
      return Status::error("gpusim: private attributions are not simulated");
    Mask all(threads, 1);
    SmallVector<Val> yielded;
    if (Status s = execBlock(entry, all, yielded); !s.ok())
      return s;
    // (A phase left open: arrivals no bar.sync consumed.)
    for (const auto &[id, nb] : namedBarriers)
      if (nb.arrived != 0)
        return Status::error("gpusim: kernel " + fn.getName().str() + ": named barrier " +
                             std::to_string(id) + " of CTA " + std::to_string(block) +
                             " is left with " + std::to_string(nb.arrived) +
                             " arrivals at exit");
    return Status::success();
  }

private:
  gpu::GPUFuncOp fn;
  int64_t threads, block, grid;
  std::vector<Desc> &descs;
  Cluster *cluster;
  int64_t rank;
  const LaunchInfo &launch;
  // mbarriers by shared address.
  std::map<int64_t, MBarrier> mbarriers;
  // scf.if ops whose regions block (mbarrier waits): run as two fibers when
  // both branches have threads.
  DenseMap<Operation *, bool> blockingIfs;
  // mapa's descriptors of the cluster's windows, by rank.
  DenseMap<int64_t, int64_t> mapped;
  Memory window;
  std::vector<int64_t> workgroupAt;
  int64_t dynamicAt = 0, windowDesc = -1;
  // (Node-based: a reference to a value stays valid while others are made.)
  struct ValueHash {
    size_t operator()(Value v) const { return std::hash<const void *>()(v.getAsOpaquePointer()); }
  };
  using ValTable = std::unordered_map<Value, Val, ValueHash>;
  ValTable vals;
  // A warpgroup's fiber (execByWarpgroup) runs the region the others run
  // too: its values are its own, from a copy of the table at the split.
  static thread_local ValTable *fiberVals;
  ValTable &table() { return fiberVals ? *fiberVals : vals; }
  // Named barriers (bar.sync / bar.arrive id, count) that threads of
  // several fibers reach: arrivals in the current phase, the phase, and the
  // vector clock joined from the arriving warps (released when it fills).
  struct NamedBarrier {
    int64_t arrived = 0, phase = 0;
    std::vector<int64_t> joined, released;
  };
  std::map<int64_t, NamedBarrier> namedBarriers;
  std::vector<Copy> pending;
  std::vector<std::vector<Copy>> groups;
  // wgmma: the shared-memory addresses each issued MMA reads, of the MMAs
  // not yet committed and of each committed group not yet retired by a
  // wait, and a count a byte of the MMAs in flight that read it: no write
  // (a store, a cp.async issued) may reach such a byte.
  // (Each fiber's own: the warpgroups of a warp-specialized kernel's
  // branches commit and wait apart.)
  using Reads = std::vector<int64_t>;
  struct WgmmaState {
    Reads issued;
    std::vector<Reads> groups;
  };
  std::map<int64_t, WgmmaState> wgmmaByFiber;
  WgmmaState &wgmmaState() { return wgmmaByFiber[Scheduler::current()]; }
  std::vector<uint16_t> wgmmaReading;

  static void advance(MBarrier &b) {
    if (b.pending == 0 && b.tx == 0) {
      ++b.phase;
      b.pending = b.count;
    }
  }

  /// A write of `bytes` bytes at `at` of `mem` by `op`: an error where an
  /// in-flight wgmma reads them.
  Status checkWrite(Operation *op, const Memory *mem, int64_t at, int64_t bytes) {
    if (mem != &window || wgmmaReading.empty())
      return Status::success();
    for (int64_t i = std::max<int64_t>(at, 0);
         i < std::min<int64_t>(at + bytes, static_cast<int64_t>(wgmmaReading.size())); ++i)
      if (wgmmaReading[i])
        return error(op, "writes shared address " + std::to_string(i) +
                             ", which a wgmma not yet retired by a wait reads");
    return Status::success();
  }

  const Val &get(Value v) { return table()[v]; }
  Val &def(Value v) {
    Val &r = table()[v];
    r.width = widthOf(v.getType());
    r.cells.assign(threads * r.width, 0.0);
    return r;
  }

  Status error(Operation *op, const std::string &what) {
    return Status::error("gpusim: " + str(op) + ": " + what);
  }

  Status execBlock(Block &b, const Mask &mask, SmallVector<Val> &yielded) {
    for (Operation &op : b) {
      if (isa<scf::YieldOp, gpu::ReturnOp>(op)) {
        for (Value v : op.getOperands())
          yielded.push_back(get(v));
        return Status::success();
      }
      if (Status s = exec(op, mask); !s.ok())
        return s;
    }
    return Status::success();
  }

  // ---- memory ----

  Status address(Operation *op, const Desc &d, ArrayRef<int64_t> idx, int64_t count,
                 int64_t &byteAt) {
    if (idx.size() != d.shape.size())
      return error(op, "index rank mismatch");
    int64_t linear = 0;
    for (size_t k = 0; k < idx.size(); ++k) {
      bool last = k + 1 == idx.size();
      if (idx[k] < 0 || idx[k] + (last ? count : 1) > d.shape[k]) {
        std::ostringstream os;
        os << "out-of-bounds access of " << count << " element(s) at [";
        for (size_t j = 0; j < idx.size(); ++j)
          os << (j ? ", " : "") << idx[j];
        os << "] of a memref of shape [";
        for (size_t j = 0; j < d.shape.size(); ++j)
          os << (j ? ", " : "") << d.shape[j];
        os << "] in " << d.mem->name;
        return error(op, os.str());
      }
      linear = linear * d.shape[k] + idx[k];
    }
    byteAt = d.offset + linear * bytesOf(d.elem);
    if (byteAt < 0 || byteAt + count * bytesOf(d.elem) > static_cast<int64_t>(d.mem->bytes.size()))
      return error(op, "access past the end of " + d.mem->name);
    return Status::success();
  }

  double loadElem(const Desc &d, int64_t byteAt) {
    uint64_t u = 0;
    std::memcpy(&u, d.mem->bytes.data() + byteAt, bytesOf(d.elem));
    return fromBits(d.elem, u);
  }
  void storeElem(const Desc &d, int64_t byteAt, Cell v) {
    uint64_t u = toBits(d.elem, v);
    std::memcpy(d.mem->bytes.data() + byteAt, &u, bytesOf(d.elem));
  }

  const Desc &descOf(Value memref, int64_t t) {
    return descs[static_cast<size_t>(get(memref).cells[t])];
  }
  SmallVector<int64_t> indices(ValueRange idx, int64_t t) {
    SmallVector<int64_t> r;
    for (Value v : idx)
      r.push_back(static_cast<int64_t>(get(v).cells[t]));
    return r;
  }

  void applyCopies(const std::vector<Copy> &copies) {
    for (const Copy &c : copies) {
      std::vector<uint8_t> data(c.count, 0);
      if (c.valid > 0)
        std::memcpy(data.data(), c.src->bytes.data() + c.srcAt, c.valid);
      std::memcpy(c.dst->bytes.data() + c.dstAt, data.data(), c.count);
      // (Checked when issued; the write counts from the wait.)
      (void)sharedAccess(nullptr, c.thread, c.dst, c.dstAt, c.count, Access::RecordWrite);
    }
  }

  // ---- races in shared memory ----
  //
  // Each warp keeps a vector clock: for every warp, the latest step of it
  // that this warp has synchronized with (a barrier both reached, an
  // mbarrier arrival it waited for). Each byte of the window remembers its
  // last write and last read by a thread (the warp and that warp's step):
  // an access by another warp that has not synchronized with it since, a
  // write after a write or a read, or a read after a write, is a race: an
  // error, though lockstep would give the right numbers. Copies by TMA and
  // reads by wgmma and TMA are ordered by mbarriers and fences and are not
  // checked here (a TMA write forgets the byte's history); accesses to
  // other CTAs' shared memory are not either.
  struct Access {
    enum Kind { Read, Write, CheckWrite, RecordWrite };
    int32_t warp = -1;
    int32_t step = 0; // (barriers passed: small)
  };
  std::vector<std::vector<int64_t>> clocks; // [warp][warp]
  std::vector<Access> lastWrite, lastRead;  // [byte of the window]
  std::map<int64_t, std::vector<int64_t>> mbarrierClocks; // released, by address

  int64_t warps() const { return (threads + kWarp - 1) / kWarp; }

  /// A barrier that the warps `members` reach together.
  void syncWarps(const std::vector<int64_t> &members) {
    if (members.empty())
      return;
    std::vector<int64_t> joined(warps(), 0);
    for (int64_t w : members)
      for (int64_t k = 0; k < warps(); ++k)
        joined[k] = std::max(joined[k], clocks[w][k]);
    for (int64_t w : members) {
      clocks[w] = joined;
      clocks[w][w] = joined[w] + 1;
    }
  }
  /// `n` threads of warps `ws` at named barrier `id` of `count` threads
  /// (bar.arrive: `arrive`, no wait): a phase fills when `count` threads
  /// have come, from any fibers; a bar.sync waits for its phase to fill and
  /// then has synchronized with every warp that came (their accesses before
  /// it), an arrival with none (its own later accesses are after the
  /// phase).
  Status namedBarrierPhase(Operation *op, int64_t id, int64_t count, int64_t n,
                           const std::vector<int64_t> &ws, bool arrive);

  /// The warps with a thread in `mask`.
  std::vector<int64_t> warpsOf(const Mask &mask) {
    std::vector<int64_t> r;
    for (int64_t t = 0; t < threads; ++t)
      if (mask[t] && (r.empty() || r.back() != t / kWarp))
        r.push_back(t / kWarp);
    return r;
  }

  Status sharedAccess(Operation *op, int64_t t, const Memory *mem, int64_t at, int64_t bytes,
                      Access::Kind kind) {
    if (mem != &window || at < 0 || at + bytes > static_cast<int64_t>(window.bytes.size()))
      return Status::success();
    if (lastWrite.empty()) {
      lastWrite.assign(window.bytes.size(), Access{});
      lastRead.assign(window.bytes.size(), Access{});
    }
    int32_t w = static_cast<int32_t>(t / kWarp);
    const std::vector<int64_t> &vc = clocks[w];
    bool write = kind != Access::Read;
    for (int64_t i = at; i < at + bytes; ++i) {
      if (kind != Access::RecordWrite) {
        const Access &lw = lastWrite[i], &lr = lastRead[i];
        const char *what = nullptr;
        int32_t other = -1;
        if (lw.warp >= 0 && lw.warp != w && vc[lw.warp] < lw.step) {
          what = write ? "writes" : "reads";
          other = lw.warp;
        } else if (write && lr.warp >= 0 && lr.warp != w && vc[lr.warp] < lr.step) {
          what = "writes";
          other = lr.warp;
        }
        if (what)
          return error(op, std::string("a race: warp ") + std::to_string(w) + " " + what +
                               " shared address " + std::to_string(i) + ", which warp " +
                               std::to_string(other) + " " +
                               (other == lw.warp && lw.warp >= 0 && vc[lw.warp] < lw.step
                                    ? "wrote"
                                    : "read") +
                               " with no barrier between");
      }
      if (kind == Access::Read)
        lastRead[i] = Access{w, static_cast<int32_t>(vc[w])};
      else if (kind != Access::CheckWrite)
        lastWrite[i] = Access{w, static_cast<int32_t>(vc[w])};
    }
    return Status::success();
  }
  /// A write no thread made (TMA): the bytes' history is gone.
  void asyncWrite(int64_t at, int64_t bytes) {
    if (lastWrite.empty())
      return;
    for (int64_t i = at; i < at + bytes; ++i)
      lastWrite[i] = lastRead[i] = Access{};
  }

  // ---- ops ----

  Status exec(Operation &op, const Mask &mask);
  Status execArith(Operation &op, const Mask &mask, bool &handled);
  Status execVector(Operation &op, const Mask &mask, bool &handled);
  Status execFor(scf::ForOp loop, const Mask &mask);
  Status execIf(scf::IfOp ifOp, const Mask &mask);
  Status execByWarpgroup(Block &block, const Mask &mask);
  Status execMma(NVVM::MmaOp mma, const Mask &mask);
  Status execLdMatrix(nvgpu::LdMatrixOp ld, const Mask &mask);
  Status execWgmma(NVVM::WgmmaMmaAsyncOp mma, const Mask &mask);
  Status execWgmmaRs(tilec::tile::WgmmaRsOp mma, const Mask &mask);
  Status warpgroupOn(Operation *op, const Mask &mask, int64_t g, bool &on);
  Status warpgroupUniform(Operation *op, Type t, const Val &v, int64_t g, uint64_t &value);
  void wgmmaProduct(const std::vector<double> &A, const std::vector<double> &B, int64_t g,
                    int64_t n, bool zero, const Val &acc, Val &out);
  Status execTmaLoad(NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp load, const Mask &mask);
  Status execTmaStore(NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp store, const Mask &mask);
  /// Where thread t's pointer `ptr` points in shared memory: ptr<3> (a
  /// shared address) this CTA's window, ptr<7> (mapa, addrspacecast) the
  /// window its descriptor names.
  Status sharedTarget(Operation *op, Value ptr, int64_t t, Cta *&cta, int64_t &at);
  /// Thread t's tensor map parameter `map`, its box's global coordinates
  /// (outer first) from the op's (innermost first).
  Status tmaBox(Operation *op, Value map, ValueRange coordinates, int64_t t,
                const TensorMapInfo *&info, SmallVector<int64_t> &origin);
  Status wgmmaOperand(Operation *op, uint64_t desc, int64_t rows, bool mnMajor, Type elem,
                      std::vector<double> &values);
};

/// The CTAs of one cluster (consecutive block indices; a CTA launched
/// without clusters is a cluster of one), each a fiber: a CTA runs as far
/// ahead of the others as the cluster barriers let it, so a read of another
/// CTA's shared memory that no barrier orders after its write reads the NaN
/// bytes shared memory starts with, and one after that CTA returned is an
/// error.
class Cluster {
public:
  Cluster(gpu::GPUFuncOp fn, int64_t threads, int64_t first, int64_t size, int64_t grid,
          int64_t sharedBytes, std::vector<Desc> &descs, const LaunchInfo &launch)
      : arrived(size, 0) {
    for (int64_t r = 0; r < size; ++r)
      ctas.push_back(std::make_unique<Cta>(fn, threads, first + r, grid, sharedBytes, descs, this,
                                           r, launch));
  }

  Status run(ArrayRef<int> args) {
    for (int64_t r = 0; r < size(); ++r)
      sched.spawn([this, r, args] {
        Status s = ctas[r]->run(args);
        ctas[r]->exit();
        return s;
      });
    return sched.run();
  }

  int64_t size() const { return static_cast<int64_t>(ctas.size()); }
  Cta &cta(int64_t r) { return *ctas[r]; }
  Scheduler &scheduler() { return sched; }

  /// The CTA whose shared memory `mem` is, or null.
  Cta *ctaOf(const Memory *mem) {
    for (auto &c : ctas)
      if (&c->sharedWindow() == mem)
        return c.get();
    return nullptr;
  }

  /// barrier.cluster.arrive by every thread of CTA r.
  void arrive(int64_t r) { ++arrived[r]; }

  /// barrier.cluster.wait by every thread of CTA r: returns once every CTA
  /// has arrived as often as r has.
  Status wait(int64_t r) {
    return sched.block(
        [this, r] { return llvm::all_of(arrived, [&](int64_t a) { return a >= arrived[r]; }); },
        "cluster barrier " + std::to_string(arrived[r]) + " (CTA rank " + std::to_string(r) +
            ")");
  }

private:
  std::vector<std::unique_ptr<Cta>> ctas;
  std::vector<int64_t> arrived;
  Scheduler sched;
};

Status Cta::sharedTarget(Operation *op, Value ptr, int64_t t, Cta *&cta, int64_t &at) {
  Cell p = get(ptr).cells[t];
  if (isSharedAddress(p)) {
    cta = this;
    at = static_cast<int64_t>(p);
    return Status::success();
  }
  const Desc &d = descs[ptrDesc(p)];
  cta = cluster->ctaOf(d.mem);
  if (!cta)
    return error(op, "a pointer that is not to shared memory of the cluster");
  // (A CTA's shared memory and barriers are gone once it returns: a remote
  // arrival or copy there would be lost, or land in another CTA's.)
  if (d.mem->exited)
    return error(op, "reaches " + d.mem->name + ", whose CTA has returned");
  at = d.offset + ptrOffset(p);
  return Status::success();
}

Status Cta::tmaBox(Operation *op, Value map, ValueRange coordinates, int64_t t,
                   const TensorMapInfo *&info, SmallVector<int64_t> &origin) {
  Cell p = get(map).cells[t];
  auto it = isSharedAddress(p) ? launch.tensorMaps.end() : launch.tensorMaps.find(ptrDesc(p));
  if (it == launch.tensorMaps.end())
    return error(op, "a tensor map parameter that is no tensor map");
  info = &it->second;
  size_t rank = info->dims.size();
  if (coordinates.size() != rank)
    return error(op, "coordinates of another rank than the tensor map's");
  origin.assign(rank, 0);
  for (size_t i = 0; i < rank; ++i)
    origin[rank - 1 - i] = static_cast<int64_t>(get(coordinates[i]).cells[t]);
  return Status::success();
}

namespace {
/// The box's elements in row-major order (outer first): calls f(linear
/// index in the box, global element index or -1 where out of bounds).
template <typename F>
void forBox(const TensorMapInfo &map, ArrayRef<int64_t> origin, F f) {
  size_t rank = map.dims.size();
  int64_t count = 1;
  for (int64_t b : map.box)
    count *= b;
  SmallVector<int64_t> e(rank, 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t rem = linear, global = 0;
    bool inside = true;
    for (size_t d = rank; d-- > 0;) {
      e[d] = rem % map.box[d];
      rem /= map.box[d];
    }
    for (size_t d = 0; d < rank; ++d) {
      int64_t g = origin[d] + e[d];
      inside &= g >= 0 && g < map.dims[d];
      global = global * map.dims[d] + g;
    }
    f(linear, inside ? global : -1);
  }
}

} // namespace

/// cp.async.bulk.tensor global -> shared::cluster (TMA): the box at the
/// coordinates, out-of-bounds elements zero, written row-major in the
/// 128-byte swizzle at the destination in this CTA or, multicast, in each
/// CTA of the mask (at the same offset), each of whose mbarrier (at the
/// mbarrier's offset) then completes the box's bytes. Copies complete when
/// issued: the earliest a GPU could, which the mbarrier waits must order.
Status Cta::execTmaLoad(NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp load, const Mask &mask) {
  if (!load.getIm2colOffsets().empty() || load.getMode() != NVVM::TMALoadMode::TILE ||
      load.getPredicate())
    return error(load, "only tiled, unpredicated TMA loads are simulated");
  for (int64_t t = 0; t < threads; ++t) {
    if (!mask[t])
      continue;
    const TensorMapInfo *map;
    SmallVector<int64_t> origin;
    if (Status s = tmaBox(load, load.getTmaDescriptor(), load.getCoordinates(), t, map, origin);
        !s.ok())
      return s;
    const Desc &src = descs[map->desc];
    int64_t eb = bytesOf(src.elem);
    std::vector<uint8_t> box;
    Status bad = Status::success();
    int64_t inBounds = 0;
    forBox(*map, origin, [&](int64_t linear, int64_t global) {
      box.resize((linear + 1) * eb, 0);
      if (global < 0)
        return;
      int64_t at = src.offset + global * eb;
      if (at + eb > static_cast<int64_t>(src.mem->bytes.size()))
        bad = error(load, "a tensor map past the end of " + src.mem->name);
      else
        std::memcpy(box.data() + linear * eb, src.mem->bytes.data() + at, eb);
      inBounds += eb;
    });
    countTraffic(launch.traffic, src.mem, inBounds, false);
    if (!bad.ok())
      return bad;
    Cta *dst, *bar;
    int64_t dstAt, barAt;
    if (Status s = sharedTarget(load, load.getDstMem(), t, dst, dstAt); !s.ok())
      return s;
    if (Status s = sharedTarget(load, load.getMbar(), t, bar, barAt); !s.ok())
      return s;
    std::vector<Cta *> targets{dst};
    if (load.getMulticastMask()) {
      targets.clear();
      uint64_t bits = asUnsigned(load.getMulticastMask().getType(),
                                 get(load.getMulticastMask()).cells[t]);
      for (int64_t r = 0; r < cluster->size(); ++r)
        if (bits >> r & 1)
          targets.push_back(&cluster->cta(r));
    }
    for (Cta *c : targets) {
      if (c->sharedWindow().exited)
        return error(load, "multicasts to " + c->sharedWindow().name + ", whose CTA has returned");
      for (int64_t at = 0; at < static_cast<int64_t>(box.size()); at += eb)
        if (Status s = c->writeShared(load, swizzle128(dstAt + at), box.data() + at, eb); !s.ok())
          return s;
      if (Status s = c->completeTx(load, barAt, static_cast<int64_t>(box.size())); !s.ok())
        return s;
    }
  }
  return Status::success();
}

/// cp.async.bulk.tensor shared::cta -> global (TMA store): the box read in
/// the 128-byte swizzle from this CTA's shared memory, written where it is
/// inside the tensor. Completes when issued.
Status Cta::execTmaStore(NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp store, const Mask &mask) {
  if (store.getMode() != NVVM::TMAStoreMode::TILE || store.getPredicate())
    return error(store, "only tiled, unpredicated TMA stores are simulated");
  for (int64_t t = 0; t < threads; ++t) {
    if (!mask[t])
      continue;
    const TensorMapInfo *map;
    SmallVector<int64_t> origin;
    if (Status s = tmaBox(store, store.getTmaDescriptor(), store.getCoordinates(), t, map, origin);
        !s.ok())
      return s;
    Cta *src;
    int64_t srcAt;
    if (Status s = sharedTarget(store, store.getSrcMem(), t, src, srcAt); !s.ok())
      return s;
    if (src != this)
      return error(store, "stores from another CTA's shared memory");
    const Desc &dst = descs[map->desc];
    int64_t eb = bytesOf(dst.elem);
    int64_t inBounds = 0;
    Status bad = Status::success();
    forBox(*map, origin, [&](int64_t linear, int64_t global) {
      if (global < 0 || !bad.ok())
        return;
      int64_t from = swizzle128(srcAt + linear * eb), to = dst.offset + global * eb;
      if (from < dynamicAt || from + eb > static_cast<int64_t>(window.bytes.size()))
        bad = error(store, "reads shared address " + std::to_string(from) +
                               ", outside the dynamic shared memory");
      else if (to + eb > static_cast<int64_t>(dst.mem->bytes.size()))
        bad = error(store, "a tensor map past the end of " + dst.mem->name);
      else {
        std::memcpy(dst.mem->bytes.data() + to, window.bytes.data() + from, eb);
        inBounds += eb;
      }
    });
    countTraffic(launch.traffic, dst.mem, inBounds, true);
    if (!bad.ok())
      return bad;
  }
  return Status::success();
}

bool fullWarps(const Mask &mask, int64_t threads) {
  for (int64_t w = 0; w < threads; w += kWarp) {
    int64_t on = 0;
    for (int64_t l = 0; l < kWarp && w + l < threads; ++l)
      on += mask[w + l];
    if (on != 0 && on != std::min<int64_t>(kWarp, threads - w))
      return false;
  }
  return true;
}

Status Cta::execFor(scf::ForOp loop, const Mask &mask) {
  int64_t n = loop.getNumRegionIterArgs();
  Block &body = *loop.getBody();
  std::vector<Cell> iv(threads);
  std::vector<Val> carried;
  for (Value init : loop.getInitArgs())
    carried.push_back(get(init));
  const Val &lb = get(loop.getLowerBound()), &ub = get(loop.getUpperBound()),
            &step = get(loop.getStep());
  for (int64_t t = 0; t < threads; ++t)
    iv[t] = lb.cells[t];
  Mask cur = mask;
  while (true) {
    bool any = false;
    for (int64_t t = 0; t < threads; ++t) {
      cur[t] = cur[t] && iv[t] < ub.cells[t];
      any |= cur[t] != 0;
    }
    if (!any)
      break;
    Val &ivVal = table()[loop.getInductionVar()];
    ivVal.width = 1;
    ivVal.cells = iv;
    for (int64_t k = 0; k < n; ++k)
      table()[loop.getRegionIterArgs()[k]] = carried[k];
    SmallVector<Val> yielded;
    if (Status s = execBlock(body, cur, yielded); !s.ok())
      return s;
    for (int64_t k = 0; k < n; ++k) {
      int64_t w = carried[k].width;
      for (int64_t t = 0; t < threads; ++t)
        if (cur[t])
          for (int64_t c = 0; c < w; ++c)
            carried[k].cells[t * w + c] = yielded[k].cells[t * w + c];
    }
    for (int64_t t = 0; t < threads; ++t)
      if (cur[t])
        iv[t] += step.cells[t];
  }
  for (int64_t k = 0; k < n; ++k)
    table()[loop.getResult(k)] = carried[k];
  return Status::success();
}

thread_local Cta::ValTable *Cta::fiberVals = nullptr;

Status Cta::namedBarrierPhase(Operation *op, int64_t id, int64_t count, int64_t n,
                            const std::vector<int64_t> &ws, bool arrive) {
  NamedBarrier &nb = namedBarriers[id];
  if (nb.joined.empty())
    nb.joined.assign(warps(), 0);
  for (int64_t w : ws)
    for (int64_t k = 0; k < warps(); ++k)
      nb.joined[k] = std::max(nb.joined[k], clocks[w][k]);
  nb.arrived += n;
  if (nb.arrived > count)
    return error(op, "barrier " + std::to_string(id) + " of " + std::to_string(count) +
                         " threads reached by " + std::to_string(nb.arrived) +
                         " in one phase");
  auto acquire = [&](const std::vector<int64_t> &released) {
    for (int64_t w : ws) {
      for (int64_t k = 0; k < warps(); ++k)
        clocks[w][k] = std::max(clocks[w][k], released[k]);
      ++clocks[w][w];
    }
  };
  if (nb.arrived == count) {
    nb.released = nb.joined;
    nb.joined.assign(warps(), 0);
    nb.arrived = 0;
    ++nb.phase;
    if (arrive) {
      for (int64_t w : ws)
        ++clocks[w][w];
    } else {
      acquire(nb.released);
    }
    return Status::success();
  }
  if (arrive) {
    for (int64_t w : ws)
      ++clocks[w][w];
    return Status::success();
  }
  int64_t phase = nb.phase;
  if (Status s = cluster->scheduler().block(
          [this, id, phase] { return namedBarriers.at(id).phase != phase; },
          "named barrier " + std::to_string(id) + " (" + std::to_string(count) +
              " threads) in CTA " + std::to_string(block));
      !s.ok())
    return s;
  acquire(namedBarriers.at(id).released);
  return Status::success();
}


/// `block` run by each warpgroup of `mask` as a fiber of its own (the first
/// on this one), each from a copy of the values so far; they meet only at
/// barriers and mbarriers.
Status Cta::execByWarpgroup(Block &block, const Mask &mask) {
  std::vector<Mask> parts;
  for (int64_t t = 0; t < threads; ++t) {
    if (!mask[t])
      continue;
    size_t g = static_cast<size_t>(t / 128);
    if (parts.size() <= g)
      parts.resize(g + 1, Mask(threads, 0));
    parts[g][t] = 1;
  }
  parts.erase(std::remove_if(parts.begin(), parts.end(),
                             [](const Mask &m) { return llvm::none_of(m, [](auto x) { return x; }); }),
              parts.end());
  SmallVector<Val> yielded;
  if (parts.size() < 2)
    return execBlock(block, mask, yielded);
  Scheduler &sched = cluster->scheduler();
  std::vector<std::unique_ptr<ValTable>> copies;
  std::vector<int64_t> children;
  for (size_t g = 1; g < parts.size(); ++g) {
    copies.push_back(std::make_unique<ValTable>(table()));
    ValTable *own = copies.back().get();
    const Mask *part = &parts[g];
    children.push_back(sched.spawn([this, &block, part, own] {
      fiberVals = own;
      SmallVector<Val> ignored;
      Status s = execBlock(block, *part, ignored);
      fiberVals = nullptr;
      return s;
    }));
  }
  Status s = execBlock(block, parts[0], yielded);
  if (!s.ok())
    sched.fail(s);
  for (int64_t c : children)
    if (Status j = sched.join(c); !j.ok() && s.ok())
      s = j;
  return s;
}

Status Cta::execIf(scf::IfOp ifOp, const Mask &mask) {
  const Val &cond = get(ifOp.getCondition());
  Mask thenMask(threads, 0), elseMask(threads, 0);
  bool anyThen = false, anyElse = false;
  for (int64_t t = 0; t < threads; ++t) {
    thenMask[t] = mask[t] && cond.cells[t] != 0;
    elseMask[t] = mask[t] && cond.cells[t] == 0;
    anyThen |= thenMask[t] != 0;
    anyElse |= elseMask[t] != 0;
  }
  SmallVector<Val> thenVals, elseVals;
  // Branches that block (warp specialization: a producer's and consumers'
  // loops waiting on each other's mbarriers) run as two fibers; others one
  // after the other.
  auto [known, fresh] = blockingIfs.try_emplace(ifOp, false);
  if (fresh)
    known->second = ifOp
                        ->walk([](Operation *inner) {
                          return isa<NVVM::MBarrierTryWaitParityOp>(inner) ? WalkResult::interrupt()
                                                                          : WalkResult::advance();
                        })
                        .wasInterrupted();
  bool blocks = known->second;
  if (anyThen && anyElse && blocks && !ifOp.getElseRegion().empty()) {
    Scheduler &sched = cluster->scheduler();
    Block &elseBlock = ifOp.getElseRegion().front();
    // (A branch whose warpgroups take turns at named barriers, bar.arrive
    // of one meeting bar.sync of another at another point, runs a fiber a
    // warpgroup.)
    auto turns = [](Block &b) {
      return b.walk([](NVVM::BarrierArriveOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
    };
    bool elseTurns = turns(elseBlock), thenTurns = turns(ifOp.getThenRegion().front());
    if ((elseTurns || thenTurns) && ifOp.getNumResults() > 0)
      return error(ifOp, "warpgroups taking turns in a branch with results are not simulated");
    int64_t child =
        sched.spawn([this, &elseBlock, &elseMask, &elseVals, elseTurns] {
          return elseTurns ? execByWarpgroup(elseBlock, elseMask)
                           : execBlock(elseBlock, elseMask, elseVals);
        });
    Status s = thenTurns ? execByWarpgroup(ifOp.getThenRegion().front(), thenMask)
                         : execBlock(ifOp.getThenRegion().front(), thenMask, thenVals);
    if (!s.ok()) {
      sched.fail(s);
      (void)sched.join(child);
      return s;
    }
    if (Status j = sched.join(child); !j.ok())
      return j;
  } else {
    if (anyThen)
      if (Status s = execBlock(ifOp.getThenRegion().front(), thenMask, thenVals); !s.ok())
        return s;
    if (anyElse && !ifOp.getElseRegion().empty())
      if (Status s = execBlock(ifOp.getElseRegion().front(), elseMask, elseVals); !s.ok())
        return s;
  }
  for (auto [k, r] : llvm::enumerate(ifOp.getResults())) {
    Val &out = def(r);
    for (int64_t t = 0; t < threads; ++t)
      for (int64_t c = 0; c < out.width; ++c) {
        if (thenMask[t])
          out.cells[t * out.width + c] = thenVals[k].cells[t * out.width + c];
        else if (elseMask[t])
          out.cells[t * out.width + c] = elseVals[k].cells[t * out.width + c];
      }
  }
  return Status::success();
}

/// mma.sync m16n8k16 (f16/bf16, f32 accumulators) on each warp: the
/// fragments of A (4 registers of two elements), B (2) and C (4 f32) per
/// lane as the PTX ISA lays them out (g = lane / 4, t = lane % 4):
/// A: a{0,1} (g, 2t..), a{2,3} (g+8, 2t..), a{4,5} (g, 2t+8..), a{6,7}
/// (g+8, 2t+8..); B: b{0,1} (k 2t.., n g), b{2,3} (k 2t+8.., n g);
/// C: c{0,1} (g, 2t..), c{2,3} (g+8, 2t..).
Status Cta::execMma(NVVM::MmaOp mma, const Mask &mask) {
  auto shape = mma.getShapeAttr();
  if (shape.getM() != 16 || shape.getN() != 8 || shape.getK() != 16)
    return error(mma, "only m16n8k16 is simulated");
  if (mma.getLayoutA() != NVVM::MMALayout::row || mma.getLayoutB() != NVVM::MMALayout::col)
    return error(mma, "only row x col layouts are simulated");
  if (!fullWarps(mask, threads))
    return error(mma, "a warp-collective op under a partial warp");
  auto ptxType = mma.getMultiplicandAPtxType();
  Type elem;
  Builder b(mma.getContext());
  if (ptxType && *ptxType == NVVM::MMATypes::bf16)
    elem = b.getBF16Type();
  else if (ptxType && *ptxType == NVVM::MMATypes::f16)
    elem = b.getF16Type();
  else
    return error(mma, "only f16 and bf16 multiplicands are simulated");
  // The two elements of register `v` of lane t.
  auto pairOf = [&](Value v, int64_t t, double &lo, double &hi) {
    const Val &x = get(v);
    if (x.width == 2) { // vector<2xf16>
      lo = x.cells[t * 2];
      hi = x.cells[t * 2 + 1];
      return;
    }
    uint64_t u = asUnsigned(v.getType(), x.cells[t]);
    lo = fromBits(elem, u & 0xFFFF);
    hi = fromBits(elem, (u >> 16) & 0xFFFF);
  };
  auto aRegs = mma.getOperandA(), bRegs = mma.getOperandB(), cRegs = mma.getOperandC();
  if (aRegs.size() != 4 || bRegs.size() != 2 || cRegs.size() != 4)
    return error(mma, "unexpected operand counts");
  Val &out = def(mma.getResult());
  for (int64_t w = 0; w < threads; w += kWarp) {
    if (!mask[w])
      continue;
    double A[16][16], B[16][8], C[16][8];
    for (int64_t l = 0; l < kWarp; ++l) {
      int64_t t = w + l, g = l / 4, q = l % 4;
      double lo, hi;
      for (int r = 0; r < 4; ++r) {
        pairOf(aRegs[r], t, lo, hi);
        int64_t row = g + (r % 2) * 8, col = 2 * q + (r / 2) * 8;
        A[row][col] = lo;
        A[row][col + 1] = hi;
      }
      for (int r = 0; r < 2; ++r) {
        pairOf(bRegs[r], t, lo, hi);
        B[2 * q + r * 8][g] = lo;
        B[2 * q + r * 8 + 1][g] = hi;
      }
      for (int r = 0; r < 4; ++r)
        C[g + (r / 2) * 8][2 * q + r % 2] = get(cRegs[r]).cells[t];
    }
    for (int64_t l = 0; l < kWarp; ++l) {
      int64_t t = w + l, g = l / 4, q = l % 4;
      for (int r = 0; r < 4; ++r) {
        int64_t row = g + (r / 2) * 8, col = 2 * q + r % 2;
        double s = C[row][col];
        for (int k = 0; k < 16; ++k)
          s += A[row][k] * B[k][col];
        out.cells[t * 4 + r] = static_cast<float>(s);
      }
    }
  }
  return Status::success();
}

/// ldmatrix .x1/.x2/.x4 (.trans) of 8x8 16-bit tiles: lanes 8i..8i+7 give
/// the rows of tile i (16 bytes from their address); lane l gets of tile i
/// row l/4, columns 2(l%4) and 2(l%4)+1 (transposed: those rows of
/// column l/4).
Status Cta::execLdMatrix(nvgpu::LdMatrixOp ld, const Mask &mask) {
  if (!fullWarps(mask, threads))
    return error(ld, "a warp-collective op under a partial warp");
  int64_t tiles = ld.getNumTiles();
  bool trans = ld.getTranspose();
  Val &out = def(ld.getRes());
  if (out.width != tiles * 2)
    return error(ld, "unexpected result type");
  for (int64_t w = 0; w < threads; w += kWarp) {
    if (!mask[w])
      continue;
    double tile[4][8][8];
    for (int64_t i = 0; i < tiles; ++i)
      for (int64_t r = 0; r < 8; ++r) {
        int64_t t = w + i * 8 + r;
        const Desc &d = descOf(ld.getSrcMemref(), t);
        int64_t at;
        if (Status s = address(ld, d, indices(ld.getIndices(), t), 8, at); !s.ok())
          return s;
        if (Status s = sharedAccess(ld, t, d.mem, at, 8 * bytesOf(d.elem), Access::Read); !s.ok())
          return s;
        for (int64_t c = 0; c < 8; ++c)
          tile[i][r][c] = loadElem(d, at + c * bytesOf(d.elem));
      }
    for (int64_t l = 0; l < kWarp; ++l)
      for (int64_t i = 0; i < tiles; ++i)
        for (int64_t e = 0; e < 2; ++e) {
          int64_t r = l / 4, c = 2 * (l % 4) + e;
          out.cells[(w + l) * out.width + i * 2 + e] = trans ? tile[i][c][r] : tile[i][r][c];
        }
  }
  return Status::success();
}

/// A wgmma operand of `rows` x 16 16-bit elements (row-major in `values`)
/// read from shared memory through its matrix descriptor: start address >>
/// 4 (bits 0-13), leading byte offset >> 4 (16-29), stride byte offset >> 4
/// (32-45), base offset (49-51, must be 0), swizzle (62-63: only 1, the
/// 128-byte swizzle, is simulated). K-major (A row, B col): element (r, k)
/// at start + (r / 8) * SBO + (r % 8) * 128 + 2k; MN-major (A col, B row):
/// 64-element rows of 8 k each, element (r, k) at start + (r / 64) * LBO +
/// (k / 8) * SBO + (k % 8) * 128 + 2 (r % 64). The 128-byte swizzle then
/// XORs address bits 4-6 with bits 7-9 (of the shared address, hence the
/// 1024-byte aligned atoms).
Status Cta::wgmmaOperand(Operation *op, uint64_t desc, int64_t rows, bool mnMajor, Type elem,
                         std::vector<double> &values) {
  int64_t start = static_cast<int64_t>(desc & 0x3FFF) << 4;
  int64_t lbo = static_cast<int64_t>((desc >> 16) & 0x3FFF) << 4;
  int64_t sbo = static_cast<int64_t>((desc >> 32) & 0x3FFF) << 4;
  if (((desc >> 49) & 7) != 0)
    return error(op, "a descriptor with a base offset is not simulated");
  if ((desc >> 62) != 1)
    return error(op, "only descriptors of the 128-byte swizzle are simulated");
  values.assign(rows * 16, 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < 16; ++k) {
      int64_t linear = mnMajor ? start + (r / 64) * lbo + (k / 8) * sbo + (k % 8) * 128 + 2 * (r % 64)
                               : start + (r / 8) * sbo + (r % 8) * 128 + 2 * k;
      int64_t at = swizzle128(linear);
      if (at < dynamicAt || at + 2 > static_cast<int64_t>(window.bytes.size()))
        return error(op, "a descriptor reads shared address " + std::to_string(at) +
                             ", outside the dynamic shared memory [" + std::to_string(dynamicAt) +
                             ", " + std::to_string(window.bytes.size()) + ")");
      uint64_t u = window.bytes[at] | (uint64_t(window.bytes[at + 1]) << 8);
      values[r * 16 + k] = fromBits(elem, u);
      if (wgmmaReading.empty())
        wgmmaReading.assign(window.bytes.size(), 0);
      wgmmaState().issued.push_back(at);
      ++wgmmaReading[at];
      ++wgmmaReading[at + 1];
    }
  return Status::success();
}

/// wgmma.mma_async m64nNk16 (f16/bf16 from shared memory, f32
/// accumulators) on each warpgroup (128 threads, all of them or none),
/// computed when issued; its accumulator fragment: thread l of the
/// warpgroup holds, for each 8 columns j, d[4j + i] at row 16 (l / 32) +
/// (l % 32) / 4 + 8 (i / 2), column 8j + 2 (l % 4) + i % 2. The shared
/// bytes it read are checked again when a wait retires its group.
Status Cta::execWgmma(NVVM::WgmmaMmaAsyncOp mma, const Mask &mask) {
  auto shape = mma.getShape();
  int64_t n = shape.getN();
  if (shape.getM() != 64 || shape.getK() != 16 || n % 8 != 0)
    return error(mma, "only m64nNk16 is simulated");
  if (mma.getTypeD() != NVVM::WGMMATypes::f32 || mma.getTypeA() != mma.getTypeB() ||
      (mma.getTypeA() != NVVM::WGMMATypes::bf16 && mma.getTypeA() != NVVM::WGMMATypes::f16))
    return error(mma, "only f16/bf16 multiplicands with f32 accumulators are simulated");
  if (mma.getScaleA() != NVVM::WGMMAScaleIn::one || mma.getScaleB() != NVVM::WGMMAScaleIn::one)
    return error(mma, "negated multiplicands are not simulated");
  Builder b(mma.getContext());
  Type elem = mma.getTypeA() == NVVM::WGMMATypes::bf16 ? Type(b.getBF16Type()) : b.getF16Type();
  bool zero = mma.getScaleD() == NVVM::WGMMAScaleOut::zero;
  bool aMN = mma.getLayoutA() == NVVM::MMALayout::col, bMN = mma.getLayoutB() == NVVM::MMALayout::row;
  const Val &acc = get(mma.getInouts()), &da = get(mma.getDescriptorA()),
            &db = get(mma.getDescriptorB());
  Val &out = def(mma.getResults());
  if (out.width != n / 2 || threads % 128 != 0)
    return error(mma, "unexpected accumulator count or CTA size");
  Type i64 = b.getI64Type();
  for (int64_t g = 0; g < threads; g += 128) {
    bool on = false;
    uint64_t descA = 0, descB = 0;
    if (Status s = warpgroupOn(mma, mask, g, on); !s.ok())
      return s;
    if (!on)
      continue;
    if (Status s = warpgroupUniform(mma, i64, da, g, descA); !s.ok())
      return s;
    if (Status s = warpgroupUniform(mma, i64, db, g, descB); !s.ok())
      return s;
    std::vector<double> A, B;
    if (Status s = wgmmaOperand(mma, descA, 64, aMN, elem, A); !s.ok())
      return s;
    if (Status s = wgmmaOperand(mma, descB, n, bMN, elem, B); !s.ok())
      return s;
    wgmmaProduct(A, B, g, n, zero, acc, out);
  }
  return Status::success();
}

/// Whether warpgroup `g` (threads g .. g + 127) runs a warpgroup-collective
/// op under `mask`: all of it (on) or none; a part is an error.
Status Cta::warpgroupOn(Operation *op, const Mask &mask, int64_t g, bool &on) {
  int64_t count = 0;
  for (int64_t l = 0; l < 128; ++l)
    count += mask[g + l];
  if (count != 0 && count != 128)
    return error(op, "a warpgroup-collective op under a partial warpgroup");
  on = count == 128;
  return Status::success();
}

/// `v`'s value (of type `t`), the same in every thread of warpgroup `g`.
Status Cta::warpgroupUniform(Operation *op, Type t, const Val &v, int64_t g, uint64_t &value) {
  value = asUnsigned(t, v.cells[g]);
  for (int64_t l = 1; l < 128; ++l)
    if (asUnsigned(t, v.cells[g + l]) != value)
      return error(op, "descriptors that differ across the warpgroup");
  return Status::success();
}

/// D = A B (+ D) of warpgroup `g` (threads g .. g + 127): A 64 x 16 and B
/// N x 16 (row r, k at r * 16 + k), into each thread's accumulators.
void Cta::wgmmaProduct(const std::vector<double> &A, const std::vector<double> &B, int64_t g,
                       int64_t n, bool zero, const Val &acc, Val &out) {
  for (int64_t l = 0; l < 128; ++l) {
    int64_t t = g + l, lane = l % 32;
    for (int64_t i = 0; i < n / 2; ++i) {
      int64_t j = i / 4, e = i % 4;
      int64_t row = 16 * (l / 32) + lane / 4 + 8 * (e / 2), col = 8 * j + 2 * (lane % 4) + e % 2;
      double sum = zero ? 0.0 : acc.cells[t * acc.width + i];
      for (int64_t k = 0; k < 16; ++k)
        sum += A[row * 16 + k] * B[col * 16 + k];
      out.cells[t * out.width + i] = static_cast<float>(sum);
    }
  }
}

/// tile.wgmma_rs: wgmma with A in registers. Thread l of the warpgroup
/// holds, as mma.sync's A of warp l / 32 for rows 16 (l / 32) + [0, 16),
/// a[r] = row (l % 32) / 4 + 8 (r % 2), columns 2 (l % 4) + 8 (r / 2) and
/// the next (low half first); B by descriptor and D as execWgmma's.
Status Cta::execWgmmaRs(tilec::tile::WgmmaRsOp mma, const Mask &mask) {
  int64_t n = mma.getN();
  Type elem = mma.getMultiplicand();
  const Val &acc = get(mma.getAcc()), &db = get(mma.getDescriptorB());
  auto aRegs = mma.getA();
  Val &out = def(mma.getResult());
  if (out.width != n / 2 || threads % 128 != 0)
    return error(mma, "unexpected accumulator count or CTA size");
  Type i64 = IntegerType::get(mma.getContext(), 64);
  for (int64_t g = 0; g < threads; g += 128) {
    bool on = false;
    uint64_t descB = 0;
    if (Status s = warpgroupOn(mma, mask, g, on); !s.ok())
      return s;
    if (!on)
      continue;
    if (Status s = warpgroupUniform(mma, i64, db, g, descB); !s.ok())
      return s;
    std::vector<double> A(64 * 16, 0.0), B;
    for (int64_t l = 0; l < 128; ++l) {
      int64_t lane = l % 32;
      for (int64_t r = 0; r < 4; ++r) {
        uint64_t u = asUnsigned(aRegs[r].getType(), get(aRegs[r]).cells[g + l]);
        int64_t row = 16 * (l / 32) + lane / 4 + 8 * (r % 2), col = 2 * (lane % 4) + 8 * (r / 2);
        A[row * 16 + col] = fromBits(elem, u & 0xFFFF);
        A[row * 16 + col + 1] = fromBits(elem, (u >> 16) & 0xFFFF);
      }
    }
    if (Status s = wgmmaOperand(mma, descB, n, mma.getBMn(), elem, B); !s.ok())
      return s;
    wgmmaProduct(A, B, g, n, mma.getZeroAcc(), acc, out);
  }
  return Status::success();
}

Status Cta::exec(Operation &op, const Mask &mask) {
  bool handled = false;
  if (Status s = execArith(op, mask, handled); !s.ok() || handled)
    return s;
  if (Status s = execVector(op, mask, handled); !s.ok() || handled)
    return s;
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return execFor(loop, mask);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return execIf(ifOp, mask);
  if (auto mma = dyn_cast<NVVM::MmaOp>(op))
    return execMma(mma, mask);
  if (auto ld = dyn_cast<nvgpu::LdMatrixOp>(op))
    return execLdMatrix(ld, mask);
  if (auto mma = dyn_cast<NVVM::WgmmaMmaAsyncOp>(op))
    return execWgmma(mma, mask);
  if (auto mma = dyn_cast<tilec::tile::WgmmaRsOp>(op))
    return execWgmmaRs(mma, mask);
  if (isa<NVVM::WgmmaFenceAlignedOp, NVVM::FenceProxyOp>(op))
    return Status::success(); // (one thread order: every write is visible)
  if (isa<NVVM::WgmmaGroupSyncAlignedOp>(op)) {
    WgmmaState &w = wgmmaState();
    w.groups.push_back(std::move(w.issued));
    w.issued.clear();
    return Status::success();
  }
  if (auto wait = dyn_cast<NVVM::WgmmaWaitGroupSyncOp>(op)) {
    WgmmaState &w = wgmmaState();
    size_t keep = static_cast<size_t>(wait.getGroup());
    while (w.groups.size() > keep) {
      for (int64_t at : w.groups.front()) {
        --wgmmaReading[at];
        --wgmmaReading[at + 1];
      }
      w.groups.erase(w.groups.begin());
    }
    return Status::success();
  }
  if (auto u = dyn_cast<LLVM::UndefOp>(op)) {
    Val &out = def(u.getResult());
    std::fill(out.cells.begin(), out.cells.end(), std::nan(""));
    return Status::success();
  }
  if (auto ins = dyn_cast<LLVM::InsertValueOp>(op)) {
    if (ins.getPosition().size() != 1)
      return error(&op, "nested positions are not simulated");
    const Val &in = get(ins.getContainer()), &x = get(ins.getValue());
    Val &out = def(ins.getResult());
    out.cells = in.cells;
    for (int64_t t = 0; t < threads; ++t)
      out.cells[t * out.width + ins.getPosition()[0]] = x.cells[t];
    return Status::success();
  }
  if (auto e = dyn_cast<LLVM::ExtractValueOp>(op)) {
    if (e.getPosition().size() != 1)
      return error(&op, "nested positions are not simulated");
    const Val &in = get(e.getContainer());
    Val &out = def(e.getResult());
    for (int64_t t = 0; t < threads; ++t)
      out.cells[t] = in.cells[t * in.width + e.getPosition()[0]];
    return Status::success();
  }
  if (auto id = dyn_cast<gpu::ThreadIdOp>(op)) {
    Val &out = def(id.getResult());
    for (int64_t t = 0; t < threads; ++t)
      out.cells[t] = id.getDimension() == gpu::Dimension::x ? t : 0;
    return Status::success();
  }
  if (auto id = dyn_cast<gpu::BlockIdOp>(op)) {
    Val &out = def(id.getResult());
    for (int64_t t = 0; t < threads; ++t)
      out.cells[t] = id.getDimension() == gpu::Dimension::x ? block : 0;
    return Status::success();
  }
  if (auto d = dyn_cast<gpu::BlockDimOp>(op)) {
    Val &out = def(d.getResult());
    for (int64_t t = 0; t < threads; ++t)
      out.cells[t] = d.getDimension() == gpu::Dimension::x ? threads : 1;
    return Status::success();
  }
  if (auto d = dyn_cast<gpu::GridDimOp>(op)) {
    Val &out = def(d.getResult());
    for (int64_t t = 0; t < threads; ++t)
      out.cells[t] = d.getDimension() == gpu::Dimension::x ? grid : 1;
    return Status::success();
  }
  if (auto lane = dyn_cast<gpu::LaneIdOp>(op)) {
    Val &out = def(lane.getResult());
    for (int64_t t = 0; t < threads; ++t)
      out.cells[t] = t % kWarp;
    return Status::success();
  }
  if (auto prefetch = dyn_cast<NVVM::PrefetchOp>(op); prefetch && prefetch.getTensormap())
    return Status::success();
  if (isa<NVVM::SetMaxRegisterOp, NVVM::FenceMbarrierInitOp, NVVM::CpAsyncBulkCommitGroupOp,
          NVVM::CpAsyncBulkWaitGroupOp>(op))
    return Status::success(); // (TMA copies complete when issued)
  if (isa<NVVM::ClusterIdXOp, NVVM::ClusterDimXOp, NVVM::ClusterId>(op)) {
    int64_t size = cluster->size();
    Val &out = def(op.getResult(0));
    int64_t v = isa<NVVM::ClusterIdXOp>(op) ? block / size
                : isa<NVVM::ClusterDimXOp>(op) ? grid / size
                                               : rank;
    std::fill(out.cells.begin(), out.cells.end(), static_cast<Cell>(v));
    return Status::success();
  }
  if (auto cast = dyn_cast<LLVM::AddrSpaceCastOp>(op)) {
    auto from = llvm::cast<LLVM::LLVMPointerType>(cast.getArg().getType()).getAddressSpace();
    auto to = llvm::cast<LLVM::LLVMPointerType>(cast.getType()).getAddressSpace();
    if (from != 3 || to != 7)
      return error(&op, "only shared to shared::cluster casts are simulated");
    const Val &in = get(cast.getArg());
    Val &out = def(cast.getResult());
    for (int64_t t = 0; t < threads; ++t)
      if (mask[t]) {
        if (!isSharedAddress(in.cells[t]))
          return error(&op, "casts a pointer that is not to shared memory");
        out.cells[t] = makePtr(windowDesc, static_cast<int64_t>(in.cells[t]));
      }
    return Status::success();
  }
  if (auto init = dyn_cast<NVVM::MBarrierInitOp>(op)) {
    if (init.getPredicate())
      return error(&op, "predicated mbarrier ops are not simulated");
    for (int64_t t = 0; t < threads; ++t) {
      if (!mask[t])
        continue;
      Cta *c;
      int64_t at;
      if (Status s = sharedTarget(&op, init.getAddr(), t, c, at); !s.ok())
        return s;
      if (c != this)
        return error(&op, "initializes another CTA's mbarrier");
      int64_t count = static_cast<int64_t>(get(init.getCount()).cells[t]);
      mbarriers[at] = MBarrier{count, count, 0, 0};
    }
    return Status::success();
  }
  if (isa<NVVM::MBarrierArriveOp, NVVM::MBarrierArriveExpectTxOp>(op)) {
    auto arrive = dyn_cast<NVVM::MBarrierArriveOp>(op);
    auto expect = dyn_cast<NVVM::MBarrierArriveExpectTxOp>(op);
    if (expect && expect.getPredicate())
      return error(&op, "predicated mbarrier ops are not simulated");
    Value addr = arrive ? arrive.getAddr() : expect.getAddr();
    std::set<std::pair<int64_t, int64_t>> released; // (warp, this CTA's mbarrier)
    for (int64_t t = 0; t < threads; ++t) {
      if (!mask[t])
        continue;
      Cta *c;
      int64_t at;
      if (Status s = sharedTarget(&op, addr, t, c, at); !s.ok())
        return s;
      int64_t count = arrive && arrive.getCount()
                          ? static_cast<int64_t>(get(arrive.getCount()).cells[t])
                          : 1;
      int64_t tx = expect ? static_cast<int64_t>(get(expect.getTxcount()).cells[t]) : 0;
      if (Status s = c->arriveAt(&op, at, count, tx); !s.ok())
        return s;
      if (c == this)
        released.insert({t / kWarp, at});
    }
    // (Release: the barrier's waiters synchronize with the arriving warps'
    // steps so far.)
    for (auto [w, at] : released) {
      std::vector<int64_t> &bc = mbarrierClocks[at];
      bc.resize(warps(), 0);
      for (int64_t k = 0; k < warps(); ++k)
        bc[k] = std::max(bc[k], clocks[w][k]);
    }
    for (auto [w, at] : released)
      clocks[w][w] = std::max(clocks[w][w], mbarrierClocks[at][w] + 1);
    if (op.getNumResults() == 1)
      def(op.getResult(0));
    return Status::success();
  }
  if (auto wait = dyn_cast<NVVM::MBarrierTryWaitParityOp>(op)) {
    struct Wait {
      Cta *cta;
      int64_t at, parity;
    };
    std::vector<Wait> waits;
    for (int64_t t = 0; t < threads; ++t) {
      if (!mask[t])
        continue;
      Cta *c;
      int64_t at;
      if (Status s = sharedTarget(&op, wait.getAddr(), t, c, at); !s.ok())
        return s;
      if (!c->mbarriers.count(at))
        return error(&op, "waits at shared address " + std::to_string(at) +
                              ", which is no initialized mbarrier");
      int64_t parity = static_cast<int64_t>(get(wait.getPhase()).cells[t]) & 1;
      if (waits.empty() || waits.back().cta != c || waits.back().at != at ||
          waits.back().parity != parity)
        waits.push_back(Wait{c, at, parity});
    }
    if (Status s = cluster->scheduler().block(
            [waits] {
              return llvm::all_of(waits, [](const Wait &w) {
                return (w.cta->mbarriers[w.at].phase & 1) != w.parity;
              });
            },
            "phase parity " + std::to_string(waits.empty() ? 0 : waits[0].parity) +
                " of the mbarrier at shared address " +
                std::to_string(waits.empty() ? 0 : waits[0].at) + " (CTA " +
                std::to_string(block) + ", " + str(&op) + ")");
        !s.ok())
      return s;
    // (Acquire: the waiting warps synchronize with what the arrivals released.)
    for (const Wait &w : waits)
      if (w.cta == this && mbarrierClocks.count(w.at))
        for (int64_t warp : warpsOf(mask))
          for (int64_t k = 0; k < warps(); ++k)
            clocks[warp][k] = std::max(clocks[warp][k], mbarrierClocks[w.at][k]);
    return Status::success();
  }
  if (auto load = dyn_cast<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(op))
    return execTmaLoad(load, mask);
  if (auto store = dyn_cast<NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp>(op))
    return execTmaStore(store, mask);
  if (isa<NVVM::ClusterArriveOp, NVVM::ClusterArriveRelaxedOp, NVVM::ClusterWaitOp>(op)) {
    for (int64_t t = 0; t < threads; ++t)
      if (!mask[t])
        return error(&op, "a cluster barrier that thread " + std::to_string(t) +
                              " does not reach");
    if (!isa<NVVM::ClusterWaitOp>(op)) {
      cluster->arrive(rank);
      return Status::success();
    }
    if (Status s = cluster->wait(rank); !s.ok())
      return s;
    syncWarps(warpsOf(mask)); // (every thread of the CTA arrived, then waited)
    return Status::success();
  }
  if (auto mapa = dyn_cast<NVVM::MapaOp>(op)) {
    const Val &p = get(mapa.getA()), &r = get(mapa.getB());
    Val &out = def(mapa.getResult());
    for (int64_t t = 0; t < threads; ++t) {
      if (!mask[t])
        continue;
      int64_t peer = static_cast<int64_t>(r.cells[t]);
      if (peer < 0 || peer >= cluster->size())
        return error(&op, "maps to rank " + std::to_string(peer) + " of a cluster of " +
                              std::to_string(cluster->size()));
      if (!isSharedAddress(p.cells[t]))
        return error(&op, "maps a pointer that is not to shared memory");
      auto [it, fresh] = mapped.try_emplace(peer, 0);
      if (fresh) {
        Memory &w = cluster->cta(peer).sharedWindow();
        descs.push_back(Desc{&w, 0, IntegerType::get(op.getContext(), 8),
                             {static_cast<int64_t>(w.bytes.size())}});
        it->second = static_cast<int64_t>(descs.size()) - 1;
      }
      out.cells[t] = makePtr(it->second, static_cast<int64_t>(p.cells[t]));
    }
    return Status::success();
  }
  if (auto e = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(op)) {
    // Shared memory: the address in the window (of the view's first byte:
    // descriptors keep no separate base). Device memory: a pointer to the
    // buffer's first byte.
    Val &out = def(e.getResult());
    DenseMap<Memory *, int64_t> made;
    for (int64_t t = 0; t < threads; ++t) {
      if (!mask[t])
        continue;
      const Desc &source = descOf(e.getSource(), t);
      if (source.mem == &window) {
        out.cells[t] = static_cast<double>(source.offset);
        continue;
      }
      Memory *mem = source.mem;
      auto [it, fresh] = made.try_emplace(mem, 0);
      if (fresh) {
        descs.push_back(Desc{mem, 0, IntegerType::get(op.getContext(), 8),
                             {static_cast<int64_t>(mem->bytes.size())}});
        it->second = static_cast<int64_t>(descs.size()) - 1;
      }
      out.cells[t] = makePtr(it->second, 0);
    }
    return Status::success();
  }
  if (auto cast = dyn_cast<LLVM::IntToPtrOp>(op)) {
    const Val &in = get(cast.getArg());
    Val &out = def(cast.getResult());
    out.cells = in.cells;
    return Status::success();
  }
  // Named barriers (bar.sync id, count) and their reductions
  // (barrier.cta.red.{or,and,popc}): in lockstep, the threads at one are
  // those of the mask, and where they are its thread count it completes
  // here; fewer wait for other fibers' threads (warpgroups taking turns).
  // `arrive` (bar.arrive): counted at the barrier, no wait.
  auto namedBarrier = [&](Value idValue, Value countValue, Value pred, StringRef reduction,
                          Value result, bool arrive) -> Status {
    std::map<int64_t, std::vector<int64_t>> byId;
    for (int64_t t = 0; t < threads; ++t)
      if (mask[t])
        byId[idValue ? static_cast<int64_t>(get(idValue).cells[t]) : 0].push_back(t);
    Val *out = result ? &def(result) : nullptr;
    for (auto &[id, members] : byId) {
      int64_t count = countValue ? static_cast<int64_t>(get(countValue).cells[members[0]]) : threads;
      std::vector<int64_t> ws;
      for (int64_t t : members)
        if (ws.empty() || ws.back() != t / kWarp)
          ws.push_back(t / kWarp);
      if (arrive || static_cast<int64_t>(members.size()) != count) {
        if (reduction != "")
          return error(&op, "barrier " + std::to_string(id) + " of " + std::to_string(count) +
                                " threads reached by " + std::to_string(members.size()));
        if (Status s = namedBarrierPhase(&op, id, count, members.size(), ws, arrive); !s.ok())
          return s;
        continue;
      }
      syncWarps(ws);
      if (!out)
        continue;
      int64_t any = 0, all = 1, popc = 0;
      for (int64_t t : members) {
        bool p = get(pred).cells[t] != 0;
        any |= p;
        all &= p;
        popc += p;
      }
      for (int64_t t : members)
        out->cells[t] = reduction == "or" ? any : reduction == "and" ? all : popc;
    }
    return Status::success();
  };
  if (auto arrive = dyn_cast<NVVM::BarrierArriveOp>(op))
    return namedBarrier(arrive.getBarrierId(), arrive.getNumberOfThreads(), Value(), "", Value(),
                        /*arrive=*/true);
  if (auto bar = dyn_cast<NVVM::BarrierOp>(op)) {
    if (bar.getReductionOp() || bar.getRes())
      return error(&op, "barrier reductions are not simulated in this form");
    return namedBarrier(bar.getBarrierId(), bar.getNumberOfThreads(), Value(), "", Value(),
                        /*arrive=*/false);
  }
  if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
    StringRef name = call.getIntrin();
    for (StringRef red : {"or", "and", "popc"})
      if (name.starts_with(("llvm.nvvm.barrier.cta.red." + red + ".").str()) &&
          call.getArgs().size() == 3 && call.getNumResults() == 1)
        return namedBarrier(call.getArgs()[0], call.getArgs()[1], call.getArgs()[2], red,
                            call.getResult(0), /*arrive=*/false);
    return error(&op, "intrinsic " + name.str() + " is not simulated");
  }
  if (isa<gpu::BarrierOp>(op)) {
    for (int64_t t = 0; t < threads; ++t)
      if (!mask[t])
        return error(&op, "a barrier that thread " + std::to_string(t) + " does not reach");
    syncWarps(warpsOf(mask));
    return Status::success();
  }
  if (auto sh = dyn_cast<gpu::ShuffleOp>(op)) {
    const Val &v = get(sh.getValue()), &off = get(sh.getOffset()), &wid = get(sh.getWidth());
    Val &out = def(sh.getShuffleResult());
    Val &valid = def(sh.getValid());
    for (int64_t t = 0; t < threads; ++t) {
      if (!mask[t])
        continue;
      int64_t lane = t % kWarp, width = static_cast<int64_t>(wid.cells[t]);
      int64_t o = static_cast<int64_t>(off.cells[t]), base = lane - lane % width, src = lane;
      switch (sh.getMode()) {
      case gpu::ShuffleMode::XOR: src = lane ^ o; break;
      case gpu::ShuffleMode::DOWN: src = lane + o; break;
      case gpu::ShuffleMode::UP: src = lane - o; break;
      case gpu::ShuffleMode::IDX: src = base + o; break;
      }
      bool ok = src >= base && src < base + width;
      int64_t from = t - lane + (ok ? src : lane);
      if (ok && !mask[from])
        return error(&op, "thread " + std::to_string(t) + " reads a lane that does not take part");
      out.cells[t] = v.cells[from];
      valid.cells[t] = ok;
    }
    return Status::success();
  }
  if (auto dyn = dyn_cast<gpu::DynamicSharedMemoryOp>(op)) {
    descs.push_back(Desc{&window, dynamicAt, IntegerType::get(op.getContext(), 8),
                         {static_cast<int64_t>(window.bytes.size()) - dynamicAt}});
    Val &out = def(dyn.getResult());
    std::fill(out.cells.begin(), out.cells.end(), static_cast<double>(descs.size() - 1));
    return Status::success();
  }
  if (auto view = dyn_cast<memref::ViewOp>(op)) {
    auto type = llvm::cast<MemRefType>(view.getType());
    Val &out = def(view.getResult());
    DenseMap<std::pair<int64_t, int64_t>, int64_t> made; // (source, shift) -> desc
    for (int64_t t = 0; t < threads; ++t) {
      if (!mask[t])
        continue;
      int64_t src = static_cast<int64_t>(get(view.getSource()).cells[t]);
      int64_t shift = static_cast<int64_t>(get(view.getByteShift()).cells[t]);
      auto [it, fresh] = made.try_emplace({src, shift}, 0);
      if (fresh) {
        Desc d = descs[src];
        d.offset += shift;
        d.elem = type.getElementType();
        d.shape.assign(type.getShape().begin(), type.getShape().end());
        unsigned dyn = 0;
        for (int64_t &s : d.shape)
          if (ShapedType::isDynamic(s))
            s = static_cast<int64_t>(get(view.getSizes()[dyn++]).cells[t]);
        descs.push_back(d);
        it->second = descs.size() - 1;
      }
      out.cells[t] = static_cast<double>(it->second);
    }
    return Status::success();
  }
  if (auto dim = dyn_cast<memref::DimOp>(op)) {
    Val &out = def(dim.getResult());
    for (int64_t t = 0; t < threads; ++t)
      if (mask[t])
        out.cells[t] = static_cast<double>(
            descOf(dim.getSource(), t).shape[static_cast<int64_t>(get(dim.getIndex()).cells[t])]);
    return Status::success();
  }
  if (auto load = dyn_cast<memref::LoadOp>(op)) {
    Val &out = def(load.getResult());
    for (int64_t t = 0; t < threads; ++t) {
      if (!mask[t])
        continue;
      const Desc &d = descOf(load.getMemRef(), t);
      int64_t at;
      if (Status s = address(&op, d, indices(load.getIndices(), t), 1, at); !s.ok())
        return s;
      if (Status s = sharedAccess(&op, t, d.mem, at, bytesOf(d.elem), Access::Read); !s.ok())
        return s;
      countTraffic(launch.traffic, d.mem, bytesOf(d.elem), false);
      out.cells[t] = loadElem(d, at);
    }
    return Status::success();
  }
  if (auto store = dyn_cast<memref::StoreOp>(op)) {
    const Val &v = get(store.getValueToStore());
    for (int64_t t = 0; t < threads; ++t) {
      if (!mask[t])
        continue;
      const Desc &d = descOf(store.getMemRef(), t);
      int64_t at;
      if (Status s = address(&op, d, indices(store.getIndices(), t), 1, at); !s.ok())
        return s;
      if (Status s = checkWrite(&op, d.mem, at, bytesOf(d.elem)); !s.ok())
        return s;
      if (Status s = sharedAccess(&op, t, d.mem, at, bytesOf(d.elem), Access::Write); !s.ok())
        return s;
      countTraffic(launch.traffic, d.mem, bytesOf(d.elem), true);
      storeElem(d, at, v.cells[t]);
    }
    return Status::success();
  }
  if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op)) {
    int64_t count = copy.getDstElements().getZExtValue();
    for (int64_t t = 0; t < threads; ++t) {
      if (!mask[t])
        continue;
      const Desc &dst = descOf(copy.getDst(), t), &src = descOf(copy.getSrc(), t);
      int64_t valid = copy.getSrcElements()
                          ? static_cast<int64_t>(get(copy.getSrcElements()).cells[t])
                          : count;
      int64_t dstAt, srcAt = 0;
      if (Status s = address(&op, dst, indices(copy.getDstIndices(), t), count, dstAt); !s.ok())
        return s;
      if (valid > 0)
        if (Status s = address(&op, src, indices(copy.getSrcIndices(), t), valid, srcAt); !s.ok())
          return s;
      if (Status s = checkWrite(&op, dst.mem, dstAt, count * bytesOf(dst.elem)); !s.ok())
        return s;
      if (Status s = sharedAccess(&op, t, dst.mem, dstAt, count * bytesOf(dst.elem),
                                  Access::CheckWrite);
          !s.ok())
        return s;
      pending.push_back(Copy{dst.mem, src.mem, dstAt, srcAt, count * bytesOf(dst.elem),
                             std::min(valid, count) * bytesOf(src.elem), t});
      countTraffic(launch.traffic, src.mem, valid > 0 ? count * bytesOf(dst.elem) : 0, false);
    }
    def(copy.getAsyncToken());
    return Status::success();
  }
  if (auto group = dyn_cast<nvgpu::DeviceAsyncCreateGroupOp>(op)) {
    groups.push_back(std::move(pending));
    pending.clear();
    def(group.getAsyncToken());
    return Status::success();
  }
  if (auto wait = dyn_cast<nvgpu::DeviceAsyncWaitOp>(op)) {
    size_t keep = wait.getNumGroups() ? *wait.getNumGroups() : 0;
    while (groups.size() > keep) {
      applyCopies(groups.front());
      groups.erase(groups.begin());
    }
    return Status::success();
  }
  if (auto gep = dyn_cast<LLVM::GEPOp>(op)) {
    if (!gep.getElemType().isInteger(8) || gep.getDynamicIndices().size() != 1 ||
        gep.getRawConstantIndices().size() != 1)
      return error(&op, "only byte offsets (one dynamic i8 index) are simulated");
    const Val &base = get(gep.getBase()), &off = get(gep.getDynamicIndices()[0]);
    Val &out = def(gep.getResult());
    for (int64_t t = 0; t < threads; ++t)
      out.cells[t] = isSharedAddress(base.cells[t])
                         ? base.cells[t] + off.cells[t]
                         : makePtr(ptrDesc(base.cells[t]), ptrOffset(base.cells[t]) +
                                                               static_cast<int64_t>(off.cells[t]));
    return Status::success();
  }
  // A pointer access of `width` elements of `elem` for thread t: the byte
  // address, checked against the memory's size.
  auto pointed = [&](Value ptr, int64_t t, Type elem, int64_t width, Desc *&d,
                     int64_t &at) -> Status {
    double p = get(ptr).cells[t];
    if (isSharedAddress(p)) {
      d = &descs[windowDesc];
      at = static_cast<int64_t>(p);
    } else {
      d = &descs[ptrDesc(p)];
      at = d->offset + ptrOffset(p);
    }
    if (d->mem->exited)
      return error(&op, "accesses " + d->mem->name + ", which has returned");
    if (at < 0 || at + width * bytesOf(elem) > static_cast<int64_t>(d->mem->bytes.size()))
      return error(&op, "pointer access past the end of " + d->mem->name);
    return Status::success();
  };
  if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
    Value v = store.getValue();
    Type elem = elemOf(v.getType());
    const Val &x = get(v);
    for (int64_t t = 0; t < threads; ++t) {
      if (!mask[t])
        continue;
      Desc *d;
      int64_t at;
      if (Status s = pointed(store.getAddr(), t, elem, x.width, d, at); !s.ok())
        return s;
      if (Status s = checkWrite(&op, d->mem, at, x.width * bytesOf(elem)); !s.ok())
        return s;
      if (Status s = sharedAccess(&op, t, d->mem, at, x.width * bytesOf(elem), Access::Write);
          !s.ok())
        return s;
      countTraffic(launch.traffic, d->mem, x.width * bytesOf(elem), true);
      for (int64_t c = 0; c < x.width; ++c) {
        uint64_t u = toBits(elem, x.cells[t * x.width + c]);
        std::memcpy(d->mem->bytes.data() + at + c * bytesOf(elem), &u, bytesOf(elem));
      }
    }
    return Status::success();
  }
  // An L2 prefetch (GEMM weights, attention's keys, ahead of the wait)
  // changes nothing, but its line must lie in a buffer: a byte of one.
  if (auto prefetch = dyn_cast<NVVM::PrefetchOp>(op)) {
    for (int64_t t = 0; t < threads; ++t) {
      if (!mask[t])
        continue;
      Desc *d;
      int64_t at;
      if (Status s = pointed(prefetch.getAddr(), t, IntegerType::get(op.getContext(), 8), 1, d, at);
          !s.ok())
        return s;
      if (d == &descs[windowDesc])
        return error(&op, "prefetches shared memory");
      if (launch.traffic && d->mem->value >= 0)
        launch.traffic->prefetched[d->mem->value][at] += 1;
    }
    return Status::success();
  }
  if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
    Type elem = elemOf(load.getType());
    Val &out = def(load.getResult());
    for (int64_t t = 0; t < threads; ++t) {
      if (!mask[t])
        continue;
      Desc *d;
      int64_t at;
      if (Status s = pointed(load.getAddr(), t, elem, out.width, d, at); !s.ok())
        return s;
      if (Status s = sharedAccess(&op, t, d->mem, at, out.width * bytesOf(elem), Access::Read);
          !s.ok())
        return s;
      countTraffic(launch.traffic, d->mem, out.width * bytesOf(elem), false);
      for (int64_t c = 0; c < out.width; ++c) {
        uint64_t u = 0;
        std::memcpy(&u, d->mem->bytes.data() + at + c * bytesOf(elem), bytesOf(elem));
        out.cells[t * out.width + c] = fromBits(elem, u);
      }
    }
    return Status::success();
  }
  if (auto rmw = dyn_cast<LLVM::AtomicRMWOp>(op)) {
    if (rmw.getBinOp() != LLVM::AtomicBinOp::add)
      return error(&op, "only atomic adds are simulated");
    Type elem = rmw.getVal().getType();
    const Val &x = get(rmw.getVal());
    Val &out = def(rmw.getRes());
    for (int64_t t = 0; t < threads; ++t) { // (in thread order: one at a time)
      if (!mask[t])
        continue;
      Desc *d;
      int64_t at;
      if (Status s = pointed(rmw.getPtr(), t, elem, 1, d, at); !s.ok())
        return s;
      uint64_t u = 0;
      std::memcpy(&u, d->mem->bytes.data() + at, bytesOf(elem));
      double old = fromBits(elem, u);
      out.cells[t] = old;
      u = toBits(elem, llvm::isa<FloatType>(elem) ? old + x.cells[t]
                                                  : normInt(elem, static_cast<int64_t>(old + x.cells[t])));
      std::memcpy(d->mem->bytes.data() + at, &u, bytesOf(elem));
    }
    return Status::success();
  }
  if (isa<LLVM::FenceOp>(op))
    return Status::success(); // (one CTA at a time: memory is always coherent)
  if (isa<NVVM::SyncWarpOp>(op)) {
    if (!fullWarps(mask, threads))
      return error(&op, "a warp synchronization under a partial warp");
    return Status::success();
  }
  return error(&op, "is not simulated");
}

Status Cta::execArith(Operation &op, const Mask &mask, bool &handled) {
  handled = true;
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    Val &out = def(c.getResult());
    Attribute a = c.getValue();
    std::vector<Cell> cells;
    if (auto i = llvm::dyn_cast<IntegerAttr>(a))
      cells.push_back(normInt(i.getType(), i.getValue().getSExtValue()));
    else if (auto f = llvm::dyn_cast<FloatAttr>(a))
      cells.push_back(f.getValueAsDouble());
    else if (auto d = llvm::dyn_cast<DenseElementsAttr>(a)) {
      Type e = d.getElementType();
      if (llvm::isa<FloatType>(e))
        for (APFloat v : d.getValues<APFloat>())
          cells.push_back(v.convertToDouble());
      else
        for (APInt v : d.getValues<APInt>())
          cells.push_back(normInt(e, v.getSExtValue()));
    } else {
      return error(&op, "constant kind is not simulated");
    }
    if (static_cast<int64_t>(cells.size()) != out.width)
      return error(&op, "constant size mismatch");
    for (int64_t t = 0; t < threads; ++t)
      for (int64_t k = 0; k < out.width; ++k)
        out.cells[t * out.width + k] = cells[k];
    return Status::success();
  }
  if (op.getDialect() != op.getContext()->getLoadedDialect<arith::ArithDialect>() &&
      op.getDialect() != op.getContext()->getLoadedDialect<math::MathDialect>()) {
    handled = false;
    return Status::success();
  }
  if (op.getNumResults() != 1)
    return error(&op, "is not simulated");
  Value res = op.getResult(0);
  Type rt = elemOf(res.getType());
  Val &out = def(res);
  int64_t w = out.width;
  SmallVector<const Val *> in;
  for (Value v : op.getOperands())
    in.push_back(&get(v));
  Type it = op.getNumOperands() ? elemOf(op.getOperand(0).getType()) : rt;
  auto cell = [&](int64_t k, int64_t t, int64_t c) {
    const Val &v = *in[k];
    return v.width == 1 ? v.cells[t] : v.cells[t * v.width + c];
  };
  std::function<double(double, double)> bin;
  std::function<double(double)> un;
  StringRef name = op.getName().getStringRef();
  if (name == "arith.addf") bin = [](double a, double b) { return a + b; };
  else if (name == "arith.subf") bin = [](double a, double b) { return a - b; };
  else if (name == "arith.mulf") bin = [](double a, double b) { return a * b; };
  else if (name == "arith.divf") bin = [](double a, double b) { return a / b; };
  else if (name == "arith.maximumf")
    bin = [](double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); };
  else if (name == "arith.minimumf")
    bin = [](double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); };
  else if (name == "arith.maxnumf") bin = [](double a, double b) { return std::fmax(a, b); };
  else if (name == "arith.minnumf") bin = [](double a, double b) { return std::fmin(a, b); };
  else if (name == "arith.negf") un = [](double a) { return -a; };
  else if (name == "math.exp") un = [](double a) { return std::exp(a); };
  else if (name == "math.exp2") un = [](double a) { return std::exp2(a); };
  else if (name == "math.log") un = [](double a) { return std::log(a); };
  else if (name == "math.log2") un = [](double a) { return std::log2(a); };
  else if (name == "math.tanh") un = [](double a) { return std::tanh(a); };
  else if (name == "math.sqrt") un = [](double a) { return std::sqrt(a); };
  else if (name == "math.rsqrt") un = [](double a) { return 1.0 / std::sqrt(a); };
  else if (name == "math.absf") un = [](double a) { return std::fabs(a); };
  else if (name == "math.erf") un = [](double a) { return std::erf(a); };
  else if (name == "arith.extf" || name == "arith.truncf") un = [](double a) { return a; };
  if (bin) {
    for (int64_t t = 0; t < threads; ++t)
      if (mask[t])
        for (int64_t c = 0; c < w; ++c)
          out.cells[t * w + c] = roundFloat(rt, bin(cell(0, t, c), cell(1, t, c)));
    return Status::success();
  }
  if (un) {
    for (int64_t t = 0; t < threads; ++t)
      if (mask[t])
        for (int64_t c = 0; c < w; ++c)
          out.cells[t * w + c] = roundFloat(rt, un(cell(0, t, c)));
    return Status::success();
  }
  if (auto fma = dyn_cast<math::FmaOp>(op)) {
    for (int64_t t = 0; t < threads; ++t)
      if (mask[t])
        for (int64_t c = 0; c < w; ++c)
          out.cells[t * w + c] = roundFloat(rt, cell(0, t, c) * cell(1, t, c) + cell(2, t, c));
    return Status::success();
  }
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    using P = arith::CmpFPredicate;
    P p = cmp.getPredicate();
    for (int64_t t = 0; t < threads; ++t)
      if (mask[t])
        for (int64_t c = 0; c < w; ++c) {
          double a = cell(0, t, c), b = cell(1, t, c);
          bool unord = std::isnan(a) || std::isnan(b), r = false;
          switch (p) {
          case P::OEQ: r = !unord && a == b; break;
          case P::ONE: r = !unord && a != b; break;
          case P::OLT: r = !unord && a < b; break;
          case P::OLE: r = !unord && a <= b; break;
          case P::OGT: r = !unord && a > b; break;
          case P::OGE: r = !unord && a >= b; break;
          case P::ORD: r = !unord; break;
          case P::UEQ: r = unord || a == b; break;
          case P::UNE: r = unord || a != b; break;
          case P::ULT: r = unord || a < b; break;
          case P::ULE: r = unord || a <= b; break;
          case P::UGT: r = unord || a > b; break;
          case P::UGE: r = unord || a >= b; break;
          case P::UNO: r = unord; break;
          case P::AlwaysTrue: r = true; break;
          case P::AlwaysFalse: r = false; break;
          }
          out.cells[t * w + c] = r;
        }
    return Status::success();
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    using P = arith::CmpIPredicate;
    for (int64_t t = 0; t < threads; ++t)
      if (mask[t])
        for (int64_t c = 0; c < w; ++c) {
          Cell a = cell(0, t, c), b = cell(1, t, c);
          uint64_t ua = asUnsigned(it, a), ub = asUnsigned(it, b);
          bool r = false;
          switch (cmp.getPredicate()) {
          case P::eq: r = a == b; break;
          case P::ne: r = a != b; break;
          case P::slt: r = a < b; break;
          case P::sle: r = a <= b; break;
          case P::sgt: r = a > b; break;
          case P::sge: r = a >= b; break;
          case P::ult: r = ua < ub; break;
          case P::ule: r = ua <= ub; break;
          case P::ugt: r = ua > ub; break;
          case P::uge: r = ua >= ub; break;
          }
          out.cells[t * w + c] = r;
        }
    return Status::success();
  }
  if (auto sel = dyn_cast<arith::SelectOp>(op)) {
    for (int64_t t = 0; t < threads; ++t)
      if (mask[t])
        for (int64_t c = 0; c < w; ++c)
          out.cells[t * w + c] = cell(0, t, c) != 0 ? cell(1, t, c) : cell(2, t, c);
    return Status::success();
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp, arith::TruncIOp>(op)) {
    for (int64_t t = 0; t < threads; ++t)
      if (mask[t])
        for (int64_t c = 0; c < w; ++c)
          out.cells[t * w + c] = normInt(rt, static_cast<int64_t>(cell(0, t, c)));
    return Status::success();
  }
  if (isa<arith::ExtUIOp>(op)) {
    for (int64_t t = 0; t < threads; ++t)
      if (mask[t])
        for (int64_t c = 0; c < w; ++c)
          out.cells[t * w + c] = static_cast<double>(asUnsigned(it, cell(0, t, c)));
    return Status::success();
  }
  if (isa<arith::SIToFPOp, arith::UIToFPOp>(op)) {
    bool u = isa<arith::UIToFPOp>(op);
    for (int64_t t = 0; t < threads; ++t)
      if (mask[t])
        for (int64_t c = 0; c < w; ++c)
          out.cells[t * w + c] = roundFloat(
              rt, u ? static_cast<double>(asUnsigned(it, cell(0, t, c))) : cell(0, t, c));
    return Status::success();
  }
  if (isa<arith::FPToSIOp, arith::FPToUIOp>(op)) {
    for (int64_t t = 0; t < threads; ++t)
      if (mask[t])
        for (int64_t c = 0; c < w; ++c)
          out.cells[t * w + c] = normInt(rt, static_cast<int64_t>(std::trunc(cell(0, t, c))));
    return Status::success();
  }
  if (isa<arith::BitcastOp>(op)) {
    for (int64_t t = 0; t < threads; ++t)
      if (mask[t])
        for (int64_t c = 0; c < w; ++c)
          out.cells[t * w + c] = fromBits(rt, toBits(it, cell(0, t, c)));
    return Status::success();
  }
  // Integer arithmetic (index, i1, i32, i64).
  std::function<int64_t(int64_t, int64_t, uint64_t, uint64_t)> ib;
  if (name == "arith.addi") ib = [](int64_t a, int64_t b, uint64_t, uint64_t) { return a + b; };
  else if (name == "arith.subi") ib = [](int64_t a, int64_t b, uint64_t, uint64_t) { return a - b; };
  else if (name == "arith.muli") ib = [](int64_t a, int64_t b, uint64_t, uint64_t) { return a * b; };
  else if (name == "arith.andi") ib = [](int64_t a, int64_t b, uint64_t, uint64_t) { return a & b; };
  else if (name == "arith.ori") ib = [](int64_t a, int64_t b, uint64_t, uint64_t) { return a | b; };
  else if (name == "arith.xori") ib = [](int64_t a, int64_t b, uint64_t, uint64_t) { return a ^ b; };
  else if (name == "arith.shli")
    ib = [](int64_t a, int64_t, uint64_t, uint64_t ub) { return int64_t(uint64_t(a) << ub); };
  else if (name == "arith.shrui")
    ib = [](int64_t, int64_t, uint64_t ua, uint64_t ub) { return int64_t(ua >> ub); };
  else if (name == "arith.shrsi") ib = [](int64_t a, int64_t, uint64_t, uint64_t ub) { return a >> ub; };
  else if (name == "arith.divui")
    ib = [](int64_t, int64_t, uint64_t ua, uint64_t ub) { return ub ? int64_t(ua / ub) : 0; };
  else if (name == "arith.remui")
    ib = [](int64_t, int64_t, uint64_t ua, uint64_t ub) { return ub ? int64_t(ua % ub) : 0; };
  else if (name == "arith.divsi")
    ib = [](int64_t a, int64_t b, uint64_t, uint64_t) { return b ? a / b : 0; };
  else if (name == "arith.remsi")
    ib = [](int64_t a, int64_t b, uint64_t, uint64_t) { return b ? a % b : 0; };
  else if (name == "arith.ceildivui")
    ib = [](int64_t, int64_t, uint64_t ua, uint64_t ub) { return ub ? int64_t((ua + ub - 1) / ub) : 0; };
  else if (name == "arith.ceildivsi")
    ib = [](int64_t a, int64_t b, uint64_t, uint64_t) {
      if (!b)
        return int64_t(0);
      int64_t q = a / b;
      return q * b != a && ((a > 0) == (b > 0)) ? q + 1 : q;
    };
  else if (name == "arith.floordivsi")
    ib = [](int64_t a, int64_t b, uint64_t, uint64_t) {
      if (!b)
        return int64_t(0);
      int64_t q = a / b;
      return q * b != a && ((a < 0) != (b < 0)) ? q - 1 : q;
    };
  else if (name == "arith.minui")
    ib = [](int64_t a, int64_t b, uint64_t ua, uint64_t ub) { return ua < ub ? a : b; };
  else if (name == "arith.maxui")
    ib = [](int64_t a, int64_t b, uint64_t ua, uint64_t ub) { return ua > ub ? a : b; };
  else if (name == "arith.minsi")
    ib = [](int64_t a, int64_t b, uint64_t, uint64_t) { return std::min(a, b); };
  else if (name == "arith.maxsi")
    ib = [](int64_t a, int64_t b, uint64_t, uint64_t) { return std::max(a, b); };
  if (ib) {
    for (int64_t t = 0; t < threads; ++t)
      if (mask[t])
        for (int64_t c = 0; c < w; ++c) {
          Cell a = cell(0, t, c), b = cell(1, t, c);
          out.cells[t * w + c] = normInt(rt, ib(static_cast<int64_t>(a), static_cast<int64_t>(b),
                                                asUnsigned(it, a), asUnsigned(it, b)));
        }
    return Status::success();
  }
  return error(&op, "is not simulated");
}

Status Cta::execVector(Operation &op, const Mask &mask, bool &handled) {
  handled = true;
  if (auto e = dyn_cast<vector::ExtractOp>(op)) {
    if (!e.getDynamicPosition().empty())
      return error(&op, "dynamic positions are not simulated");
    auto src = llvm::cast<VectorType>(e.getSource().getType());
    ArrayRef<int64_t> pos = e.getStaticPosition();
    int64_t at = 0, stride = src.getNumElements();
    for (size_t k = 0; k < pos.size(); ++k) {
      stride /= src.getDimSize(k);
      at += pos[k] * stride;
    }
    const Val &in = get(e.getSource());
    Val &out = def(e.getResult());
    for (int64_t t = 0; t < threads; ++t)
      for (int64_t c = 0; c < out.width; ++c)
        out.cells[t * out.width + c] = in.cells[t * in.width + at + c];
    return Status::success();
  }
  if (auto ins = dyn_cast<vector::InsertOp>(op)) {
    if (!ins.getDynamicPosition().empty())
      return error(&op, "dynamic positions are not simulated");
    auto dst = llvm::cast<VectorType>(ins.getDest().getType());
    ArrayRef<int64_t> pos = ins.getStaticPosition();
    int64_t at = 0, stride = dst.getNumElements();
    for (size_t k = 0; k < pos.size(); ++k) {
      stride /= dst.getDimSize(k);
      at += pos[k] * stride;
    }
    const Val &in = get(ins.getValueToStore()), &base = get(ins.getDest());
    Val &out = def(ins.getResult());
    out.cells = base.cells;
    for (int64_t t = 0; t < threads; ++t)
      for (int64_t c = 0; c < in.width; ++c)
        out.cells[t * out.width + at + c] = in.cells[t * in.width + c];
    return Status::success();
  }
  if (auto fe = dyn_cast<vector::FromElementsOp>(op)) {
    Val &out = def(fe.getResult());
    for (auto [k, v] : llvm::enumerate(fe.getElements())) {
      const Val &in = get(v);
      for (int64_t t = 0; t < threads; ++t)
        out.cells[t * out.width + k] = in.cells[t];
    }
    return Status::success();
  }
  if (auto bc = dyn_cast<vector::BroadcastOp>(op)) {
    const Val &in = get(bc.getSource());
    Val &out = def(bc.getResult());
    if (out.width % in.width != 0)
      return error(&op, "broadcast shape is not simulated");
    for (int64_t t = 0; t < threads; ++t)
      for (int64_t c = 0; c < out.width; ++c)
        out.cells[t * out.width + c] = in.cells[t * in.width + c % in.width];
    return Status::success();
  }
  if (auto sh = dyn_cast<vector::ShuffleOp>(op)) {
    const Val &a = get(sh.getV1()), &b = get(sh.getV2());
    Val &out = def(sh.getResult());
    ArrayRef<int64_t> m = sh.getMask();
    for (int64_t t = 0; t < threads; ++t)
      for (int64_t c = 0; c < out.width; ++c) {
        int64_t k = m[c];
        out.cells[t * out.width + c] =
            k < a.width ? a.cells[t * a.width + k] : b.cells[t * b.width + k - a.width];
      }
    return Status::success();
  }
  if (auto bc = dyn_cast<vector::BitCastOp>(op)) {
    Type from = elemOf(bc.getSource().getType()), to = elemOf(bc.getResult().getType());
    const Val &in = get(bc.getSource());
    Val &out = def(bc.getResult());
    int64_t fb = bytesOf(from), tb = bytesOf(to);
    for (int64_t t = 0; t < threads; ++t) {
      std::vector<uint8_t> bytes(in.width * fb);
      for (int64_t c = 0; c < in.width; ++c) {
        uint64_t u = toBits(from, in.cells[t * in.width + c]);
        std::memcpy(bytes.data() + c * fb, &u, fb);
      }
      for (int64_t c = 0; c < out.width; ++c) {
        uint64_t u = 0;
        std::memcpy(&u, bytes.data() + c * tb, tb);
        out.cells[t * out.width + c] = fromBits(to, u);
      }
    }
    return Status::success();
  }
  if (auto red = dyn_cast<vector::ReductionOp>(op)) {
    const Val &in = get(red.getVector());
    Type rt = red.getResult().getType();
    Val &out = def(red.getResult());
    using K = vector::CombiningKind;
    for (int64_t t = 0; t < threads; ++t) {
      if (!mask[t])
        continue;
      double r = 0;
      for (int64_t c = 0; c < in.width; ++c) {
        double x = in.cells[t * in.width + c];
        if (c == 0) {
          r = x;
          continue;
        }
        switch (red.getKind()) {
        case K::ADD: r += x; break;
        case K::MUL: r *= x; break;
        case K::MAXIMUMF: r = std::isnan(r) || std::isnan(x) ? NAN : std::max(r, x); break;
        case K::MINIMUMF: r = std::isnan(r) || std::isnan(x) ? NAN : std::min(r, x); break;
        case K::MAXNUMF: r = std::fmax(r, x); break;
        case K::MINNUMF: r = std::fmin(r, x); break;
        default: return error(&op, "reduction kind is not simulated");
        }
        if (llvm::isa<FloatType>(rt))
          r = roundFloat(rt, r);
      }
      if (red.getAcc()) {
        double a = get(red.getAcc()).cells[t];
        r = red.getKind() == K::ADD ? r + a : red.getKind() == K::MUL ? r * a : r;
      }
      out.cells[t] = llvm::isa<FloatType>(rt) ? roundFloat(rt, r) : r;
    }
    return Status::success();
  }
  if (auto fma = dyn_cast<vector::FMAOp>(op)) {
    const Val &a = get(fma.getLhs()), &b = get(fma.getRhs()), &c = get(fma.getAcc());
    Type rt = elemOf(fma.getResult().getType());
    Val &out = def(fma.getResult());
    for (int64_t t = 0; t < threads; ++t)
      if (mask[t])
        for (int64_t k = 0; k < out.width; ++k) {
          int64_t i = t * out.width + k;
          out.cells[i] = roundFloat(rt, a.cells[i] * b.cells[i] + c.cells[i]);
        }
    return Status::success();
  }
  if (auto load = dyn_cast<vector::LoadOp>(op)) {
    Val &out = def(load.getResult());
    for (int64_t t = 0; t < threads; ++t) {
      if (!mask[t])
        continue;
      const Desc &d = descOf(load.getBase(), t);
      int64_t at;
      if (Status s = address(&op, d, indices(load.getIndices(), t), out.width, at); !s.ok())
        return s;
      if (Status s = sharedAccess(&op, t, d.mem, at, out.width * bytesOf(d.elem), Access::Read);
          !s.ok())
        return s;
      countTraffic(launch.traffic, d.mem, out.width * bytesOf(d.elem), false);
      for (int64_t c = 0; c < out.width; ++c)
        out.cells[t * out.width + c] = loadElem(d, at + c * bytesOf(d.elem));
    }
    return Status::success();
  }
  if (auto store = dyn_cast<vector::StoreOp>(op)) {
    const Val &v = get(store.getValueToStore());
    for (int64_t t = 0; t < threads; ++t) {
      if (!mask[t])
        continue;
      const Desc &d = descOf(store.getBase(), t);
      int64_t at;
      if (Status s = address(&op, d, indices(store.getIndices(), t), v.width, at); !s.ok())
        return s;
      if (Status s = checkWrite(&op, d.mem, at, v.width * bytesOf(d.elem)); !s.ok())
        return s;
      if (Status s = sharedAccess(&op, t, d.mem, at, v.width * bytesOf(d.elem), Access::Write);
          !s.ok())
        return s;
      countTraffic(launch.traffic, d.mem, v.width * bytesOf(d.elem), true);
      for (int64_t c = 0; c < v.width; ++c)
        storeElem(d, at + c * bytesOf(d.elem), v.cells[t * v.width + c]);
    }
    return Status::success();
  }
  handled = false;
  return Status::success();
}

} // namespace

Expected<std::vector<HostTensor>> runAtGpuStage(const Graph &graph,
                                                const std::vector<HostTensor> &inputs,
                                                const CompileOptions &options, int64_t smCount,
                                                std::vector<LaunchTraffic> *traffic) {
  DialectRegistry registry;
  registerTilecDialects(registry);
  MLIRContext ctx(registry);
  ctx.disableMultithreading();
  CompiledProgram program;
  auto planned = tiletest::lowerAndPlan(ctx, graph, options, program);
  if (!planned)
    return planned.status();
  OwningOpRef<ModuleOp> module = planned.take();
  if (Status s = lowerBetween(*module, Stage::Tile, Stage::Gpu, options); !s.ok())
    return s;
  DenseMap<StringRef, gpu::GPUFuncOp> kernels;
  module->walk([&](gpu::GPUFuncOp f) { kernels[f.getName()] = f; });

  auto typeOf = [&](DType d) -> Type {
    Builder b(&ctx);
    return d == DType::F32 ? Type(b.getF32Type())
           : d == DType::BF16 ? Type(b.getBF16Type())
                              : Type(b.getF16Type());
  };
  // The program's buffers: inputs as given, outputs and temporaries NaN.
  std::vector<std::unique_ptr<Memory>> memories;
  std::vector<const ProgramValue *> outputs;
  for (size_t i = 0; i < program.values.size(); ++i) {
    const ProgramValue &v = program.values[i];
    auto mem = std::make_unique<Memory>();
    mem->name = "buffer of value " + std::to_string(i);
    mem->value = static_cast<int>(i);
    int64_t n = numElements(v.shape), eb = static_cast<int64_t>(dtypeBytes(v.dtype));
    mem->bytes.assign(n * eb, 0xFF);
    if (v.kind == ProgramValue::Kind::Input) {
      if (v.index >= static_cast<int>(inputs.size()) || inputs[v.index].shape != v.shape ||
          inputs[v.index].dtype != v.dtype)
        return Status::error("gpusim: input " + std::to_string(v.index) + " must be " +
                             dtypeName(v.dtype) + " " + shapeString(v.shape));
      Type t = typeOf(v.dtype);
      for (int64_t k = 0; k < n; ++k) {
        uint64_t u = toBits(t, inputs[v.index].values[k]);
        std::memcpy(mem->bytes.data() + k * eb, &u, eb);
      }
    }
    if (v.kind == ProgramValue::Kind::Output) {
      if (outputs.size() <= static_cast<size_t>(v.index))
        outputs.resize(v.index + 1, nullptr);
      outputs[v.index] = &v;
    }
    memories.push_back(std::move(mem));
  }
  for (size_t i = 0; i < program.values.size(); ++i) // (updated in place)
    if (program.values[i].inPlaceOf >= 0)
      memories[i]->bytes = memories[program.values[i].inPlaceOf]->bytes;
  for (const KernelLaunchPlan &plan : program.launches) {
    gpu::GPUFuncOp fn = kernels.lookup(plan.name);
    if (!fn)
      return Status::error("gpusim: no kernel " + plan.name);
    std::vector<Desc> descs;
    std::vector<int> args;
    for (auto [kb, type] : llvm::zip(plan.buffers, fn.getArgumentTypes())) {
      auto m = llvm::dyn_cast<MemRefType>(type);
      if (!m)
        return Status::error("gpusim: kernel " + plan.name + " takes a non-memref argument");
      const ProgramValue &v = program.values[kb.value];
      Desc d{memories[kb.value].get(), 0, m.getElementType(),
             SmallVector<int64_t>(m.getShape())};
      int64_t known = 1, dynamic = -1;
      for (auto [k, s] : llvm::enumerate(d.shape)) {
        if (ShapedType::isDynamic(s))
          dynamic = k;
        else
          known *= s;
      }
      int64_t n = numElements(v.shape);
      if (dynamic >= 0)
        d.shape[dynamic] = known ? n / known : 0;
      descs.push_back(d);
      args.push_back(static_cast<int>(descs.size() - 1));
    }
    // Split k: the launch's workspace, zeroed once as Executable does (each
    // launch leaves its counters at zero).
    if (plan.workspaceBytes > 0) {
      if (fn.getNumArguments() != plan.buffers.size() + 1 + plan.tensorMaps.size())
        return Status::error("gpusim: kernel " + plan.name + " has a workspace but no pointer");
      memories.push_back(std::make_unique<Memory>());
      memories.back()->bytes.assign(plan.workspaceBytes, 0);
      memories.back()->name = "the split workspace";
      descs.push_back(Desc{memories.back().get(), 0, Builder(&ctx).getI8Type(),
                           {plan.workspaceBytes}});
      args.push_back(static_cast<int>(descs.size() - 1));
    }
    // TMA: each tensor map, after the buffers (and the workspace), a pointer
    // to a descriptor of its own (a copy of its buffer's).
    LaunchInfo launch;
    if (traffic) {
      traffic->push_back(LaunchTraffic{});
      traffic->back().kernel = plan.name;
      launch.traffic = &traffic->back();
    }
    for (const TensorMapPlan &t : plan.tensorMaps) {
      if (t.buffer < 0 || t.buffer >= static_cast<int>(plan.buffers.size()))
        return Status::error("gpusim: kernel " + plan.name + " maps no buffer");
      descs.push_back(descs[t.buffer]);
      int64_t at = static_cast<int64_t>(descs.size()) - 1;
      launch.tensorMaps[at] = TensorMapInfo{at, SmallVector<int64_t>(t.dims.begin(), t.dims.end()),
                                            SmallVector<int64_t>(t.box.begin(), t.box.end())};
      args.push_back(static_cast<int>(at));
    }
    int64_t grid = plan.gridSize(), threads = plan.blockSize();
    // Persistent kernels: one CTA an SM at most, whole clusters (as
    // Executable launches them).
    if (plan.persistent && smCount >= plan.clusterM)
      grid = std::min(grid, smCount / plan.clusterM * plan.clusterM);
    // Row-loop kernels: the runtime launches the CTAs that fit at once
    // (here one an SM), each looping over row blocks.
    if (plan.rowLoop && plan.clusterM == 1)
      grid = std::min(grid, smCount);
    size_t fixedDescs = descs.size();
    int64_t clusterSize = plan.clusterM;
    if (grid % clusterSize != 0)
      return Status::error("gpusim: kernel " + plan.name + " has a grid of " +
                           std::to_string(grid) + " CTAs, not a multiple of its clusters of " +
                           std::to_string(clusterSize));
    for (int64_t blockIdx = 0; blockIdx < grid; blockIdx += clusterSize) {
      descs.resize(fixedDescs);
      Cluster cluster(fn, threads, blockIdx, clusterSize, grid, plan.sharedBytes, descs, launch);
      Status s = cluster.run(args);
      if (!s.ok())
        return Status::error(s.message() + " (kernel " + plan.name + ", CTA " +
                             std::to_string(blockIdx) +
                             (clusterSize > 1 ? "'s cluster" : "") + ")");
    }
  }
  for (size_t i = 0; i < program.values.size(); ++i)
    if (program.values[i].copyOf >= 0)
      memories[i]->bytes = memories[program.values[i].copyOf]->bytes;
  std::vector<HostTensor> out;
  for (size_t o = 0; o < outputs.size(); ++o) {
    const ProgramValue *v = outputs[o];
    if (!v)
      return Status::error("gpusim: no output " + std::to_string(o));
    Type t = typeOf(v->dtype);
    HostTensor h;
    h.shape = v->shape;
    h.dtype = v->dtype;
    const Memory &mem = *memories[v - program.values.data()];
    int64_t eb = static_cast<int64_t>(dtypeBytes(v->dtype));
    for (int64_t k = 0; k < numElements(v->shape); ++k) {
      uint64_t u = 0;
      std::memcpy(&u, mem.bytes.data() + k * eb, eb);
      h.values.push_back(static_cast<float>(fromBits(t, u)));
    }
    out.push_back(std::move(h));
  }
  return out;
}

} // namespace tilec::gpusim
