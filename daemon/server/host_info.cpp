#include "daemon/server/host_info.h"

#include <fstream>
#include <thread>

namespace mrd::daemon {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        auto start = line.find_first_not_of(" \t", colon + 1);
        if (start != std::string::npos) return line.substr(start);
      }
    }
  }
  return "unknown";
}

unsigned core_count() {
  unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

}  // namespace mrd::daemon
