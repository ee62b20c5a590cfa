// Whether this program was built with AddressSanitizer (`MEASURERD_SANITIZE=ON`, the fuzz
// build, or any -fsanitize=address). ASan reserves terabytes of address space for its shadow
// memory, so such a worker cannot run under an address-space limit (RLIMIT_AS): it skips that
// limit, and the runaway_alloc fault, which relies on it, refuses to run.
#pragma once

namespace mrd::worker {

#if defined(MEASURERD_SANITIZED) || defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizerBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitizerBuild = true;
#else
inline constexpr bool kSanitizerBuild = false;
#endif
#else
inline constexpr bool kSanitizerBuild = false;
#endif

}  // namespace mrd::worker
