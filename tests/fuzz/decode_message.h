// Decodes a message body by its frame type, as daemon, worker and client do with what they
// receive: a body that does not decode must be refused with a ProtocolError only, and a
// message that does decode must re-encode to a body that decodes again to the same bytes.
// Unknown types are left alone (the receivers answer UNEXPECTED_MESSAGE without decoding).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/proto/codec.h"
#include "tests/fuzz/fuzz_target.h"

namespace mrd::fuzz {

template <class M>
void check_message(std::string_view body) {
  M m;
  try {
    m = proto::decode<M>(body);
  } catch (const proto::ProtocolError&) {
    return;
  }
  std::string again = proto::encode_body(m);
  require(proto::encode_body(proto::decode<M>(again)) == again,
          "re-encoding an accepted message is not stable");
}

inline void decode_message(uint16_t type, std::string_view body) {
  using proto::MessageType;
  switch (static_cast<MessageType>(type)) {
    case MessageType::Hello: return check_message<proto::Hello>(body);
    case MessageType::Welcome: return check_message<proto::Welcome>(body);
    case MessageType::MeasureRequest: return check_message<proto::MeasureRequest>(body);
    case MessageType::MeasureResult: return check_message<proto::MeasureResultMsg>(body);
    case MessageType::RequestDone: return check_message<proto::RequestDone>(body);
    case MessageType::StatusRequest: return check_message<proto::StatusRequest>(body);
    case MessageType::StatusReply: return check_message<proto::StatusReply>(body);
    case MessageType::Cancel: return check_message<proto::Cancel>(body);
    case MessageType::Error: return check_message<proto::ErrorMsg>(body);
    case MessageType::WorkerReady: return check_message<proto::WorkerReady>(body);
    case MessageType::BuildJob: return check_message<proto::BuildJob>(body);
    case MessageType::RunJob: return check_message<proto::RunJob>(body);
    case MessageType::JobResult: return check_message<proto::JobResult>(body);
    case MessageType::TaskMissing: return check_message<proto::TaskMissing>(body);
  }
}

}  // namespace mrd::fuzz
