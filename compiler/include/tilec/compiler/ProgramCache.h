// The on-disk program cache: compiled programs (PTX and launch plans) kept
// between processes, so that a graph compiled once is not lowered through
// MLIR again by the next process (as Triton keeps ~/.triton/cache). The
// driver keeps the PTX's JIT in its own cache (~/.nv/ComputeCache), so a
// warm start costs neither.
#pragma once

#include "tilec/compiler/Compiler.h"

#include <optional>
#include <string>

namespace tilec {

/// The compiler build that made a program: the hash of tilec's compiler
/// sources (frontend, dialects, passes, compiler; made by the build), and
/// the LLVM version. Entries of another identity are never loaded.
const std::string &compilerIdentity();

/// A key that two graphs share iff they compile to the same program under
/// `options` (its dims, dtypes, ops, constants, inputs and outputs, and
/// the options that change kernels; not cacheDir).
std::string graphFingerprint(const Graph &graph, const CompileOptions &options);

/// The directory `options.cacheDir` names: "off" (or empty after the
/// environment) disables the cache; empty: $TILEC_CACHE_DIR if set, else
/// $XDG_CACHE_HOME/tilec, else $HOME/.cache/tilec. Returns "" for none.
std::string resolveCacheDir(const CompileOptions &options);

/// `program` as JSON text, and back. Every field of the program, its
/// values, launch plans and fusion reports is written; reading checks each
/// one's type and refuses unknown kinds, so a damaged entry is an error.
std::string serializeProgram(const CompiledProgram &program);
Expected<CompiledProgram> deserializeProgram(const std::string &json);

/// Programs by key (graphFingerprint) under a directory, one file an
/// entry named by the SHA-256 of the identity and key; each entry holds
/// both, and load() returns it only where they match. Files are written
/// whole to a temporary name, then renamed: processes may share the
/// directory.
class ProgramCache {
public:
  explicit ProgramCache(std::string dir) : dir_(std::move(dir)) {}

  const std::string &dir() const { return dir_; }
  /// The entry's path for `key`.
  std::string pathFor(const std::string &key) const;

  /// The program stored for `key` by this compiler build, or nullopt: no
  /// entry, another build's, or one that does not read back (damaged).
  std::optional<CompiledProgram> load(const std::string &key) const;

  /// Stores `program` for `key`, creating the directory. An error (the
  /// directory cannot be made or written) leaves any entry there as it was.
  Status store(const std::string &key, const CompiledProgram &program) const;

private:
  std::string dir_;
};

/// compileGraph through the on-disk cache `options` names
/// (resolveCacheDir): a program this compiler build stored for an equal
/// key (graphFingerprint) is read back instead of compiled, and a compiled
/// one is stored (not with printIRAfterAll, which compiles every time).
/// `hit`, if given, says which. A cache directory that
/// cannot be written is skipped (the program is still returned) with one
/// warning on stderr a process.
Expected<CompiledProgram> compileGraphCached(const Graph &graph, const CompileOptions &options,
                                             bool *hit = nullptr);

} // namespace tilec
