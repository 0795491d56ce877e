// tilec-bench: times compiled example ops on the GPU against the device's
// measured copy bandwidth (CUDA events, warm-up, median of batches, inputs
// rotated over several buffer sets so L2 does not serve them).
#include "tilec/compiler/Examples.h"
#include "tilec/compiler/Executable.h"

#include <algorithm>
#include <cstring>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <thread>

using namespace tilec;

namespace {

constexpr int64_t kL2Bytes = 60ll << 20;
constexpr int kBatches = 15;
/// triton.testing.do_bench's warm-up (the peers' timer), which both of
/// tilec-bench's timers match.
constexpr int kDoBenchWarmupMs = 25;
/// The batched timer's warm-up, past its first calls: calls for this many
/// milliseconds of GPU time (--warmup-ms; 25, as triton.testing.do_bench,
/// the peers' timer, warms up), so the clocks and the launch path are at
/// their steady state when the first batch starts: the 1- and 16-token
/// shapes' 300 timed calls take about 1.5 ms, right after the GPU idled
/// through the op's compilation. 0: the first calls only (3; the harness
/// before the fortieth session).
int gWarmupMs = kDoBenchWarmupMs;

struct Timer {
  std::unique_ptr<rt::Event> start, end;
};

/// Median milliseconds of one call of `body`, timed in batches. With
/// `hostMs`: also the median host milliseconds a call took to enqueue (its
/// batch's wall time from the first event's record to the second's, over
/// its calls): where it comes near the GPU's figure, the GPU waited for the
/// host between calls (a launch-bound shape's time is the launch path's).
Expected<double> timeMedian(const std::shared_ptr<rt::Context> &ctx, rt::Stream &stream,
                            int perBatch, const std::function<Status(int)> &body,
                            int warmup = 3, int batches = kBatches,
                            double *hostMs = nullptr) {
  auto start = rt::Event::create(ctx);
  auto end = rt::Event::create(ctx);
  if (!start || !end)
    return start ? end.status() : start.status();
  int call = 0;
  std::vector<double> hostSamples;
  // Milliseconds a call, over the next n calls between the two events.
  auto timeCalls = [&](int n) -> Expected<double> {
    auto host = std::chrono::steady_clock::now();
    if (Status s = (*start)->record(stream); !s.ok())
      return s;
    for (int i = 0; i < n; ++i)
      if (Status s = body(call++); !s.ok())
        return s;
    if (Status s = (*end)->record(stream); !s.ok())
      return s;
    hostSamples.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host).count() /
        n);
    auto ms = rt::Event::elapsedMs(**start, **end);
    if (!ms)
      return ms.status();
    return static_cast<double>(*ms) / n;
  };
  for (; call < warmup; ++call)
    if (Status s = body(call); !s.ok())
      return s;
  if (gWarmupMs > 0 && batches > 1) {
    // (The calls for gWarmupMs, from an estimate of 5.)
    auto each = timeCalls(5);
    if (!each)
      return each;
    int more = static_cast<int>(std::min(100000.0, std::ceil(gWarmupMs / std::max(*each, 1e-3))));
    for (int i = 0; i < more; ++i)
      if (Status s = body(call++); !s.ok())
        return s;
  }
  std::vector<double> samples;
  hostSamples.clear();
  for (int b = 0; b < batches; ++b) {
    auto ms = timeCalls(perBatch);
    if (!ms)
      return ms;
    samples.push_back(*ms);
  }
  if (hostMs) {
    std::nth_element(hostSamples.begin(), hostSamples.begin() + hostSamples.size() / 2,
                     hostSamples.end());
    *hostMs = hostSamples[hostSamples.size() / 2];
  }
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  return samples[samples.size() / 2];
}

/// What runs before each timed call to empty L2 of the last call's data:
/// "write" a 128 MB copy (256 MB touched, like do_bench's 256 MB memset; it
/// leaves L2 full of dirty lines, which the timed call must write back),
/// "read" a 256 MB sum (tilec's own row reduction: leaves L2 full of clean
/// lines), or "none" (inputs rotate over sets larger than L2 anyway).
class L2Flush {
public:
  static Expected<std::unique_ptr<L2Flush>> create(const std::shared_ptr<rt::Context> &ctx,
                                                   const std::string &mode) {
    auto f = std::unique_ptr<L2Flush>(new L2Flush());
    f->mode_ = mode;
    if (mode == "none")
      return f;
    if (mode != "write" && mode != "read")
      return Status::error("--gemm-flush must be write, read or none, got '" + mode + "'");
    constexpr int64_t kRows = 65536, kCols = 1024; // 256 MB of f32
    size_t bytes = mode == "write" ? (128ull << 20) : size_t(kRows * kCols * 4);
    auto src = rt::DeviceBuffer::allocate(ctx, bytes);
    if (!src)
      return src.status();
    f->src_ = src.take();
    if (Status s = f->src_.fill(0x3c); !s.ok())
      return s;
    auto dst = rt::DeviceBuffer::allocate(ctx, mode == "write" ? bytes : size_t(kRows * 4));
    if (!dst)
      return dst.status();
    f->dst_ = dst.take();
    if (mode == "read") {
      Graph g("l2_flush_sum");
      g.output(sum(g.input("x", {kRows, kCols}, DType::F32), 1));
      auto exe = Executable::compile(g, ctx);
      if (!exe)
        return exe.status();
      f->sum_ = exe.take();
    }
    return f;
  }
  Status run(rt::Stream &stream) {
    if (mode_ == "write")
      return dst_.copyFromDeviceAsync(src_, src_.size(), stream);
    if (mode_ == "read")
      return sum_->run({&src_}, {&dst_}, stream);
    return Status::success();
  }

private:
  L2Flush() = default;
  std::string mode_;
  rt::DeviceBuffer src_, dst_;
  std::shared_ptr<Executable> sum_;
};

/// How GEMMs are timed: like triton.testing.do_bench, which times the peers
/// (peers_gemm.py), so both sides see the same duty cycle and clocks. After
/// `cooldownMs` idle, an estimate from 5 calls, warm-up calls for 25 ms, then
/// calls for `repMs`, each timed alone by its own events with `flush` (see
/// L2Flush; do_bench's is "write") before it; the median call.
struct DoBenchTiming {
  int cooldownMs = 0;
  int repMs = 100;
  L2Flush *flush = nullptr;
};

Expected<double> timeLikeDoBench(const std::shared_ptr<rt::Context> &ctx, rt::Stream &stream,
                                 const DoBenchTiming &timing,
                                 const std::function<Status(int)> &body) {
  if (timing.cooldownMs > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(timing.cooldownMs));
  auto estimate = timeMedian(ctx, stream, 5, body, /*warmup=*/1, /*batches=*/1);
  if (!estimate)
    return estimate;
  int call = 6;
  int warmup = std::max(1, static_cast<int>(kDoBenchWarmupMs / std::max(*estimate, 1e-3)));
  int reps = std::clamp(static_cast<int>(timing.repMs / std::max(*estimate, 1e-3)), 1, 1000);
  for (int i = 0; i < warmup; ++i)
    if (Status s = body(call++); !s.ok())
      return s;
  std::vector<std::unique_ptr<rt::Event>> events;
  for (int i = 0; i < 2 * reps; ++i) {
    auto e = rt::Event::create(ctx);
    if (!e)
      return e.status();
    events.push_back(e.take());
  }
  for (int i = 0; i < reps; ++i) {
    if (timing.flush)
      if (Status s = timing.flush->run(stream); !s.ok())
        return s;
    if (Status s = events[2 * i]->record(stream); !s.ok())
      return s;
    if (Status s = body(call++); !s.ok())
      return s;
    if (Status s = events[2 * i + 1]->record(stream); !s.ok())
      return s;
  }
  std::vector<double> samples;
  for (int i = 0; i < reps; ++i) {
    auto ms = rt::Event::elapsedMs(*events[2 * i], *events[2 * i + 1]);
    if (!ms)
      return ms.status();
    samples.push_back(*ms);
  }
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  return samples[samples.size() / 2];
}

/// GB/s (read + written) of a device-to-device copy that moves `bytes` in
/// all, timed like the row ops (batches; buffer sets rotated past L2): the
/// ceiling for a kernel of that size, fixed costs (launch, ramp-up, tail)
/// included, where the 1 GiB copy's figure has them amortized.
Expected<double> copyOfEqualBytes(const std::shared_ptr<rt::Context> &ctx, rt::Stream &stream,
                                  int64_t bytes) {
  size_t n = std::max<size_t>(static_cast<size_t>(bytes / 2), 256) & ~size_t(255);
  int sets = static_cast<int>(std::clamp<int64_t>((4 * kL2Bytes + 2 * n - 1) / (2 * n), 2, 8));
  std::vector<rt::DeviceBuffer> src, dst;
  for (int i = 0; i < sets; ++i) {
    auto a = rt::DeviceBuffer::allocate(ctx, n), b = rt::DeviceBuffer::allocate(ctx, n);
    if (!a || !b)
      return a ? b.status() : a.status();
    if (Status s = a->fill(1); !s.ok())
      return s;
    src.push_back(a.take());
    dst.push_back(b.take());
  }
  auto ms = timeMedian(ctx, stream, 20, [&](int call) {
    return dst[call % sets].copyFromDeviceAsync(src[call % sets], n, stream);
  });
  if (!ms)
    return ms;
  return 2.0 * n / (*ms * 1e-3) / 1e9;
}

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep))
    if (!item.empty())
      out.push_back(item);
  return out;
}

/// Median time of one run of `g` (compiled with `options`), inputs rotated
/// over enough buffer sets to defeat L2. Also returns the minimal bytes.
Expected<double> timeGraph(const std::shared_ptr<rt::Context> &ctx, rt::Stream &stream,
                           Graph &g, const CompileOptions &options, int64_t &inBytes,
                           int64_t &outBytes, const DoBenchTiming *doBench = nullptr,
                           size_t *kernels = nullptr, double *hostMs = nullptr) {
  auto exe = Executable::compile(g, ctx, options);
  if (!exe)
    return exe.status();
  if (kernels)
    *kernels = (*exe)->kernelCount();
  // Minimal bytes: each input read once, each output written once (an
  // update in place: its updated slices).
  inBytes = 0, outBytes = 0;
  for (int id : g.inputs())
    inBytes += numElements(g.node(id).shape) * dtypeBytes(g.node(id).dtype);
  // Outputs updated in place get their input's buffer (donated), by output.
  std::vector<int> donor(g.outputs().size(), -1);
  for (size_t o = 0; o < g.outputs().size(); ++o) {
    const Node &n = g.node(g.outputs()[o]);
    int64_t bytes = numElements(n.shape) * dtypeBytes(n.dtype);
    if (n.kind == OpKind::UpdateSlice) {
      bytes = bytes / n.shape[n.axis] * (n.end - n.start);
      donor[o] = static_cast<int>(std::find(g.inputs().begin(), g.inputs().end(), n.operands[0]) -
                                  g.inputs().begin());
    }
    outBytes += bytes;
  }
  int sets = static_cast<int>(std::clamp<int64_t>(
      (4 * kL2Bytes + inBytes + outBytes - 1) / (inBytes + outBytes), 1, 8));
  std::vector<std::vector<rt::DeviceBuffer>> ins(sets), outs(sets);
  for (int s = 0; s < sets; ++s) {
    for (size_t i = 0; i < g.inputs().size(); ++i) {
      const Node &n = g.node(g.inputs()[i]);
      HostTensor h = HostTensor::random(n.shape, n.dtype, 1234 + 17 * s + i, -2.f, 2.f);
      auto buf = rt::DeviceBuffer::allocate(ctx, h.byteSize());
      if (!buf)
        return buf.status();
      auto bytes = h.toBytes();
      if (Status st = buf->copyFromHost(bytes.data(), bytes.size()); !st.ok())
        return st;
      ins[s].push_back(buf.take());
    }
    for (int id : g.outputs()) {
      const Node &n = g.node(id);
      // (A donated output's buffer is its input's: this one stays unused.)
      auto buf = rt::DeviceBuffer::allocate(
          ctx, n.kind == OpKind::UpdateSlice ? 1 : numElements(n.shape) * dtypeBytes(n.dtype));
      if (!buf)
        return buf.status();
      outs[s].push_back(buf.take());
    }
  }
  // Each set's buffer lists, made before the timing: a call is run() alone.
  std::vector<std::vector<const rt::DeviceBuffer *>> inLists(sets);
  std::vector<std::vector<rt::DeviceBuffer *>> outLists(sets);
  for (int s = 0; s < sets; ++s) {
    for (auto &x : ins[s])
      inLists[s].push_back(&x);
    for (size_t k = 0; k < outs[s].size(); ++k)
      outLists[s].push_back(donor[k] >= 0 ? &ins[s][donor[k]] : &outs[s][k]);
  }
  auto body = [&](int call) {
    int s = call % sets;
    return (*exe)->run(inLists[s], outLists[s], stream);
  };
  if (doBench)
    return timeLikeDoBench(ctx, stream, *doBench, body);
  return timeMedian(ctx, stream, /*perBatch=*/20, body, /*warmup=*/3, kBatches, hostMs);
}

/// Issue 3's shapes for `op` as "RxC" (examples::issueShapes).
std::vector<std::string> issueShapes(const std::string &op, const std::vector<std::string> &tokens) {
  std::vector<int64_t> counts;
  for (const std::string &t : tokens)
    counts.push_back(std::atoll(t.c_str()));
  std::vector<std::string> shapes;
  for (auto [rows, cols] : examples::issueShapes(op, counts))
    shapes.push_back(std::to_string(rows) + "x" + std::to_string(cols));
  return shapes;
}

int fail(const std::string &m) {
  std::fprintf(stderr, "tilec-bench: error: %s\n", m.c_str());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  std::string ops = "rms_norm,add_rms_norm,layer_norm,softmax,silu_mul,elementwise_chain,rope";
  std::string dtypes = "bf16,f32";
  std::string shapes = "8192x4096,4096x8192,16384x4096";
  std::string grid, tokens = "1,16,4096,16384";
  std::string csv, gemm, gemmOps = "matmul,matmul_bias_gelu", gemmCsv, cooldown, gemmRep,
      gemmTiming = "dobench", gemmFlush = "write", layers, layerCsv, attention, attentionCsv,
      kvAppend = "in-place", warmupMs;
  CompileOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *flag, std::string &out) {
      std::string p = std::string(flag) + "=";
      if (a.rfind(p, 0) != 0)
        return false;
      out = a.substr(p.size());
      return true;
    };
    if (a == "--help") {
      std::puts("usage: tilec-bench [--ops=a,b] [--dtypes=bf16,f32] [--shapes=RxC,...] "
                "[--csv=FILE] [--schedule=\"PASS OPTIONS\"] [--fuse=\"OPTS\"] [--round-every-op]\n"
                "                   [--warmup-ms=N]\n"
                "                   [--grid=issue3 [--tokens=1,16,4096,16384]]\n"
                "                   [--precise-math] [--flush-subnormals] [--no-dependent-launch]\n"
                "                   [--fuse-attention | --no-fuse-attention]\n"
                "                   [--gemm=MxNxK,...] [--gemm-ops=matmul,matmul_bias_gelu] "
                "[--gemm-csv=FILE]\n"
                "                   [--gemm-timing=dobench|batches] [--cooldown-ms=N] "
                "[--gemm-rep-ms=N]\n"
                "                   [--gemm-flush=write|read|none]\n"
                "                   [--layers=TxHxP,...] [--layer-csv=FILE]\n"
                "                   [--attention=BxSqxSkxD,...] [--attention-csv=FILE]\n"
                "GEMMs are timed like triton.testing.do_bench (the peers' timer): N ms idle,\n"
                "25 ms warm-up, single calls for --gemm-rep-ms (100) after an L2 flush, median;\n"
                "the flush is a 128 MB copy (write, do_bench's kind: leaves dirty lines), a\n"
                "256 MB sum (read: leaves clean lines) or nothing (none);\n"
                "Row ops: the median of 15 batches of 20 calls, after 3 calls and calls for\n"
                "--warmup-ms (25; 0: none) of warm-up; inputs rotated over sets past L2;\n"
                "the CSV's host_us: the median host time a call took to enqueue; the\n"
                "launch floor: elementwise_chain f32 [1, 8] (the smallest kernel) so timed.\n"
                "--gemm-timing=batches: the row ops' timer for the GEMMs too.\n"
                "--grid=issue3: each op at issue 3's shapes for the given token counts\n"
                "(hidden 4096 and 8192; softmax also 32768 and 131072 columns; silu_mul\n"
                "[tokens, 14336]; rope [tokens, 32, 128]) instead of --shapes.\n"
                "--ops= (empty) skips the row ops; GEMMs run in bf16 (C = A[M,K] @ B[N,K]^T;\n"
                "matmul_bias_gelu: gelu(x[M,K] @ W[N,K]^T + bias); matmul_swiglu:\n"
                "silu(x @ Wg[N,K]^T) * (x @ Wu[N,K]^T), two products: TFLOP/s count both).\n"
                "--layers: the decoder_layer example (bf16) for T new tokens, hidden H, P\n"
                "past tokens in the kv cache (TxHxP; TxHxPxC: caches of C rows, C >= P + T,\n"
                "the rows past P + T unread), timed as the GEMMs are; GB/s counts its inputs\n"
                "(a cache of C rows: all C)\n"
                "(weights, cache) read once and outputs written once (decode's floor; the\n"
                "caches updated in place: their new rows). --kv-append=concat: the caches\n"
                "joined with the new rows by concat instead (a copy; the default: in-place).\n"
                "--fuse-attention: flash attention always; --no-fuse-attention: never;\n"
                "default: by shape (256+ query rows a batch, 4096+ keys, 2048+ over 64+ rows,\n"
                "or 512+ over at most 16 rows).\n"
                "--attention: nn::attention (bf16, no mask, scale 1/sqrt(D)) of q [B, Sq, D]\n"
                "over k, v [B, Sk, D] (a shape ending in c: nn::causal_attention, cW: with a\n"
                "sliding window of W keys; TFLOP/s of the query-key pairs the mask keeps), as three\n"
                "kernels and as one flash-attention kernel\n"
                "(both forced), timed as the GEMMs are; TFLOP/s counts 4 B Sq Sk D,\n"
                "GB/s q, k, v and the output once (tests/gpu/peers_attention.py: SDPA).");
      return 0;
    }
    if (a == "--round-every-op") {
      options.roundEveryOp = true;
      continue;
    }
    if (a == "--precise-math") {
      options.fastMath = false;
      continue;
    }
    if (a == "--flush-subnormals") {
      options.flushSubnormals = true;
      continue;
    }
    if (a == "--fuse-attention" || a == "--no-fuse-attention") {
      options.fuseAttention = a == "--fuse-attention";
      continue;
    }
    if (a == "--kv-append=concat" || a == "--kv-append=in-place") {
      kvAppend = a.substr(std::strlen("--kv-append="));
      continue;
    }
    if (a == "--no-dependent-launch") {
      options.dependentLaunch = false;
      continue;
    }
    if (!value("--ops", ops) && !value("--dtypes", dtypes) && !value("--shapes", shapes) &&
        !value("--csv", csv) && !value("--schedule", options.scheduleOptions) &&
        !value("--fuse", options.fuseOptions) &&
        !value("--gemm", gemm) && !value("--gemm-ops", gemmOps) && !value("--gemm-csv", gemmCsv) &&
        !value("--cooldown-ms", cooldown) && !value("--gemm-rep-ms", gemmRep) &&
        !value("--gemm-timing", gemmTiming) && !value("--gemm-flush", gemmFlush) &&
        !value("--grid", grid) && !value("--tokens", tokens) && !value("--layers", layers) && !value("--attention", attention) &&
        !value("--attention-csv", attentionCsv) &&
        !value("--layer-csv", layerCsv) && !value("--warmup-ms", warmupMs))
      return fail("unknown option '" + a + "'");
  }
  if (!warmupMs.empty()) {
    char *end = nullptr;
    long ms = std::strtol(warmupMs.c_str(), &end, 10);
    if (end == warmupMs.c_str() || *end != '\0' || ms < 0 || ms > 10000)
      return fail("--warmup-ms must be 0 to 10000, got '" + warmupMs + "'");
    gWarmupMs = static_cast<int>(ms);
  }
  if (!grid.empty() && grid != "issue3")
    return fail("--grid must be issue3, got '" + grid + "'");
  DoBenchTiming doBench;
  if (!cooldown.empty())
    doBench.cooldownMs = std::atoi(cooldown.c_str());
  if (!gemmRep.empty())
    doBench.repMs = std::max(1, std::atoi(gemmRep.c_str()));
  if (gemmTiming != "dobench" && gemmTiming != "batches")
    return fail("--gemm-timing must be dobench or batches, got '" + gemmTiming + "'");
  auto ctxOr = rt::Context::create(0);
  if (!ctxOr)
    return fail(ctxOr.message());
  auto ctx = ctxOr.take();
  auto streamOr = rt::Stream::create(ctx);
  if (!streamOr)
    return fail(streamOr.message());
  rt::Stream &stream = **streamOr;

  // The ceiling: a large device-to-device copy (bytes read + bytes written).
  const size_t copyBytes = 1ull << 30;
  auto a = rt::DeviceBuffer::allocate(ctx, copyBytes), b = rt::DeviceBuffer::allocate(ctx, copyBytes);
  if (!a || !b)
    return fail(a ? b.message() : a.message());
  (void)a->fill(1);
  auto copyMs = timeMedian(ctx, stream, 5, [&](int) {
    return b->copyFromDeviceAsync(*a, copyBytes, stream);
  });
  if (!copyMs)
    return fail(copyMs.message());
  double copyGBs = 2.0 * copyBytes / (*copyMs * 1e-3) / 1e9;
  std::printf("device: %s, %d SMs; device copy %.0f GB/s\n", ctx->info().name.c_str(),
              ctx->info().smCount, copyGBs);
  // A row op (examples::build) timed: its time a call, minimal bytes and
  // host time a call.
  auto timeRowOp = [&](const std::string &op, int64_t rows, int64_t cols, DType dtype,
                       int64_t &inBytes, int64_t &outBytes, double &hostMs) -> Expected<double> {
    Graph g(op);
    if (Status s = examples::build(op, g, rows, cols, dtype); !s.ok())
      return s;
    return timeGraph(ctx, stream, g, options, inBytes, outBytes, nullptr, nullptr, &hostMs);
  };
  // The launch floor: the smallest kernel through the same path and timer
  // as the row ops (a 1- or 16-token op at this time is the launch path's,
  // not its kernel's).
  if (!split(ops, ',').empty()) {
    int64_t inBytes = 0, outBytes = 0;
    double hostMs = 0;
    auto ms = timeRowOp("elementwise_chain", 1, 8, DType::F32, inBytes, outBytes, hostMs);
    if (!ms)
      return fail(ms.message());
    std::printf("launch floor: %.2f us a call, host %.2f us (elementwise_chain f32 [1, 8], "
                "timed as the row ops)\n",
                *ms * 1e3, hostMs * 1e3);
  }

  FILE *out = csv.empty() ? nullptr : std::fopen(csv.c_str(), "w");
  if (out)
    std::fprintf(out, "op,dtype,rows,cols,us,gbs,pct_copy,copy_gbs,copy_eq_gbs,host_us\n");
  std::printf("%-18s %-5s %-12s %10s %9s %7s %8s\n", "op", "dtype", "shape", "time_us", "GB/s",
              "%copy", "%copy_eq");
  for (const std::string &op : split(ops, ','))
    for (const std::string &dt : split(dtypes, ','))
      for (const std::string &shape :
           grid.empty() ? split(shapes, ',') : issueShapes(op, split(tokens, ','))) {
        auto dtype = examples::parseDType(dt);
        auto dims = split(shape, 'x');
        if (!dtype || dims.size() != 2)
          return fail("bad dtype or shape: " + dt + " " + shape);
        int64_t rows = std::atoll(dims[0].c_str()), cols = std::atoll(dims[1].c_str());
        int64_t inBytes = 0, outBytes = 0;
        double hostMs = 0;
        auto ms = timeRowOp(op, rows, cols, *dtype, inBytes, outBytes, hostMs);
        if (!ms)
          return fail(ms.message());
        double gbs = (inBytes + outBytes) / (*ms * 1e-3) / 1e9;
        auto eqGBs = copyOfEqualBytes(ctx, stream, inBytes + outBytes);
        if (!eqGBs)
          return fail(eqGBs.message());
        std::printf("%-18s %-5s %-12s %10.2f %9.0f %6.1f%% %7.1f%%\n", op.c_str(), dt.c_str(),
                    shape.c_str(), *ms * 1e3, gbs, 100.0 * gbs / copyGBs,
                    100.0 * gbs / *eqGBs);
        if (out)
          std::fprintf(out, "%s,%s,%lld,%lld,%.3f,%.1f,%.2f,%.0f,%.0f,%.3f\n", op.c_str(),
                       dt.c_str(), (long long)rows, (long long)cols, *ms * 1e3, gbs,
                       100.0 * gbs / copyGBs, copyGBs, *eqGBs, hostMs * 1e3);
      }
  if (out)
    std::fclose(out);

  // GEMMs: TFLOP/s (2 M N K flops) against the H200's dense bf16 peak.
  constexpr double kPeakTflops = 989.4;
  FILE *gout = gemmCsv.empty() ? nullptr : std::fopen(gemmCsv.c_str(), "w");
  if (gout)
    std::fprintf(gout, "op,dtype,m,n,k,us,tflops\n");
  std::unique_ptr<L2Flush> flush;
  if ((!gemm.empty() || !layers.empty() || !attention.empty()) && gemmTiming == "dobench") {
    auto f = L2Flush::create(ctx, gemmFlush);
    if (!f)
      return fail(f.message());
    flush = f.take();
    doBench.flush = flush.get();
  }
  if (!gemm.empty())
    std::printf("%-18s %-5s %-18s %10s %9s %7s\n", "op", "dtype", "MxNxK", "time_us", "TFLOP/s",
                "%peak");
  for (const std::string &op : split(gemmOps, ','))
    for (const std::string &shape : split(gemm, ',')) {
      auto dims = split(shape, 'x');
      if (dims.size() != 3)
        return fail("bad GEMM shape '" + shape + "' (expected MxNxK)");
      int64_t m = std::atoll(dims[0].c_str()), n = std::atoll(dims[1].c_str()),
              k = std::atoll(dims[2].c_str());
      Graph g(op);
      if (Status s = examples::build(op, g, m, n, DType::BF16, k); !s.ok())
        return fail(s.message());
      int64_t inBytes = 0, outBytes = 0;
      auto ms = timeGraph(ctx, stream, g, options, inBytes, outBytes,
                          gemmTiming == "dobench" ? &doBench : nullptr);
      if (!ms)
        return fail(ms.message());
      double tflops = (op == "matmul_swiglu" ? 4.0 : 2.0) * m * n * k / (*ms * 1e-3) / 1e12;
      std::printf("%-18s %-5s %-18s %10.2f %9.1f %6.1f%%\n", op.c_str(), "bf16", shape.c_str(),
                  *ms * 1e3, tflops, 100.0 * tflops / kPeakTflops);
      if (gout)
        std::fprintf(gout, "%s,bf16,%lld,%lld,%lld,%.3f,%.2f\n", op.c_str(), (long long)m,
                     (long long)n, (long long)k, *ms * 1e3, tflops);
    }
  if (gout)
    std::fclose(gout);

  // Whole decoder layers: time, GB/s over the minimal bytes, % of the copy.
  FILE *lout = layerCsv.empty() ? nullptr : std::fopen(layerCsv.c_str(), "w");
  if (lout)
    std::fprintf(lout, "op,dtype,tokens,hidden,past,capacity,kernels,us,gbs,pct_copy\n");
  if (!layers.empty())
    std::printf("%-18s %-5s %-18s %7s %10s %9s %7s\n", "op", "dtype", "TxHxP", "kernels",
                "time_us", "GB/s", "%copy");
  for (const std::string &shape : split(layers, ',')) {
    auto dims = split(shape, 'x');
    if (dims.size() != 3 && dims.size() != 4)
      return fail("bad layer shape '" + shape + "' (expected TxHxP or TxHxPxC)");
    int64_t t = std::atoll(dims[0].c_str()), h = std::atoll(dims[1].c_str()),
            p = std::atoll(dims[2].c_str()),
            c = dims.size() == 4 ? std::atoll(dims[3].c_str()) : 0;
    Graph g("decoder_layer");
    try {
      examples::buildDecoderLayer(g, t, h, p, DType::BF16, kvAppend != "concat", c);
    } catch (const Error &e) {
      return fail(e.what());
    }
    int64_t inBytes = 0, outBytes = 0;
    size_t kernels = 0;
    auto ms = timeGraph(ctx, stream, g, options, inBytes, outBytes,
                        gemmTiming == "dobench" ? &doBench : nullptr, &kernels);
    if (!ms)
      return fail(ms.message());
    double gbs = (inBytes + outBytes) / (*ms * 1e-3) / 1e9;
    std::printf("%-18s %-5s %-18s %7zu %10.2f %9.0f %6.1f%%\n", "decoder_layer", "bf16",
                shape.c_str(), kernels, *ms * 1e3, gbs, 100.0 * gbs / copyGBs);
    if (lout)
      std::fprintf(lout, "decoder_layer,bf16,%lld,%lld,%lld,%lld,%zu,%.3f,%.1f,%.2f\n", (long long)t,
                   (long long)h, (long long)p, (long long)(c > 0 ? c : p + t), kernels, *ms * 1e3,
                   gbs, 100.0 * gbs / copyGBs);
  }
  if (lout)
    std::fclose(lout);

  // Attention: three kernels against one flash-attention kernel, same run.
  FILE *aout = attentionCsv.empty() ? nullptr : std::fopen(attentionCsv.c_str(), "w");
  if (aout)
    std::fprintf(aout, "op,dtype,b,sq,sk,d,causal,window,kernels,us,tflops,gbs,pct_copy\n");
  if (!attention.empty())
    std::printf("%-18s %-5s %-18s %7s %10s %9s %9s %7s\n", "op", "dtype", "BxSqxSkxD", "kernels",
                "time_us", "TFLOP/s", "GB/s", "%copy");
  for (const std::string &shape : split(attention, ',')) {
    size_t cAt = shape.find('c');
    bool causal = cAt != std::string::npos;
    int64_t window = causal && cAt + 1 < shape.size() ? std::atoll(shape.c_str() + cAt + 1) : 0;
    auto dims = split(shape.substr(0, cAt), 'x');
    if (dims.size() != 4 || window < 0)
      return fail("bad attention shape '" + shape + "' (expected BxSqxSkxD, BxSqxSkxDc or BxSqxSkxDcW)");
    int64_t b = std::atoll(dims[0].c_str()), sq = std::atoll(dims[1].c_str()),
            sk = std::atoll(dims[2].c_str()), d = std::atoll(dims[3].c_str());
    if (b < 1 || sq < 1 || sk < 1 || d < 1)
      return fail("bad attention shape '" + shape + "'");
    if (causal && sk < sq)
      return fail("causal attention needs Sq <= Sk, got '" + shape + "'");
    // The query-key pairs computed: all, or (causal, aligned to the lower
    // right) row r's r + Sk - Sq + 1 keys.
    double pairs = 0;
    for (int64_t r = 0; r < sq; ++r) {
      int64_t seen = causal ? r + sk - sq + 1 : sk;
      pairs += static_cast<double>(window ? std::min(seen, window) : seen);
    }
    for (bool flash : {false, true}) {
      // (Named apart, so that a profiler can pick the flash kernel:
      // attention_flash_kernel0.)
      Graph g(flash ? "attention_flash" : "attention");
      Tensor q = g.input("q", {b, sq, d}, DType::BF16);
      Tensor k = g.input("k", {b, sk, d}, DType::BF16);
      Tensor v = g.input("v", {b, sk, d}, DType::BF16);
      double scale = 1.0 / std::sqrt(static_cast<double>(d));
      g.output(causal ? nn::causal_attention(q, k, v, scale, 0, window)
                      : nn::attention(q, k, v, scale));
      CompileOptions o = options;
      o.fuseAttention = flash;
      int64_t inBytes = 0, outBytes = 0;
      size_t kernels = 0;
      auto ms = timeGraph(ctx, stream, g, o, inBytes, outBytes,
                          gemmTiming == "dobench" ? &doBench : nullptr, &kernels);
      if (!ms)
        return fail(ms.message());
      double tflops = 4.0 * b * pairs * d / (*ms * 1e-3) / 1e12;
      double gbs = (inBytes + outBytes) / (*ms * 1e-3) / 1e9;
      const char *name = flash ? "attention_flash" : "attention";
      std::printf("%-18s %-5s %-18s %7zu %10.2f %9.1f %9.0f %6.1f%%\n", name, "bf16",
                  shape.c_str(), kernels, *ms * 1e3, tflops, gbs, 100.0 * gbs / copyGBs);
      if (aout)
        std::fprintf(aout, "%s,bf16,%lld,%lld,%lld,%lld,%d,%lld,%zu,%.3f,%.2f,%.1f,%.2f\n", name,
                     (long long)b, (long long)sq, (long long)sk, (long long)d, causal ? 1 : 0,
                     (long long)window, kernels,
                     *ms * 1e3, tflops, gbs, 100.0 * gbs / copyGBs);
    }
  }
  if (aout)
    std::fclose(aout);
  return 0;
}
