#include "common/broker/redis_url.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>

#include "common/util/error.h"
#include "tests/support/temp_dir.h"

using namespace mrd;
using namespace mrd::broker;

TEST_CASE("broker URLs: TCP with port, database and credentials") {
  auto e = parse_redis_url("redis://alice:secret@broker.example:6380/2");
  CHECK(e.host == "broker.example");
  CHECK(e.port == 6380);
  CHECK(e.db == 2);
  CHECK(e.user == "alice");
  CHECK(e.password == "secret");
  CHECK(e.text() == "redis://alice@broker.example:6380/2");  // never the password

  auto d = parse_redis_url("redis://10.0.0.5");
  CHECK(d.host == "10.0.0.5");
  CHECK(d.port == 6379);
  CHECK(d.db == 0);
  CHECK(d.password.empty());
}

TEST_CASE("broker URLs: Unix socket with a database") {
  auto e = parse_redis_url("unix:///run/redis/redis.sock?db=3");
  CHECK(e.unix_path == "/run/redis/redis.sock");
  CHECK(e.db == 3);
  CHECK(e.host.empty());
}

TEST_CASE("broker URLs: malformed ones are refused saying why") {
  for (const char* bad : {"http://x", "redis://", "redis://h:port", "redis://h:70000",
                          "unix://relative.sock", "unix:///s?x=1", "redis://h/db"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_redis_url(bad), UserError);
  }
}

TEST_CASE("broker password file: a password, or a user and a password") {
  mrd::testing::TempDir dir("measurerd-password");
  std::string path = dir.file("password");
  RedisEndpoint e;
  std::ofstream(path) << "s3cret\n";
  read_password_file(e, path);
  CHECK(e.password == "s3cret");
  CHECK(e.user.empty());
  std::ofstream(path) << "measurer s3cret\n";
  read_password_file(e, path);
  CHECK(e.user == "measurer");
  CHECK(e.password == "s3cret");
  std::ofstream(path) << "\n";
  CHECK_THROWS_AS(read_password_file(e, path), UserError);
  std::remove(path.c_str());
  CHECK_THROWS_AS(read_password_file(e, path), UserError);
}
