// A pure, incremental frame decoder: feed it bytes as they arrive (any split, down to one byte
// at a time) and take complete frames out. It does no I/O. The header is checked as soon as its
// 12 bytes are in — magic, version and the body length against the maximum — before any body
// byte is stored; after a failure the decoder stays failed and consumes nothing more.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "common/proto/frame.h"
#include "common/proto/protocol_error.h"

namespace mrd::proto {

struct Frame {
  uint16_t type = 0;
  std::string body;
};

struct DecodeFailure {
  ErrorCode code;
  std::string message;
};

class FrameDecoder {
 public:
  explicit FrameDecoder(uint32_t max_body = kDefaultMaxBody) : max_body_(max_body) {}

  /// Consumes bytes; complete frames queue up for next(). Does nothing once failed.
  void feed(std::string_view bytes);
  /// The oldest complete frame not yet taken.
  std::optional<Frame> next();
  /// True when next() has a frame to give.
  bool has_frame() const { return !ready_.empty(); }
  const std::optional<DecodeFailure>& failure() const { return failure_; }
  /// True when bytes of an incomplete frame are buffered (a close now truncates a frame).
  bool mid_frame() const { return !header_.empty() || have_header_; }

 private:
  uint32_t max_body_;
  std::string header_;
  bool have_header_ = false;
  FrameHeader current_;
  std::string body_;
  std::deque<Frame> ready_;
  std::optional<DecodeFailure> failure_;
};

}  // namespace mrd::proto
