// Hostile JSON archives: syntax, nesting, header and field types.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/unit/serialize/dag_samples.h"
#include "tests/unit/serialize/outcome.h"

using namespace mrd;
using namespace mrd::serialize;
using namespace mrd::serialize::testing;
using nlohmann::json;

namespace {

json tiny_json() {
  return json::parse(write_json_archive(tiny_archive()));
}

}  // namespace

TEST_CASE("the JSON form is readable and names its format and version", "[serialize]") {
  json j = tiny_json();
  CHECK(j["format"] == "measurerd-dag");
  CHECK(j["version"] == 1);
  CHECK(j["nodes"][0]["kind"] == "placeholder");
  CHECK(j["nodes"][0]["shape"] == json::array({4}));
  CHECK(j["nodes"][4]["op"] == "+");
  CHECK(j["nodes"][4]["operands"] == json::array({2, 3}));
  CHECK(j["nodes"][5]["body"] == 4);
  CHECK(j["nodes"][5]["axis"][0]["var"] == 1);
  CHECK(j["tensors"] == json::array({0, 5}));
  // Compact and reordered JSON from another writer loads as well.
  CHECK(json_outcome(j.dump()) == "ok");
}

TEST_CASE("every prefix of a JSON archive fails cleanly", "[serialize]") {
  std::string text = dag_to_json(matmul_dag());
  size_t end = text.rfind('}');
  REQUIRE(end != std::string::npos);
  for (size_t n = 0; n <= end; ++n) {
    INFO("prefix of " << n << " bytes");
    CHECK(json_outcome(std::string_view(text).substr(0, n)) == "Malformed");
  }
}

TEST_CASE("JSON syntax garbage is Malformed", "[serialize]") {
  for (const char* text :
       {"", "not json", "{", "{\"format\": }", "{\"format\": \"measurerd-dag\",}", "{} {}",
        "{\"a\": 1e999}", "\xff\xfe{}"}) {
    INFO(text);
    CHECK(json_outcome(text) == "Malformed");
  }
  std::string with_nul = dag_to_json(matmul_dag());
  with_nul.insert(with_nul.size() / 2, 1, '\0');
  CHECK(json_outcome(with_nul) == "Malformed");
}

TEST_CASE("deep JSON nesting is rejected without recursion", "[serialize]") {
  CHECK(json_outcome(std::string(1000000, '[')) == "Malformed");
  CHECK(json_outcome(std::string(100000, '[') + std::string(100000, ']')) == "Malformed");
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  CHECK(json_outcome(objects) == "Malformed");
}

TEST_CASE("a JSON header of another format or version is rejected", "[serialize]") {
  json j = tiny_json();
  j["format"] = "tvm-dag";
  CHECK(json_outcome(j.dump()) == "BadMagic");
  j.erase("format");
  CHECK(json_outcome(j.dump()) == "BadMagic");
  j = tiny_json();
  j["format"] = 1;
  CHECK(json_outcome(j.dump()) == "BadMagic");
  CHECK(json_outcome("[1, 2]") == "BadMagic");
  CHECK(json_outcome("3") == "BadMagic");
  j = tiny_json();
  j["version"] = 3;
  CHECK(json_outcome(j.dump()) == "BadVersion");
  j["version"] = "1";
  CHECK(json_outcome(j.dump()) == "BadVersion");
  j.erase("version");
  CHECK(json_outcome(j.dump()) == "BadVersion");
}

TEST_CASE("an unknown JSON kind name is UnknownNodeKind", "[serialize]") {
  json j = tiny_json();
  j["nodes"][3]["kind"] = "buffer_load";
  CHECK(json_outcome(j.dump()) == "UnknownNodeKind");
}

TEST_CASE("JSON fields of the wrong type are Malformed", "[serialize]") {
  auto with = [](auto edit) {
    json j = tiny_json();
    edit(j);
    return json_outcome(j.dump());
  };
  CHECK(with([](json& j) { j["nodes"][0]["shape"] = "abc"; }) == "Malformed");
  CHECK(with([](json& j) { j["nodes"][0]["shape"] = {{"x", 1}}; }) == "Malformed");
  CHECK(with([](json& j) { j["nodes"][0]["shape"][0] = 4.5; }) == "Malformed");
  CHECK(with([](json& j) { j["nodes"][0]["shape"][0] = "4"; }) == "Malformed");
  CHECK(with([](json& j) { j["nodes"][0]["shape"][0] = json::array({4}); }) == "Malformed");
  CHECK(with([](json& j) { j["nodes"][0]["shape"][0] = 18446744073709551615ull; }) == "Malformed");
  CHECK(with([](json& j) { j["nodes"][2]["operands"][0] = -1; }) == "Malformed");
  CHECK(with([](json& j) { j["nodes"][2]["operands"] = 1; }) == "Malformed");
  CHECK(with([](json& j) { j["nodes"][1]["name"] = 7; }) == "Malformed");
  CHECK(with([](json& j) { j["nodes"][3]["value"] = "1.0"; }) == "Malformed");
  CHECK(with([](json& j) { j["nodes"][5]["body"] = nullptr; }) == "Malformed");
  CHECK(with([](json& j) { j["nodes"][5]["axis"][0] = 1; }) == "Malformed");
  CHECK(with([](json& j) { j["nodes"][5]["axis"][0]["extent"] = true; }) == "Malformed");
  CHECK(with([](json& j) { j["nodes"][4]["op"] = "pow"; }) == "Malformed");  // not a binary op
  CHECK(with([](json& j) { j["nodes"][0]["dtype"] = "float16"; }) == "Malformed");
  CHECK(with([](json& j) { j["nodes"][0]["dtype"] = 3; }) == "Malformed");
  CHECK(with([](json& j) { j["nodes"][1]["id"] = 7; }) == "Malformed");
  CHECK(with([](json& j) { j["nodes"][0].erase("shape"); }) == "Malformed");
  CHECK(with([](json& j) { j["nodes"][0] = 5; }) == "Malformed");
  CHECK(with([](json& j) { j["nodes"] = 5; }) == "Malformed");
  CHECK(with([](json& j) { j["nodes"] = json::object(); }) == "Malformed");
  CHECK(with([](json& j) { j["tensors"] = "0"; }) == "Malformed");
  CHECK(with([](json& j) { j.erase("tensors"); }) == "Malformed");
  // Unknown extra members are ignored.
  CHECK(with([](json& j) { j["nodes"][0]["comment"] = "input"; }) == "ok");
}

TEST_CASE("layout-free inputs must be earlier placeholders, each once, in a version 2 archive", "[serialize]") {
  auto with = [](auto edit) {
    json j = tiny_json();
    j["version"] = 2;
    j["nodes"][5]["layout_free"] = json::array({0});
    edit(j);
    return json_outcome(j.dump());
  };
  CHECK(with([](json&) {}) == "ok");
  CHECK(with([](json& j) { j["nodes"][5]["layout_free"] = json::array(); }) == "ok");
  CHECK(with([](json& j) { j["nodes"][5].erase("layout_free"); }) == "Malformed");  // version 2 has the member
  CHECK(with([](json& j) { j["nodes"][5]["layout_free"] = json::array({2}); }) == "Malformed");  // an expression
  CHECK(with([](json& j) { j["nodes"][5]["layout_free"] = json::array({0, 0}); }) == "Malformed");
  CHECK(with([](json& j) { j["nodes"][5]["layout_free"] = json::array({5}); }) == "Cycle");
  CHECK(with([](json& j) { j["nodes"][5]["layout_free"] = json::array({9}); }) == "DanglingId");
  CHECK(with([](json& j) { j["nodes"][5]["layout_free"] = json::array({0, 0, 0, 0, 0, 0, 0, 0, 0}); }) == "TooLarge");
  CHECK(with([](json& j) { j["nodes"][5]["layout_free"] = 0; }) == "Malformed");
  // Version 1 has no such member: one there is ignored, like any unknown member.
  CHECK(with([](json& j) { j["version"] = 1; j["nodes"][5]["layout_free"] = json::array({2}); }) == "ok");
}

TEST_CASE("JSON arrays beyond the limits are rejected by their size", "[serialize]") {
  json j = tiny_json();
  j["nodes"][0]["shape"] = json::array({1, 1, 1, 1, 1, 1, 1, 1, 1});
  CHECK(json_outcome(j.dump()) == "TooLarge");
  j = tiny_json();
  j["nodes"][4]["operands"] = json::array({2, 3, 2, 3, 2, 3, 2, 3, 2});
  CHECK(json_outcome(j.dump()) == "WrongArity");
  Limits l;
  l.max_input_bytes = 10;
  CHECK(json_outcome(j.dump(), l) == "TooLarge");
}

TEST_CASE("character flips never crash the JSON loader", "[serialize]") {
  std::string text = json::parse(dag_to_json(softmax_dag())).dump();
  size_t rejected = 0;
  for (size_t pos = 0; pos < text.size(); ++pos) {
    for (char c : {'0', '9', '-', '"', '[', '{', '}', ',', 'x', '\x80'}) {
      std::string t = text;
      if (t[pos] == c) continue;
      t[pos] = c;
      if (json_outcome(t) != "ok") ++rejected;
    }
  }
  CHECK(rejected > 0);
}
