#include "common/measure/build_cache.h"

#include <sys/stat.h>
#include <cerrno>
#include <cstring>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "common/util/sha256.h"
#include "common/util/error.h"

namespace mrd::measure {
namespace {

namespace fs = std::filesystem;

// Creates `dir` and missing parents with mode 0700.
void make_private_dir(const std::string& dir) {
  fs::path p(dir);
  std::error_code ec;
  if (fs::is_directory(p, ec)) return;
  if (p.has_parent_path() && p.parent_path() != p) make_private_dir(p.parent_path().string());
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    throw std::runtime_error(str_cat("cannot create directory ", dir, ": ", std::strerror(errno)));
  }
}

// The cache holds code this process loads: refuse a directory another user could write to.
void check_private(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    throw std::runtime_error(str_cat("cannot stat ", dir, ": ", std::strerror(errno)));
  }
  if (st.st_uid != ::geteuid() || (st.st_mode & 022) != 0) {
    throw std::runtime_error(str_cat("cache directory ", dir,
                                     " is not private (it must belong to this user and not be "
                                     "writable by group or others)"));
  }
}

std::string unique_suffix() {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t salt = std::random_device{}();
  return str_cat(::getpid(), "-", salt % 1000000007, "-", counter++);
}

}  // namespace

BuildCache::BuildCache(std::string dir, Compiler& compiler)
    : dir_(std::move(dir)), compiler_(compiler), identity_(compiler.identity()) {}

std::string BuildCache::key(const std::string& source, const std::vector<std::string>& flags) const {
  // Length-prefixed fields, so no two (source, identity, flags) lists share a byte string.
  std::string material;
  auto add = [&](const std::string& s) { material += str_cat(s.size(), ":", s, ";"); };
  add("measurerd-build-v1");
  add(identity_);
  add(std::to_string(flags.size()));
  for (const std::string& f : flags) add(f);
  add(source);
  return sha256_hex(material);
}

CachedBuild BuildCache::get_or_build(const std::string& source,
                                     const std::vector<std::string>& flags,
                                     double timeout_seconds) {
  CachedBuild out;
  try {
    make_private_dir(dir_);
    check_private(dir_);
    std::string k = key(source, flags);
    fs::path artifact = fs::path(dir_) / (k + compiler_.artifact_suffix());
    std::error_code ec;
    if (fs::exists(artifact, ec)) {
      out.cache_hit = true;
      out.artifact = artifact.string();
      return out;
    }
    fs::path tmp = fs::path(dir_) / ("tmp-" + unique_suffix());
    make_private_dir(tmp.string());
    struct Cleanup {
      fs::path p;
      ~Cleanup() {
        std::error_code e;
        fs::remove_all(p, e);
      }
    } cleanup{tmp};
    fs::path src = tmp / compiler_.source_file_name();
    {
      std::ofstream f(src, std::ios::binary);
      f << source;
      if (!f.good()) throw std::runtime_error(str_cat("cannot write ", src.string()));
    }
    fs::path built = tmp / ("kernel" + compiler_.artifact_suffix());
    CompileRequest req{src.string(), built.string(), flags, timeout_seconds};
    out.outcome = compiler_.compile(req);
    if (out.outcome.status != CompileOutcome::Status::Ok) return out;
    if (!fs::exists(built, ec)) {
      out.outcome = {CompileOutcome::Status::Failed, "the compiler reported success but wrote no output"};
      return out;
    }
    fs::rename(built, artifact);  // atomic within one file system
    out.artifact = artifact.string();
  } catch (const std::exception& e) {
    out.outcome = {CompileOutcome::Status::Failed, str_cat("compile cache: ", e.what())};
  }
  return out;
}

std::string default_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/') return str_cat(x, "/measurerd");
  if (const char* h = std::getenv("HOME"); h && *h == '/') return str_cat(h, "/.cache/measurerd");
  return str_cat("/tmp/measurerd-cache-", ::getuid());
}

}  // namespace mrd::measure
