// The on-disk program cache (CPU only): programs written as JSON read back
// equal, compileGraphCached reads what an earlier compile stored (and only
// that compiler build's entries for that key), damaged or foreign entries
// are recompiled, and a cache that cannot be written does not stop a
// compile.
#include "tilec/compiler/Compiler.h"
#include "tilec/compiler/Examples.h"
#include "tilec/compiler/ProgramCache.h"

#include "../gpu/LinearGraphs.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace tilec;
namespace fs = std::filesystem;

namespace {

/// A fresh directory under the system's temporary directory, removed with
/// everything in it at the end of the scope.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string model = (fs::temp_directory_path() / "tilec-cache-test-XXXXXX").string();
    path = mkdtemp(model.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string str() const { return path.string(); }
};

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream(path) << text;
}

size_t filesIn(const fs::path &dir) {
  if (!fs::exists(dir))
    return 0;
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

/// Every field of two programs, compared one by one.
void expectEqualPrograms(const CompiledProgram &a, const CompiledProgram &b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.target, b.target);
  EXPECT_EQ(a.ptx, b.ptx);
  EXPECT_EQ(a.graphOps, b.graphOps);
  ASSERT_EQ(a.values.size(), b.values.size());
  for (size_t i = 0; i < a.values.size(); ++i) {
    SCOPED_TRACE("value " + std::to_string(i));
    EXPECT_EQ(a.values[i].kind, b.values[i].kind);
    EXPECT_EQ(a.values[i].index, b.values[i].index);
    EXPECT_EQ(a.values[i].shape, b.values[i].shape);
    EXPECT_EQ(a.values[i].dtype, b.values[i].dtype);
    EXPECT_EQ(a.values[i].copyOf, b.values[i].copyOf);
  }
  ASSERT_EQ(a.fusions.size(), b.fusions.size());
  for (size_t i = 0; i < a.fusions.size(); ++i) {
    EXPECT_EQ(a.fusions[i].kernel, b.fusions[i].kernel);
    EXPECT_EQ(a.fusions[i].ops, b.fusions[i].ops);
    EXPECT_EQ(a.fusions[i].hbmBytesSaved, b.fusions[i].hbmBytesSaved);
    EXPECT_EQ(a.fusions[i].domain, b.fusions[i].domain);
  }
  ASSERT_EQ(a.launches.size(), b.launches.size());
  for (size_t i = 0; i < a.launches.size(); ++i) {
    const KernelLaunchPlan &p = a.launches[i], &q = b.launches[i];
    SCOPED_TRACE("launch " + p.name);
    EXPECT_EQ(p.name, q.name);
    EXPECT_EQ(p.rows, q.rows);
    EXPECT_EQ(p.vectorWidth, q.vectorWidth);
    EXPECT_EQ(p.threadsPerRow, q.threadsPerRow);
    EXPECT_EQ(p.rowsPerBlock, q.rowsPerBlock);
    EXPECT_EQ(p.chunks, q.chunks);
    EXPECT_EQ(p.colBlocks, q.colBlocks);
    EXPECT_EQ(p.streamBlocks, q.streamBlocks);
    EXPECT_EQ(p.gemm, q.gemm);
    EXPECT_EQ(p.attention, q.attention);
    EXPECT_EQ(p.fixedGrid, q.fixedGrid);
    EXPECT_EQ(p.fixedBlock, q.fixedBlock);
    EXPECT_EQ(p.sharedBytes, q.sharedBytes);
    EXPECT_EQ(p.persistent, q.persistent);
    EXPECT_EQ(p.tmaStore, q.tmaStore);
    EXPECT_EQ(p.clusterM, q.clusterM);
    EXPECT_EQ(p.splitK, q.splitK);
    EXPECT_EQ(p.workspaceBytes, q.workspaceBytes);
    EXPECT_EQ(p.l2PrefetchBytes, q.l2PrefetchBytes);
    EXPECT_EQ(p.l2PrefetchRows, q.l2PrefetchRows);
    EXPECT_EQ(p.dependentLaunch, q.dependentLaunch);
    EXPECT_EQ(p.rowLoop, q.rowLoop);
    EXPECT_EQ(p.prefetchStages, q.prefetchStages);
    EXPECT_EQ(p.stagedWeights, q.stagedWeights);
    EXPECT_EQ(p.transposeTileK, q.transposeTileK);
    EXPECT_EQ(p.transposeTileL, q.transposeTileL);
    ASSERT_EQ(p.buffers.size(), q.buffers.size());
    for (size_t j = 0; j < p.buffers.size(); ++j) {
      EXPECT_EQ(p.buffers[j].kind, q.buffers[j].kind);
      EXPECT_EQ(p.buffers[j].cols, q.buffers[j].cols);
      EXPECT_EQ(p.buffers[j].dims, q.buffers[j].dims);
      EXPECT_EQ(p.buffers[j].value, q.buffers[j].value);
    }
    ASSERT_EQ(p.tensorMaps.size(), q.tensorMaps.size());
    for (size_t j = 0; j < p.tensorMaps.size(); ++j) {
      EXPECT_EQ(p.tensorMaps[j].buffer, q.tensorMaps[j].buffer);
      EXPECT_EQ(p.tensorMaps[j].dims, q.tensorMaps[j].dims);
      EXPECT_EQ(p.tensorMaps[j].box, q.tensorMaps[j].box);
    }
  }
}

CompiledProgram compiled(const Graph &g, const CompileOptions &options = {}) {
  auto p = compileGraph(g, options);
  EXPECT_TRUE(p.ok()) << p.message();
  return p.ok() ? p.take() : CompiledProgram{};
}

/// Sets `variable` for the scope, restoring its old value (or absence).
struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(std::string n, const char *value) : name(std::move(n)) {
    if (const char *v = std::getenv(name.c_str()))
      old = v;
    if (value)
      setenv(name.c_str(), value, 1);
    else
      unsetenv(name.c_str());
  }
  ~ScopedEnv() {
    if (old)
      setenv(name.c_str(), old->c_str(), 1);
    else
      unsetenv(name.c_str());
  }
};

} // namespace

// Every field set to a value other than its default reads back the same.
TEST(ProgramCacheTest, EveryFieldRoundTrips) {
  CompiledProgram p;
  p.name = "g";
  p.target = "sm_80";
  p.ptx = "// ptx \"quoted\"\n\t.version 8.0\n";
  p.graphOps = 7;
  p.values = {{ProgramValue::Kind::Input, 1, {3, 5}, DType::BF16, -1},
              {ProgramValue::Kind::Output, 0, {}, DType::F16, 0},
              {ProgramValue::Kind::Temporary, 2, {1, 2, 3}, DType::F32, -1}};
  p.fusions = {{"k0", {"add", "mul"}, 123456789012, "[3, 5]"}};
  KernelLaunchPlan l;
  l.name = "k0";
  l.rows = 11, l.vectorWidth = 8, l.threadsPerRow = 64, l.rowsPerBlock = 4, l.chunks = 3;
  l.colBlocks = 6, l.streamBlocks = 9, l.gemm = true, l.attention = true, l.fixedGrid = 132;
  l.fixedBlock = 384;
  l.sharedBytes = 231424, l.persistent = true, l.tmaStore = true, l.clusterM = 2;
  l.splitK = 4, l.workspaceBytes = 524544, l.l2PrefetchBytes = 32768, l.dependentLaunch = true;
  l.l2PrefetchRows = 128;
  l.rowLoop = true;
  l.prefetchStages = 3, l.stagedWeights = true, l.transposeTileK = 128, l.transposeTileL = 64;
  l.buffers = {{KernelBuffer::Kind::Rows, 4096, {}, 0},
               {KernelBuffer::Kind::SharedVector, 4096, {}, 1},
               {KernelBuffer::Kind::Scalar, 1, {}, 2},
               {KernelBuffer::Kind::StridedRows, 1, {2, 3, 4}, 3}};
  l.tensorMaps = {{0, {256, 4096}, {128, 64}}, {2, {4, 8, 16}, {1, 64, 32}}};
  p.launches = {l, KernelLaunchPlan{}};
  std::string text = serializeProgram(p);
  auto back = deserializeProgram(text);
  ASSERT_TRUE(back.ok()) << back.message();
  expectEqualPrograms(p, *back);
  EXPECT_EQ(serializeProgram(*back), text);
}

// Compiled programs of every kernel class (row kernels streamed and in
// clusters, transposes through tiles, TMA and split-k GEMMs, outputs made
// as copies) read back field for field.
TEST(ProgramCacheTest, CompiledProgramsRoundTrip) {
  std::vector<CompiledProgram> programs;
  for (auto [name, rows, cols, dtype] :
       std::vector<std::tuple<const char *, int64_t, int64_t, DType>>{
           {"rms_norm", 8192, 4096, DType::BF16},
           {"softmax", 16, 131072, DType::F32},
           {"transpose", 4096, 4096, DType::BF16},
           {"rope", 37, 4096, DType::F16},
           {"heads_rms_norm", 64, 4096, DType::BF16}}) {
    Graph g(name);
    ASSERT_TRUE(examples::build(name, g, rows, cols, dtype).ok());
    programs.push_back(compiled(g));
  }
  // (16 rows: a decode GEMM, split k, weights prefetched into L2.)
  for (auto [m, n, k] : std::vector<std::array<int64_t, 3>>{{128, 4096, 4096}, {16, 1024, 4096}}) {
    Graph g("linear");
    testgraphs::buildLinear(g, m, n, k, DType::BF16, testgraphs::LinearEpilogue::BiasGelu);
    programs.push_back(compiled(g));
  }
  {
    Graph g("copies"); // an input returned as is, a sum along rows
    Tensor x = g.input("x", {64, 48}, DType::F32);
    g.output(x);
    g.output(sum(x, 0));
    programs.push_back(compiled(g));
  }
  bool rowsAhead = false; // (rms_norm [8192, 4096]: 256 row blocks ahead)
  bool tma = false, split = false, copies = false, strided = false, tiles = false,
       prefetch = false;
  for (const CompiledProgram &p : programs) {
    SCOPED_TRACE(p.name);
    ASSERT_FALSE(p.launches.empty());
    auto back = deserializeProgram(serializeProgram(p));
    ASSERT_TRUE(back.ok()) << back.message();
    expectEqualPrograms(p, *back);
    for (const KernelLaunchPlan &l : p.launches) {
      tma |= !l.tensorMaps.empty();
      split |= l.splitK > 1;
      tiles |= l.transposeTileK > 0;
      prefetch |= l.l2PrefetchBytes > 0;
      rowsAhead |= l.l2PrefetchRows > 0;
      for (const KernelBuffer &b : l.buffers)
        strided |= b.kind == KernelBuffer::Kind::StridedRows;
    }
    for (const ProgramValue &v : p.values)
      copies |= v.copyOf >= 0;
  }
  // (The programs reach the fields they were chosen for.)
  EXPECT_TRUE(tma && split && copies && strided && tiles && prefetch && rowsAhead);
}

TEST(ProgramCacheTest, DamagedProgramsAreErrors) {
  Graph g("rms_norm");
  ASSERT_TRUE(examples::build("rms_norm", g, 64, 4096, DType::BF16).ok());
  std::string text = serializeProgram(compiled(g));
  EXPECT_NE(deserializeProgram(text.substr(0, text.size() / 2)).message().find("not JSON"),
            std::string::npos);
  // A field missing, or of another type, or an unknown kind.
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"\"rowsPerBlock\":", "\"rowsPerBlok\":"},
           {"\"gemm\":false", "\"gemm\":0"},
           {"\"kind\":\"rows\"", "\"kind\":\"columns\""},
           {"\"dtype\":\"bf16\"", "\"dtype\":\"bf8\""}}) {
    SCOPED_TRACE(from);
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos);
    std::string damaged = text;
    damaged.replace(at, from.size(), to);
    auto p = deserializeProgram(damaged);
    ASSERT_FALSE(p.ok());
    EXPECT_NE(p.message().find("lacks a field or has one of the wrong type"), std::string::npos)
        << p.message();
  }
}

// The first compile stores the program and the second reads it back; the
// entry read is the file's (an edited entry's PTX comes back); other
// options or graphs are other keys.
TEST(ProgramCacheTest, CompileGraphCachedStoresThenLoads) {
  TempDir dir;
  CompileOptions options;
  options.cacheDir = dir.str();
  Graph g("rms_norm");
  ASSERT_TRUE(examples::build("rms_norm", g, 256, 4096, DType::BF16).ok());
  bool hit = true;
  auto first = compileGraphCached(g, options, &hit);
  ASSERT_TRUE(first.ok()) << first.message();
  EXPECT_FALSE(hit);
  ProgramCache cache(dir.str());
  std::string path = cache.pathFor(graphFingerprint(g, options));
  ASSERT_TRUE(fs::exists(path));
  EXPECT_EQ(filesIn(dir.path), 1u); // (no temporary left)

  auto second = compileGraphCached(g, options, &hit);
  ASSERT_TRUE(second.ok()) << second.message();
  EXPECT_TRUE(hit);
  expectEqualPrograms(*first, *second);

  // An edited entry: what comes back is what the file holds.
  std::string entry = readFile(path);
  size_t at = entry.find(".version");
  ASSERT_NE(at, std::string::npos);
  writeFile(path, entry.substr(0, at) + "// from the cache\\n" + entry.substr(at));
  auto edited = compileGraphCached(g, options, &hit);
  ASSERT_TRUE(edited.ok());
  EXPECT_TRUE(hit);
  EXPECT_NE(edited->ptx.find("// from the cache\n.version"), std::string::npos);
  EXPECT_EQ(edited->ptx.size(), first->ptx.size() + 18);

  // Other rounding, other schedule options, another shape: other entries.
  CompileOptions rounding = options;
  rounding.roundEveryOp = true;
  CompileOptions scheduled = options;
  scheduled.scheduleOptions = "max-chunks-per-thread=4";
  Graph wider("rms_norm");
  ASSERT_TRUE(examples::build("rms_norm", wider, 256, 8192, DType::BF16).ok());
  for (auto [graph, opts] : std::vector<std::pair<const Graph *, CompileOptions>>{
           {&g, rounding}, {&g, scheduled}, {&wider, options}}) {
    auto p = compileGraphCached(*graph, opts, &hit);
    ASSERT_TRUE(p.ok()) << p.message();
    EXPECT_FALSE(hit);
    auto again = compileGraphCached(*graph, opts, &hit);
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(hit);
    expectEqualPrograms(*p, *again);
  }
  EXPECT_EQ(filesIn(dir.path), 4u);
  EXPECT_NE(graphFingerprint(g, rounding), graphFingerprint(g, options));
  // The cache's directory is not part of the key.
  CompileOptions elsewhere = options;
  elsewhere.cacheDir = "/somewhere/else";
  EXPECT_EQ(graphFingerprint(g, elsewhere), graphFingerprint(g, options));
}

// Entries of another compiler build or key, or damaged, are not loaded: the
// graph is compiled again and the entry rewritten.
TEST(ProgramCacheTest, ForeignAndDamagedEntriesAreRecompiled) {
  TempDir dir;
  CompileOptions options;
  options.cacheDir = dir.str();
  Graph g("softmax");
  ASSERT_TRUE(examples::build("softmax", g, 100, 1000, DType::F32).ok());
  bool hit = true;
  auto fresh = compileGraphCached(g, options, &hit);
  ASSERT_TRUE(fresh.ok()) << fresh.message();
  ASSERT_FALSE(hit);
  std::string path = ProgramCache(dir.str()).pathFor(graphFingerprint(g, options));
  std::string entry = readFile(path);
  std::string identity = "\"identity\":\"" + compilerIdentity() + "\"";
  ASSERT_NE(entry.find(identity), std::string::npos);
  std::string key = graphFingerprint(g, options);
  for (std::string damaged :
       {entry.substr(0, entry.size() - 10), std::string("{}"), std::string(""),
        std::string(entry).replace(entry.find(identity), identity.size(),
                                   "\"identity\":\"tilec 0000 llvm 1.0\""),
        std::string(entry).replace(entry.find("\"key\":\"") + 7, 6, "xxxxxx")}) {
    writeFile(path, damaged);
    auto p = compileGraphCached(g, options, &hit);
    ASSERT_TRUE(p.ok()) << p.message();
    EXPECT_FALSE(hit);
    expectEqualPrograms(*fresh, *p);
    EXPECT_EQ(readFile(path), entry); // rewritten whole
  }
}

// "off", or TILEC_CACHE_DIR empty or "off", writes nothing; the default
// directory follows TILEC_CACHE_DIR, then XDG_CACHE_HOME, then HOME.
TEST(ProgramCacheTest, DirectoryFromOptionsAndEnvironment) {
  ScopedEnv cacheEnv("TILEC_CACHE_DIR", nullptr);
  ScopedEnv xdgEnv("XDG_CACHE_HOME", "/xdg");
  ScopedEnv homeEnv("HOME", "/home/u");
  CompileOptions options;
  EXPECT_EQ(resolveCacheDir(options), "/xdg/tilec");
  {
    ScopedEnv noXdg("XDG_CACHE_HOME", nullptr);
    EXPECT_EQ(resolveCacheDir(options), "/home/u/.cache/tilec");
    ScopedEnv noHome("HOME", nullptr);
    EXPECT_EQ(resolveCacheDir(options), "");
  }
  {
    ScopedEnv set("TILEC_CACHE_DIR", "/c");
    EXPECT_EQ(resolveCacheDir(options), "/c");
    options.cacheDir = "/given";
    EXPECT_EQ(resolveCacheDir(options), "/given");
    options.cacheDir = "off";
    EXPECT_EQ(resolveCacheDir(options), "");
    options.cacheDir.clear();
  }
  for (const char *off : {"", "off"}) {
    ScopedEnv set("TILEC_CACHE_DIR", off);
    EXPECT_EQ(resolveCacheDir(options), "");
  }
  TempDir dir;
  ScopedEnv set("TILEC_CACHE_DIR", "off");
  ScopedEnv home("HOME", dir.str().c_str());
  ScopedEnv xdg("XDG_CACHE_HOME", dir.str().c_str());
  Graph g("silu_mul");
  ASSERT_TRUE(examples::build("silu_mul", g, 8, 256, DType::BF16).ok());
  bool hit = true;
  ASSERT_TRUE(compileGraphCached(g, options, &hit).ok());
  EXPECT_FALSE(hit);
  EXPECT_EQ(filesIn(dir.path), 0u);
}

// A directory that cannot be made: store() says why, and the compile
// still returns its program (twice: nothing was stored).
TEST(ProgramCacheTest, UnwritableDirectoryStillCompiles) {
  TempDir dir;
  std::string file = (dir.path / "a-file").string();
  writeFile(file, "not a directory");
  CompileOptions options;
  options.cacheDir = file + "/cache";
  Graph g("layer_norm");
  ASSERT_TRUE(examples::build("layer_norm", g, 32, 1024, DType::F16).ok());
  Status s = ProgramCache(options.cacheDir).store("k", compiled(g));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot make " + options.cacheDir), std::string::npos)
      << s.message();
  for (int i = 0; i < 2; ++i) {
    bool hit = true;
    auto p = compileGraphCached(g, options, &hit);
    ASSERT_TRUE(p.ok()) << p.message();
    EXPECT_FALSE(hit);
    EXPECT_FALSE(p->launches.empty());
  }
}
