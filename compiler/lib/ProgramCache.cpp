// The on-disk program cache: JSON entries of compiled programs, keyed by
// the compiler build and the graph's fingerprint.
#include "tilec/compiler/ProgramCache.h"

#include "tilec/SourceHash.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>

namespace json = llvm::json;

namespace tilec {

namespace {

// Each struct's fields, named, in one list that both directions walk: a
// field written is a field read. A field added to a struct and not listed
// here would be lost from cached programs; the size checks below fail the
// build until it is listed (and their sizes updated).
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(KernelBuffer) == 48 && sizeof(TensorMapPlan) == 56 &&
                  sizeof(KernelLaunchPlan) == 256 && sizeof(ProgramValue) == 48 &&
                  sizeof(FusionReport) == 128 && sizeof(CompiledProgram) == 176,
              "a compiled program's structs changed: list their fields in ProgramCache.cpp "
              "and update these sizes");
#endif

template <typename F> void fields(KernelBuffer &b, F &&f) {
  f("kind", b.kind);
  f("cols", b.cols);
  f("dims", b.dims);
  f("value", b.value);
}

template <typename F> void fields(TensorMapPlan &m, F &&f) {
  f("buffer", m.buffer);
  f("dims", m.dims);
  f("box", m.box);
}

template <typename F> void fields(KernelLaunchPlan &p, F &&f) {
  f("name", p.name);
  f("rows", p.rows);
  f("vectorWidth", p.vectorWidth);
  f("threadsPerRow", p.threadsPerRow);
  f("rowsPerBlock", p.rowsPerBlock);
  f("chunks", p.chunks);
  f("colBlocks", p.colBlocks);
  f("streamBlocks", p.streamBlocks);
  f("gemm", p.gemm);
  f("attention", p.attention);
  f("fixedGrid", p.fixedGrid);
  f("fixedBlock", p.fixedBlock);
  f("sharedBytes", p.sharedBytes);
  f("persistent", p.persistent);
  f("tmaStore", p.tmaStore);
  f("clusterM", p.clusterM);
  f("splitK", p.splitK);
  f("workspaceBytes", p.workspaceBytes);
  f("l2PrefetchBytes", p.l2PrefetchBytes);
  f("l2PrefetchRows", p.l2PrefetchRows);
  f("l2PrefetchFirst", p.l2PrefetchFirst);
  f("dependentLaunch", p.dependentLaunch);
  f("rowLoop", p.rowLoop);
  f("prefetchStages", p.prefetchStages);
  f("stagedWeights", p.stagedWeights);
  f("transposeTileK", p.transposeTileK);
  f("transposeTileL", p.transposeTileL);
  f("buffers", p.buffers);
  f("tensorMaps", p.tensorMaps);
}

template <typename F> void fields(ProgramValue &v, F &&f) {
  f("kind", v.kind);
  f("index", v.index);
  f("shape", v.shape);
  f("dtype", v.dtype);
  f("copyOf", v.copyOf);
  f("inPlaceOf", v.inPlaceOf);
}

template <typename F> void fields(FusionReport &r, F &&f) {
  f("kernel", r.kernel);
  f("ops", r.ops);
  f("hbmBytesSaved", r.hbmBytesSaved);
  f("domain", r.domain);
  f("attentionChoice", r.attentionChoice);
}

template <typename F> void fields(CompiledProgram &p, F &&f) {
  f("name", p.name);
  f("target", p.target);
  f("ptx", p.ptx);
  f("values", p.values);
  f("launches", p.launches);
  f("fusions", p.fusions);
  f("graphOps", p.graphOps);
}

// Enums by name.
template <typename E> struct EnumNames;
template <> struct EnumNames<DType> {
  static constexpr std::pair<DType, const char *> names[] = {
      {DType::F32, "f32"}, {DType::F16, "f16"}, {DType::BF16, "bf16"}};
};
template <> struct EnumNames<ProgramValue::Kind> {
  static constexpr std::pair<ProgramValue::Kind, const char *> names[] = {
      {ProgramValue::Kind::Input, "input"},
      {ProgramValue::Kind::Output, "output"},
      {ProgramValue::Kind::Temporary, "temporary"}};
};
template <> struct EnumNames<KernelBuffer::Kind> {
  static constexpr std::pair<KernelBuffer::Kind, const char *> names[] = {
      {KernelBuffer::Kind::Rows, "rows"},
      {KernelBuffer::Kind::SharedVector, "shared_vector"},
      {KernelBuffer::Kind::Scalar, "scalar"},
      {KernelBuffer::Kind::StridedRows, "strided_rows"}};
};

// Writing.
json::Value toJson(int64_t v) { return v; }
json::Value toJson(int v) { return static_cast<int64_t>(v); }
json::Value toJson(bool v) { return v; }
json::Value toJson(const std::string &v) { return v; }
template <typename T> json::Value toJson(const std::vector<T> &v);
template <typename T> json::Value toJson(const T &v);

template <typename T> json::Value toJson(const std::vector<T> &v) {
  json::Array a;
  for (const T &e : v)
    a.push_back(toJson(e));
  return a;
}

template <typename T> json::Value toJson(const T &v) {
  if constexpr (std::is_enum_v<T>) {
    for (auto [value, name] : EnumNames<T>::names)
      if (value == v)
        return name;
    return nullptr; // (reads back as an error)
  } else {
    json::Object o;
    fields(const_cast<T &>(v), [&](const char *key, const auto &field) { o[key] = toJson(field); });
    return o;
  }
}

// Reading: false where the value is missing or of another type.
bool fromJson(const json::Value *v, int64_t &out) {
  std::optional<int64_t> i = v ? v->getAsInteger() : std::nullopt;
  if (i)
    out = *i;
  return i.has_value();
}
bool fromJson(const json::Value *v, int &out) {
  int64_t i = 0;
  if (!fromJson(v, i) || i < INT32_MIN || i > INT32_MAX)
    return false;
  out = static_cast<int>(i);
  return true;
}
bool fromJson(const json::Value *v, bool &out) {
  std::optional<bool> b = v ? v->getAsBoolean() : std::nullopt;
  if (b)
    out = *b;
  return b.has_value();
}
bool fromJson(const json::Value *v, std::string &out) {
  std::optional<llvm::StringRef> s = v ? v->getAsString() : std::nullopt;
  if (s)
    out = s->str();
  return s.has_value();
}
template <typename T> bool fromJson(const json::Value *v, std::vector<T> &out);
template <typename T> bool fromJson(const json::Value *v, T &out);

template <typename T> bool fromJson(const json::Value *v, std::vector<T> &out) {
  const json::Array *a = v ? v->getAsArray() : nullptr;
  if (!a)
    return false;
  out.clear();
  for (const json::Value &e : *a)
    if (!fromJson(&e, out.emplace_back()))
      return false;
  return true;
}

template <typename T> bool fromJson(const json::Value *v, T &out) {
  if constexpr (std::is_enum_v<T>) {
    std::optional<llvm::StringRef> s = v ? v->getAsString() : std::nullopt;
    if (s)
      for (auto [value, name] : EnumNames<T>::names)
        if (*s == name) {
          out = value;
          return true;
        }
    return false;
  } else {
    const json::Object *o = v ? v->getAsObject() : nullptr;
    if (!o)
      return false;
    bool ok = true;
    fields(out, [&](const char *key, auto &field) { ok = ok && fromJson(o->get(key), field); });
    return ok;
  }
}

} // namespace

std::string graphFingerprint(const Graph &graph, const CompileOptions &options) {
  std::ostringstream os;
  os << options.target << (options.roundEveryOp ? "|round|" : "|")
     << (options.fastMath ? "fast|" : "precise|")
     << (options.fastMath && options.flushSubnormals ? "ftz|" : "")
     << (options.dependentLaunch ? "pdl|" : "")
     << (!options.fuseAttention ? "" : *options.fuseAttention ? "flash|" : "noflash|")
     << options.scheduleOptions << '|' << options.fuseOptions
     << '|' << graph.name() << '|';
  for (const Node &n : graph.nodes()) {
    os << static_cast<int>(n.kind) << ':' << dtypeName(n.dtype) << shapeString(n.shape);
    for (int o : n.operands)
      os << ',' << o;
    if (n.kind == OpKind::Constant)
      os << '=' << std::hexfloat << n.value << std::defaultfloat;
    if (n.axis >= 0)
      os << '@' << n.axis;
    if (n.axis2 >= 0) // (a transpose's second dim: x[4, 4, 4] swaps 0 and 1 or 0 and 2)
      os << '^' << n.axis2;
    if (n.kind == OpKind::Slice || n.kind == OpKind::UpdateSlice)
      os << '[' << n.start << ':' << n.end << ']';
    if (n.kind == OpKind::Matmul)
      os << 'T' << n.transposeA << n.transposeB;
    if (n.kind == OpKind::CausalMask)
      os << 'P' << n.period << 'W' << n.window << 'S' << n.start;
    os << ';';
  }
  os << "in";
  for (int i : graph.inputs())
    os << ',' << i;
  os << "out";
  for (int i : graph.outputs())
    os << ',' << i;
  return os.str();
}

const std::string &compilerIdentity() {
  static const std::string identity =
      std::string("tilec ") + TILEC_SOURCE_HASH + " llvm " + LLVM_VERSION_STRING;
  return identity;
}

std::string resolveCacheDir(const CompileOptions &options) {
  std::string dir = options.cacheDir;
  if (dir.empty()) {
    const char *env = std::getenv("TILEC_CACHE_DIR");
    const char *xdg = std::getenv("XDG_CACHE_HOME");
    const char *home = std::getenv("HOME");
    if (env)
      dir = env;
    else if (xdg && *xdg)
      dir = std::string(xdg) + "/tilec";
    else if (home && *home)
      dir = std::string(home) + "/.cache/tilec";
  }
  return dir == "off" ? std::string() : dir;
}

std::string serializeProgram(const CompiledProgram &program) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << toJson(program);
  return text;
}

Expected<CompiledProgram> deserializeProgram(const std::string &text) {
  llvm::Expected<json::Value> parsed = json::parse(text);
  if (!parsed)
    return Status::error("a cached program is not JSON: " + llvm::toString(parsed.takeError()));
  CompiledProgram program;
  if (!fromJson(&*parsed, program))
    return Status::error("a cached program lacks a field or has one of the wrong type");
  return program;
}

std::string ProgramCache::pathFor(const std::string &key) const {
  std::string id = compilerIdentity() + '\n' + key;
  auto digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef(id));
  llvm::SmallString<256> path(dir_);
  llvm::sys::path::append(path, llvm::toHex(digest, /*LowerCase=*/true) + ".json");
  return std::string(path);
}

std::optional<CompiledProgram> ProgramCache::load(const std::string &key) const {
  auto buffer = llvm::MemoryBuffer::getFile(pathFor(key));
  if (!buffer)
    return std::nullopt;
  llvm::Expected<json::Value> entry = json::parse((*buffer)->getBuffer());
  if (!entry) {
    llvm::consumeError(entry.takeError());
    return std::nullopt;
  }
  const json::Object *o = entry->getAsObject();
  std::string identity, storedKey;
  CompiledProgram program;
  if (!o || !fromJson(o->get("identity"), identity) || identity != compilerIdentity() ||
      !fromJson(o->get("key"), storedKey) || storedKey != key ||
      !fromJson(o->get("program"), program))
    return std::nullopt;
  return program;
}

Status ProgramCache::store(const std::string &key, const CompiledProgram &program) const {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir_))
    return Status::error("program cache: cannot make " + dir_ + ": " + ec.message());
  llvm::SmallString<256> model(dir_), temp;
  llvm::sys::path::append(model, "tmp-%%%%%%%%%%%%.json");
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, temp))
    return Status::error("program cache: cannot write in " + dir_ + ": " + ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    json::Object entry{{"identity", compilerIdentity()}, {"key", key}, {"program", toJson(program)}};
    os << json::Value(std::move(entry));
    os.close();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(temp);
      return Status::error("program cache: cannot write " + std::string(temp) + ": " + message);
    }
  }
  std::string path = pathFor(key);
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    return Status::error("program cache: cannot rename to " + path + ": " + ec.message());
  }
  return Status::success();
}

Expected<CompiledProgram> compileGraphCached(const Graph &graph, const CompileOptions &options,
                                             bool *hit) {
  if (hit)
    *hit = false;
  // (Printing the IR means compiling: no cache then.)
  std::string dir = options.printIRAfterAll ? std::string() : resolveCacheDir(options);
  if (dir.empty())
    return compileGraph(graph, options);
  ProgramCache cache(dir);
  std::string key = graphFingerprint(graph, options);
  if (std::optional<CompiledProgram> program = cache.load(key)) {
    if (hit)
      *hit = true;
    return std::move(*program);
  }
  Expected<CompiledProgram> compiled = compileGraph(graph, options);
  if (compiled) {
    Status stored = cache.store(key, *compiled);
    static std::once_flag warned;
    if (!stored)
      std::call_once(warned, [&] {
        std::fprintf(stderr, "tilec: %s (compiled programs are not kept on disk)\n",
                     stored.message().c_str());
      });
  }
  return compiled;
}

} // namespace tilec
