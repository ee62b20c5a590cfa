#include "common/broker/broker_job.h"

#include <catch2/catch.hpp>

#include "common/broker/broker_keys.h"
#include "common/proto/protocol_error.h"

using namespace mrd;
using namespace mrd::broker;

namespace {

/// The field/value list as the broker returns it.
RedisReply as_reply(const RedisArgs& fields) {
  RedisReply r;
  r.type = RedisReply::Type::Array;
  for (const auto& f : fields) {
    RedisReply s;
    s.type = RedisReply::Type::String;
    s.str = f;
    r.elements.push_back(s);
  }
  return r;
}

JobEntry sample_job() {
  JobEntry j;
  j.request = "0123abcd:7";
  j.reply = results_stream("0123abcd");
  j.index = 5;
  j.task_hash = std::string(64, 'a');
  j.state = "[[\"SP\", 2, 0, 16, [4], 1]]";
  j.options.number = 2;
  return j;
}

/// The fields with `name`'s value replaced.
RedisArgs with(RedisArgs f, const std::string& name, const std::string& value) {
  for (size_t i = 0; i + 1 < f.size(); i += 2)
    if (f[i] == name) f[i + 1] = value;
  return f;
}

}  // namespace

TEST_CASE("job entries round-trip through their stream fields") {
  EntryLimits limits;
  auto fields = as_reply(job_fields(sample_job()));
  JobEntry j = parse_job_route(fields, limits);
  parse_job_body(fields, limits, j);
  CHECK(j.request == "0123abcd:7");
  CHECK(j.reply == "mrd:results:0123abcd");
  CHECK(j.index == 5);
  CHECK(j.task_hash == std::string(64, 'a'));
  CHECK(j.state == sample_job().state);
  CHECK(j.options.number == 2);
}

TEST_CASE("job entries from the broker are checked like a peer's bytes") {
  EntryLimits limits;
  limits.limits.max_states = 4;
  auto good = job_fields(sample_job());
  // Routing that would send a result anywhere but a result stream, or an index past the limit.
  for (auto bad : {with(good, "reply", "mrd:jobs:x"), with(good, "reply", "mrd:results:a b"),
                   with(good, "index", "5"), with(good, "index", "-1"),
                   with(good, "req", "no-serial"), with(good, "req", std::string(200, 'a'))}) {
    CHECK_THROWS_AS(parse_job_route(as_reply(bad), limits), proto::ProtocolError);
  }
  limits.limits.max_states = 4096;
  for (auto bad : {with(good, "task", "../../etc"), with(good, "body", "\x05garbage"),
                   with(good, "v", "2")}) {
    auto f = as_reply(bad);
    JobEntry j = parse_job_route(f, limits);
    CHECK_THROWS_AS(parse_job_body(f, limits, j), proto::ProtocolError);
  }
  // A body above the size limit is refused before it is decoded.
  limits.max_body = 8;
  auto f = as_reply(good);
  JobEntry j = parse_job_route(f, limits);
  CHECK_THROWS_WITH(parse_job_body(f, limits, j), Catch::Contains("exceeds 8 bytes"));
}

TEST_CASE("result entries round-trip and name their node") {
  ResultEntry r;
  r.request = "0123abcd:7";
  r.index = 3;
  r.node = "node-a";
  r.result.costs = {1e-3, 2e-3};
  r.result.error_msg = "fine";
  auto back = parse_result(as_reply(result_fields(r)), EntryLimits{});
  CHECK(back.request == r.request);
  CHECK(back.index == 3);
  CHECK(back.node == "node-a");
  CHECK(back.result.costs == r.result.costs);
  CHECK(back.result.error_msg == "fine");
  CHECK_THROWS_AS(parse_result(as_reply(with(result_fields(r), "index", "4")), EntryLimits{}),
                  proto::ProtocolError);
}
