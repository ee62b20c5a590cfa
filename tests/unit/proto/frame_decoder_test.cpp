#include "common/proto/frame_decoder.h"

#include <catch2/catch.hpp>

#include "common/proto/codec.h"

using namespace mrd::proto;

TEST_CASE("a frame fed one byte at a time comes out whole, once") {
  Hello h;
  h.client_name = "byte-by-byte";
  std::string bytes = encode(h) + encode(Cancel{42});
  FrameDecoder d;
  int frames = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    d.feed(std::string_view(bytes).substr(i, 1));
    while (auto f = d.next()) {
      ++frames;
      if (frames == 1) {
        REQUIRE(i == encode(h).size() - 1);  // complete exactly at its last byte
        CHECK(f->type == uint16_t(MessageType::Hello));
        CHECK(decode<Hello>(f->body).client_name == "byte-by-byte");
      } else {
        CHECK(f->type == uint16_t(MessageType::Cancel));
        CHECK(decode<Cancel>(f->body).request_id == 42);
      }
    }
  }
  CHECK(frames == 2);
  CHECK_FALSE(d.failure());
  CHECK_FALSE(d.mid_frame());
}

TEST_CASE("an empty body completes at the end of the header") {
  FrameDecoder d;
  d.feed(encode(StatusRequest{}));
  auto f = d.next();
  REQUIRE(f);
  CHECK(f->type == uint16_t(MessageType::StatusRequest));
  CHECK(f->body.empty());
}

TEST_CASE("wrong magic fails at the header, before any body") {
  std::string bytes = encode(Cancel{1});
  bytes[0] = 'X';
  FrameDecoder d;
  d.feed(bytes);
  REQUIRE(d.failure());
  CHECK(d.failure()->code == ErrorCode::BadMagic);
  CHECK_FALSE(d.next());
  d.feed(encode(Cancel{2}));  // failed stays failed
  CHECK_FALSE(d.next());
}

TEST_CASE("an unknown version is refused") {
  FrameHeader h;
  h.version = 7;
  FrameDecoder d;
  d.feed(encode_header(h));
  REQUIRE(d.failure());
  CHECK(d.failure()->code == ErrorCode::UnsupportedVersion);
}

TEST_CASE("an oversized length is refused from the header alone") {
  FrameHeader h;
  h.type = uint16_t(MessageType::MeasureRequest);
  h.body_length = 1025;
  FrameDecoder d(1024);
  d.feed(encode_header(h));  // no body byte sent at all
  REQUIRE(d.failure());
  CHECK(d.failure()->code == ErrorCode::BodyTooLarge);

  FrameDecoder ok(1024);
  h.body_length = 1024;
  ok.feed(encode_header(h));
  CHECK_FALSE(ok.failure());
  CHECK(ok.mid_frame());
  ok.feed(std::string(1024, 'a'));
  CHECK(ok.next());
}

TEST_CASE("a truncated frame stays pending and is reported as mid-frame") {
  std::string bytes = encode(Hello{});
  FrameDecoder d;
  d.feed(std::string_view(bytes).substr(0, bytes.size() - 1));
  CHECK_FALSE(d.next());
  CHECK(d.mid_frame());
  CHECK_FALSE(d.failure());
}
