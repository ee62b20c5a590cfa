#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "common/util/hash_padding.h"
#include "common/util/md5.h"

using namespace mrd;

namespace {

/// The padded message as for_each_padded_block hands it out, block after block.
std::string padded(std::string_view data, LengthOrder order) {
  std::string out;
  for_each_padded_block(data, order, [&](const unsigned char* block) {
    out.append(reinterpret_cast<const char*>(block), 64);
  });
  return out;
}

}  // namespace

TEST_CASE("padding appends 0x80, zeros and the bit length in the chosen byte order") {
  std::string little = padded("abc", LengthOrder::LittleEndian);
  REQUIRE(little.size() == 64);
  CHECK(little.substr(0, 4) == std::string("abc\x80", 4));
  CHECK(little.substr(4, 52) == std::string(52, '\0'));
  CHECK(little.substr(56) == std::string("\x18\0\0\0\0\0\0\0", 8));

  std::string big = padded("abc", LengthOrder::BigEndian);
  REQUIRE(big.size() == 64);
  CHECK(big.substr(0, 56) == little.substr(0, 56));
  CHECK(big.substr(56) == std::string("\0\0\0\0\0\0\0\x18", 8));
}

TEST_CASE("padding takes a second block when the length no longer fits") {
  for (size_t n : {0, 1, 55, 56, 63, 64, 65, 119, 120, 128}) {
    std::string data(n, 'x');
    std::string p = padded(data, LengthOrder::BigEndian);
    INFO("data of " << n << " bytes");
    size_t blocks = (n + 1 + 8 + 63) / 64;
    REQUIRE(p.size() == blocks * 64);
    CHECK(p.substr(0, n) == data);
    CHECK(p[n] == '\x80');
    CHECK(p.substr(n + 1, p.size() - 8 - n - 1) == std::string(p.size() - 8 - n - 1, '\0'));
    uint64_t bits = 0;
    for (size_t i = p.size() - 8; i < p.size(); ++i) bits = bits << 8 | uint8_t(p[i]);
    CHECK(bits == n * 8);
  }
}

TEST_CASE("md5 around the block and padding boundaries") {
  CHECK(md5_hex(std::string(55, 'a')) == "ef1772b6dff9a122358552954ad0df65");
  CHECK(md5_hex(std::string(56, 'a')) == "3b0c8ac703f828b04c6c197006d17218");
  CHECK(md5_hex(std::string(63, 'a')) == "b06521f39153d618550606be297466d5");
  CHECK(md5_hex(std::string(64, 'a')) == "014842d480b571495a4a0363793f7367");
  CHECK(md5_hex(std::string(119, 'a')) == "8a7bd0732ed6a28ce75f6dabc90e1613");
  CHECK(md5_hex(std::string(120, 'a')) == "5f61c0ccad4cac44c75ff505e1f1e537");
  CHECK(md5_hex(std::string(128, 'a')) == "e510683b3f5ffe4093d021808bc6ff70");
}
