#include "common/broker/device_key.h"

#include <cctype>
#include <fstream>
#include <thread>

#include "common/util/md5.h"

namespace mrd::broker {
namespace {

/// The value of the first "/proc/cpuinfo" line starting with `field`.
std::string cpuinfo_field(const std::string& field) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) != 0) continue;
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

std::string slug(const std::string& s) {
  std::string out;
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '.') {
      out += static_cast<char>(std::tolower(u));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  if (out.size() > 80) out.resize(80);
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "unknown-cpu" : out;
}

}  // namespace

std::string local_device_key() {
  std::string model = cpuinfo_field("model name");
  std::string flags = cpuinfo_field("flags");
  if (flags.empty()) flags = cpuinfo_field("Features");  // arm64
  unsigned cores = std::thread::hardware_concurrency();
  return slug(model) + "-" + std::to_string(cores ? cores : 1) + "c-" + md5_hex(flags).substr(0, 8);
}

}  // namespace mrd::broker
