// The two error kinds of the compiler, after Halide: a UserError is a bad program, schedule or
// request (the user's to fix, reported as an error result); an InternalError is a bug in
// measurerd. Both carry a readable message. Serialization and protocol errors have their own
// typed errors in their areas.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace mrd {

class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// Concatenates any streamable values into one string.
template <typename... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

[[noreturn]] void throw_internal(const char* file, int line, const std::string& what);

}  // namespace mrd

/// Checks an invariant of measurerd itself; a failure is an InternalError, never an abort.
#define MRD_CHECK(cond, ...)                                                           \
  do {                                                                                 \
    if (!(cond)) ::mrd::throw_internal(__FILE__, __LINE__, ::mrd::str_cat(#cond, ": ", \
                                                                         __VA_ARGS__)); \
  } while (0)

/// Rejects a bad user program or schedule with a UserError.
#define MRD_USER_CHECK(cond, ...)                                  \
  do {                                                             \
    if (!(cond)) throw ::mrd::UserError(::mrd::str_cat(__VA_ARGS__)); \
  } while (0)
