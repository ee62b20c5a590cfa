#include "common/util/lru_map.h"

#include <catch2/catch.hpp>
#include <string>

using mrd::LruMap;

TEST_CASE("lru map: the least recently used goes first, by count") {
  LruMap<std::string, int> m(2, 1000);
  m.insert("a", 1, 1);
  m.insert("b", 2, 1);
  REQUIRE(m.find("a"));  // a is now the most recently used
  m.insert("c", 3, 1);
  CHECK(m.contains("a"));
  CHECK_FALSE(m.contains("b"));
  CHECK(*m.find("c") == 3);
  CHECK(m.size() == 2);
}

TEST_CASE("lru map: by total size, never the entry just inserted") {
  LruMap<std::string, int> m(10, 100);
  m.insert("a", 1, 60);
  m.insert("b", 2, 30);
  CHECK(m.bytes() == 90);
  m.insert("c", 3, 20);  // 110: a goes
  CHECK_FALSE(m.contains("a"));
  CHECK(m.bytes() == 50);
  m.insert("huge", 4, 500);  // alone over the limit, kept alone
  CHECK(m.size() == 1);
  CHECK(m.contains("huge"));
  m.insert("huge", 5, 10);  // replaced, resized
  CHECK(m.bytes() == 10);
  CHECK(*m.find("huge") == 5);
  m.erase("huge");
  CHECK(m.size() == 0);
  CHECK(m.bytes() == 0);
  CHECK(m.find("huge") == nullptr);
}
