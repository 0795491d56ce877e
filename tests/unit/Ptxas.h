// ptxas from the CUDA toolkit on PTX the compiler emits (CPU tests: CI
// has ptxas but no GPU).
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <regex>
#include <string>

#include <unistd.h>

namespace tilec::ptxtest {

inline std::string ptxasPath() {
  std::string path = std::string(TILEC_CUDA_ROOT) + "/bin/ptxas";
  return access(path.c_str(), X_OK) == 0 ? path : "";
}

inline std::string runCommand(const std::string &cmd, int &status) {
  std::string out;
  FILE *pipe = popen((cmd + " 2>&1").c_str(), "r");
  if (!pipe) {
    status = -1;
    return out;
  }
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe))
    out.append(buf.data(), n);
  status = pclose(pipe);
  return out;
}

/// Assembles `ptx` with ptxas -v for `arch`; returns ptxas's log and sets
/// `status` (its exit status, -1 when no temporary file could be made).
/// With `cubinBytes`, also the size of the cubin ptxas wrote.
inline std::string assemble(const std::string &ptxas, const std::string &ptx, const std::string &arch,
                     int &status, size_t *cubinBytes = nullptr) {
  char tmpl[] = "/tmp/tilec-ptx-XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) {
    status = -1;
    return "mkstemp failed";
  }
  close(fd);
  std::ofstream(tmpl) << ptx;
  std::string cubin = cubinBytes ? std::string(tmpl) + ".cubin" : "/dev/null";
  std::string log = runCommand(ptxas + " -arch=" + arch + " -v " + tmpl + " -o " + cubin, status);
  std::remove(tmpl);
  if (cubinBytes) {
    std::ifstream in(cubin, std::ios::binary | std::ios::ate);
    *cubinBytes = in ? static_cast<size_t>(in.tellg()) : 0;
    std::remove(cubin.c_str());
  }
  return log;
}

/// ptxas -v's log reports no spills: every function's line reads "0 bytes
/// spill stores, 0 bytes spill loads", and there is at least one. (A plain
/// search for that text passes when any one kernel of several has no
/// spills, and inside "120 bytes spill stores, 0 bytes spill loads".)
inline void expectNoSpills(const std::string &log) {
  static const std::regex line(R"((\d+) bytes spill stores, (\d+) bytes spill loads)");
  size_t functions = 0;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), line); it != std::sregex_iterator();
       ++it, ++functions)
    EXPECT_TRUE((*it)[1] == "0" && (*it)[2] == "0") << it->str() << "\n" << log;
  EXPECT_GT(functions, 0u) << log;
}

/// ptxas must assemble `ptx` for `arch` without spills (and, with
/// `noInjectedSyncs`, without warpgroup syncs it had to inject).
inline void expectAssemblesWithoutSpills(const std::string &ptxas, const std::string &ptx,
                                  const std::string &arch, bool noInjectedSyncs = false) {
  int status = 0;
  std::string log = assemble(ptxas, ptx, arch, status);
  ASSERT_EQ(status, 0) << log;
  expectNoSpills(log);
  if (noInjectedSyncs) {
    EXPECT_EQ(log.find("is injected"), std::string::npos) << log;
  }
}

} // namespace tilec::ptxtest
