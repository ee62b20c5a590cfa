// Runs a fuzz target over saved inputs, without libFuzzer: every regular file of every
// directory argument (in name order) and every file argument, once each. The test suite uses
// it to replay the committed corpus, so a decoder regression fails CI; it generates nothing.
// Exit status 1 names the first input whose run threw; a crash ends the process as it would.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_target.h"

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> inputs_of(const fs::path& arg) {
  std::vector<fs::path> files;
  if (fs::is_directory(arg)) {
    for (const auto& e : fs::directory_iterator(arg))
      if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(arg);
  }
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
    return 2;
  }
  size_t runs = 0;
  for (int a = 1; a < argc; ++a) {
    if (!fs::exists(argv[a])) {
      std::fprintf(stderr, "%s: no such file or directory\n", argv[a]);
      return 2;
    }
    for (const auto& path : inputs_of(argv[a])) {
      std::ifstream in(path, std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      try {
        LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      } catch (const mrd::fuzz::PropertyViolated& e) {
        std::fprintf(stderr, "%s: property violated: %s\n", path.c_str(), e.what);
        return 1;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: uncaught exception: %s\n", path.c_str(), e.what());
        return 1;
      } catch (...) {
        std::fprintf(stderr, "%s: uncaught exception of unknown type\n", path.c_str());
        return 1;
      }
      ++runs;
    }
  }
  if (runs == 0) {
    std::fprintf(stderr, "no inputs found\n");
    return 2;
  }
  std::printf("%zu inputs replayed without a finding\n", runs);
  return 0;
}
