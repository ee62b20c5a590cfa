// Encoding and decoding of every message body. encode() makes a whole frame; decode<M>()
// reads a body and throws ProtocolError (MALFORMED_BODY) for bytes that do not decode, never
// allocating more than the body could hold. Bytes after the known fields are ignored.
#pragma once

#include <string>
#include <string_view>

#include "common/proto/body_archive.h"
#include "common/proto/frame.h"
#include "common/proto/messages.h"
#include "common/proto/worker_messages.h"

namespace mrd::proto {

void write(BodyWriter& ar, const measure::MeasureOptions& m);
void read(BodyReader& ar, measure::MeasureOptions& m, const Limits& limits);
void write(BodyWriter& ar, const measure::MeasureResult& m);
void read(BodyReader& ar, measure::MeasureResult& m, const Limits& limits);

#define MRD_PROTO_MESSAGE(M)              \
  void write(BodyWriter& ar, const M& m); \
  void read(BodyReader& ar, M& m, const Limits& limits);
MRD_PROTO_MESSAGE(Hello)
MRD_PROTO_MESSAGE(Welcome)
MRD_PROTO_MESSAGE(MeasureRequest)
MRD_PROTO_MESSAGE(MeasureResultMsg)
MRD_PROTO_MESSAGE(RequestDone)
MRD_PROTO_MESSAGE(StatusRequest)
MRD_PROTO_MESSAGE(StatusReply)
MRD_PROTO_MESSAGE(Cancel)
MRD_PROTO_MESSAGE(ErrorMsg)
MRD_PROTO_MESSAGE(WorkerReady)
MRD_PROTO_MESSAGE(BuildJob)
MRD_PROTO_MESSAGE(RunJob)
MRD_PROTO_MESSAGE(JobResult)
MRD_PROTO_MESSAGE(TaskMissing)
#undef MRD_PROTO_MESSAGE

/// The whole frame (header + body) of a message.
template <class M>
std::string encode(const M& m) {
  return make_frame(static_cast<uint16_t>(M::kType), encode_body(m));
}

/// Decodes a body of message type M. Throws ProtocolError.
template <class M>
M decode(std::string_view body, const Limits& limits = {}) {
  BodyReader ar(body);
  M m;
  read(ar, m, limits);
  return m;
}

/// An Error frame.
std::string encode_error(ErrorCode code, std::string message, uint64_t request_id = 0);

/// Out-of-range option values (non-positive counts, non-finite or huge timeouts), as a
/// readable message; empty when the options are acceptable.
std::string check_options(const measure::MeasureOptions& o);

}  // namespace mrd::proto
