#include "common/proto/frame_decoder.h"

#include <algorithm>

#include "common/util/error.h"

namespace mrd::proto {

void FrameDecoder::feed(std::string_view bytes) {
  while (!bytes.empty() && !failure_) {
    if (!have_header_) {
      size_t take = std::min(kHeaderSize - header_.size(), bytes.size());
      header_.append(bytes.substr(0, take));
      bytes.remove_prefix(take);
      if (header_.size() < kHeaderSize) return;
      current_ = decode_header(header_.data());
      header_.clear();
      if (current_.magic != kMagic) {
        failure_ = DecodeFailure{ErrorCode::BadMagic, "frame does not start with the MRDP magic"};
        return;
      }
      if (current_.version != kProtocolVersion) {
        failure_ =
            DecodeFailure{ErrorCode::UnsupportedVersion,
                          str_cat("protocol version ", current_.version,
                                  " not supported (this peer speaks ", kProtocolVersion, ")")};
        return;
      }
      if (current_.body_length > max_body_) {
        failure_ = DecodeFailure{ErrorCode::BodyTooLarge,
                                 str_cat("frame body of ", current_.body_length,
                                         " bytes exceeds the maximum of ", max_body_)};
        return;
      }
      have_header_ = true;
      body_.clear();
    }
    size_t take = std::min<size_t>(current_.body_length - body_.size(), bytes.size());
    body_.append(bytes.substr(0, take));
    bytes.remove_prefix(take);
    if (body_.size() == current_.body_length) {
      ready_.push_back(Frame{current_.type, std::move(body_)});
      body_ = std::string();
      have_header_ = false;
    }
  }
}

std::optional<Frame> FrameDecoder::next() {
  if (ready_.empty()) return std::nullopt;
  Frame f = std::move(ready_.front());
  ready_.pop_front();
  return f;
}

}  // namespace mrd::proto
