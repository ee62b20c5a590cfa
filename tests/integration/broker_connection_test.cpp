// The broker connection against a real redis-server: binary-safe values, pipelines, error
// replies, and a broker that goes away (an error, never SIGPIPE ending the program).
#include <catch2/catch.hpp>

#include "redis_fixture.h"

using namespace mrd;
using namespace mrd::testing;
using broker::BrokerError;
using broker::RedisReply;

TEST_CASE("broker connection: binary values, pipelines and error replies") {
  RedisServer redis;
  auto c = redis.connect();
  std::string value;
  for (int i = 0; i < 256; ++i) value += static_cast<char>(i);
  CHECK(c.command({"SET", "k", value}).str == "OK");
  CHECK(c.command({"GET", "k"}).str == value);
  CHECK(c.command({"GET", "missing"}).is_nil());
  auto replies = c.pipeline({{"INCR", "n"}, {"INCR", "n"}, {"NOSUCHCOMMAND"}});
  REQUIRE(replies.size() == 3);
  CHECK(replies[0].integer == 1);
  CHECK(replies[1].integer == 2);
  CHECK(replies[2].is_error());
  CHECK(!c.run_id().empty());
}

TEST_CASE("broker connection: a broker gone away is a BrokerError, not SIGPIPE") {
  RedisServer redis;
  auto c = redis.connect();
  REQUIRE(c.command({"PING"}).str == "PONG");
  redis.kill();
  // Writing to a Unix socket whose peer is gone raises SIGPIPE, which would end this process.
  CHECK_THROWS_AS(c.command({"PING"}), BrokerError);
  CHECK_THROWS_AS(c.command({"PING"}), BrokerError);
  CHECK_THROWS_AS(redis.connect(), BrokerError);
}
