#include "client/tune/validity.h"

#include <exception>

#include "common/lower/lower.h"

namespace mrd::tune {

bool lowers(const dag::ComputeDAG& dag, const std::vector<schedule::Step>& steps) {
  try {
    lower::lower(dag, steps);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace mrd::tune
