#include "common/broker/device_key.h"

#include <catch2/catch.hpp>

#include "common/broker/broker_keys.h"

using namespace mrd::broker;

TEST_CASE("the local device key is a valid, stable stream name naming the core count") {
  std::string key = local_device_key();
  CHECK(valid_name(key));
  CHECK(key == local_device_key());
  CHECK(key.find("c-") != std::string::npos);
  for (char c : key) CHECK((std::islower(static_cast<unsigned char>(c)) || std::isdigit(c) ||
                            c == '-' || c == '.'));
}

TEST_CASE("names on the broker: 1 to 128 characters of [A-Za-z0-9._-]") {
  CHECK(valid_name("node-1.example_A"));
  CHECK_FALSE(valid_name(""));
  CHECK_FALSE(valid_name(std::string(129, 'a')));
  CHECK_FALSE(valid_name("a:b"));  // ':' separates the parts of a key
  CHECK_FALSE(valid_name("a b"));
  CHECK_FALSE(valid_name("a*"));
}
