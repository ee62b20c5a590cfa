// A byte stream as it arrives on a socket or pipe: the frame decoder, fed the whole stream at
// once and fed it again in uneven pieces, must take out the same frames and end in the same
// state; every frame's body then goes to its message decoder.
#include <optional>
#include <vector>

#include "common/proto/frame_decoder.h"
#include "tests/fuzz/decode_message.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mrd;

namespace {

/// Small enough that the fuzzer reaches BODY_TOO_LARGE.
constexpr uint32_t kMaxBody = 1u << 16;

std::vector<proto::Frame> drain(proto::FrameDecoder& d) {
  std::vector<proto::Frame> frames;
  while (auto f = d.next()) frames.push_back(std::move(*f));
  return frames;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view stream = fuzz::as_bytes(data, size);

  proto::FrameDecoder whole(kMaxBody);
  whole.feed(stream);
  std::vector<proto::Frame> frames = drain(whole);

  proto::FrameDecoder pieces(kMaxBody);
  std::vector<proto::Frame> piece_frames;
  for (size_t pos = 0, i = 0; pos < stream.size(); ++i) {
    size_t n = std::min(stream.size() - pos, i % 13 + 1);
    pieces.feed(stream.substr(pos, n));
    pos += n;
    for (auto& f : drain(pieces)) piece_frames.push_back(std::move(f));
  }

  fuzz::require(frames.size() == piece_frames.size(), "frame count depends on the split");
  for (size_t i = 0; i < frames.size(); ++i)
    fuzz::require(frames[i].type == piece_frames[i].type && frames[i].body == piece_frames[i].body,
                  "frame contents depend on the split");
  fuzz::require(whole.failure().has_value() == pieces.failure().has_value() &&
                    (!whole.failure() || whole.failure()->code == pieces.failure()->code),
                "failure depends on the split");
  fuzz::require(whole.mid_frame() == pieces.mid_frame(), "mid-frame state depends on the split");

  for (const auto& f : frames) {
    fuzz::require(f.body.size() <= kMaxBody, "a frame above the maximum body was accepted");
    fuzz::decode_message(f.type, f.body);
  }
  return 0;
}
