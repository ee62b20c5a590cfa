// clang-format off
// cereal's JSON header must come before any RapidJSON header: it makes RapidJSON's assertions
// throw (cereal::RapidJSONException) instead of aborting, and the loader relies on that to
// reject JSON values of the wrong type.
#include <cereal/archives/json.hpp>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>
// clang-format on

#include <algorithm>
#include <cstdint>
#include <istream>
#include <sstream>

#include "common/serialize/archive_io.h"
#include "common/serialize/decode_error.h"
#include "common/serialize/serialize.h"
#include "common/serialize/view_stream.h"
#include "common/util/error.h"

namespace mrd::serialize {

namespace {

using cereal::make_nvp;

/// Deepest JSON nesting the format uses is 5 (root, nodes, node, axis, axis entry).
constexpr int kMaxJsonNesting = 8;

// ---------------------------------------------------------------------------------------
// Writing

template <typename F>
void write_array(cereal::JSONOutputArchive& ar, const char* name, F body) {
  ar.setNextName(name);
  ar.startNode();
  ar.makeArray();
  body();
  ar.finishNode();
}

std::string dtype_text(uint8_t code) {
  auto t = dtype_from_code(code);
  return t ? std::string(ir::dtype_name(*t)) : str_cat("unknown-", int(code));
}

void write_node(cereal::JSONOutputArchive& ar, uint64_t id, const NodeRecord& n, uint32_t version) {
  uint16_t f = node_fields(n.kind, version);
  ar.startNode();
  ar(make_nvp("id", id));
  ar(make_nvp("kind", std::string(node_kind_name(n.kind))));
  if (f & kFieldName) ar(make_nvp("name", n.name));
  if (f & kFieldTag) ar(make_nvp("tag", n.tag));
  if (f & kFieldDType) ar(make_nvp("dtype", dtype_text(n.dtype)));
  if (f & kFieldOp) {
    std::string_view name = op_name(n.kind, n.op);
    ar(make_nvp("op", name.empty() ? str_cat("unknown-", int(n.op)) : std::string(name)));
  }
  if (f & kFieldIntValue) ar(make_nvp("value", n.int_value));
  if (f & kFieldFloatValue) ar(make_nvp("value", n.float_value));
  if (f & kFieldShape) {
    write_array(ar, "shape", [&] {
      for (int64_t d : n.shape) ar(d);
    });
  }
  if (f & kFieldAxis) {
    write_array(ar, "axis", [&] {
      for (const IterVarRecord& iv : n.axis) {
        ar.startNode();
        ar(make_nvp("var", iv.var), make_nvp("min", iv.min), make_nvp("extent", iv.extent));
        ar.finishNode();
      }
    });
  }
  if (f & kFieldRef) ar(make_nvp(ref_field_name(n.kind), n.ref));
  if (f & kFieldOperands) {
    write_array(ar, "operands", [&] {
      for (uint64_t o : n.operands) ar(o);
    });
  }
  if (f & kFieldLayoutFree) {
    write_array(ar, "layout_free", [&] {
      for (uint64_t o : n.layout_free) ar(o);
    });
  }
  ar.finishNode();
}

// ---------------------------------------------------------------------------------------
// Reading

/// Bounds the nesting depth (cereal's own parse recurses) and remembers the root's type.
struct SyntaxCheck : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, SyntaxCheck> {
  int depth = 0;
  bool root_is_object = false;
  bool seen_root = false;
  bool Default() {
    seen_root = true;
    return true;
  }
  bool StartObject() {
    if (!seen_root) root_is_object = true;
    seen_root = true;
    return ++depth <= kMaxJsonNesting;
  }
  bool EndObject(rapidjson::SizeType) {
    --depth;
    return true;
  }
  bool StartArray() {
    seen_root = true;
    return ++depth <= kMaxJsonNesting;
  }
  bool EndArray(rapidjson::SizeType) {
    --depth;
    return true;
  }
  /// cereal's parse that follows converts numbers with rapidjson 1.1's full-precision strtod,
  /// which indexes its table of powers of ten out of bounds when a number's digits and exponent
  /// reach past about 10^+-348 (e.g. 128.7483...e-336 with 41 digits). Such a number is
  /// refused here; nothing the writer emits comes near (at most 17 significant digits, or 20
  /// for integers, and exponents within the double range).
  bool RawNumber(const char* text, rapidjson::SizeType length, bool) {
    seen_root = true;
    if (number_in_conversion_range(std::string_view(text, length))) return true;
    bad_number = true;
    return false;
  }
  bool bad_number = false;

 private:
  /// With I integer digits, F fraction digits and exponent E, the conversion needs powers of
  /// ten between 10^(E-F) and 10^(E+I); its table spans 10^-348 to 10^347.
  static bool number_in_conversion_range(std::string_view t) {
    constexpr int64_t kBound = 340;
    size_t i = 0;
    auto digit = [&] { return i < t.size() && t[i] >= '0' && t[i] <= '9'; };
    if (i < t.size() && t[i] == '-') ++i;
    int64_t int_digits = 0, frac_digits = 0, exp = 0;
    for (; digit(); ++i) ++int_digits;
    if (i < t.size() && t[i] == '.')
      for (++i; digit(); ++i) ++frac_digits;
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
      ++i;
      bool negative = i < t.size() && t[i] == '-';
      if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
      for (; digit(); ++i) exp = std::min<int64_t>(exp * 10 + (t[i] - '0'), 1000000);
      if (negative) exp = -exp;
    }
    if (i != t.size()) return true;  // NaN or Infinity: nothing to convert
    return exp - frac_digits >= -kBound && exp + int_digits <= kBound;
  }
};

void check_syntax(std::string_view text) {
  if (text.find('\0') != std::string_view::npos) {
    throw DecodeError(DecodeErrc::Malformed, "NUL byte in JSON text");
  }
  rapidjson::MemoryStream ms(text.data(), text.size());
  rapidjson::Reader reader;
  SyntaxCheck check;
  // Numbers arrive as text (see SyntaxCheck::RawNumber); this pass converts none.
  constexpr unsigned kFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseNumbersAsStringsFlag |
                              rapidjson::kParseNanAndInfFlag |
                              rapidjson::kParseValidateEncodingFlag;
  rapidjson::ParseResult ok = reader.Parse<kFlags>(ms, check);
  if (!ok) {
    if (ok.Code() == rapidjson::kParseErrorTermination && check.bad_number) {
      throw DecodeError(DecodeErrc::Malformed,
                        str_cat("JSON number at offset ", ok.Offset(), " has too many digits or an "
                                "exponent too far outside the range of a double"));
    }
    if (ok.Code() == rapidjson::kParseErrorTermination) {
      throw DecodeError(DecodeErrc::Malformed,
                        str_cat("JSON nested deeper than ", kMaxJsonNesting, " levels"));
    }
    throw DecodeError(DecodeErrc::Malformed, str_cat("JSON syntax error at offset ", ok.Offset(),
                                                     ": ", rapidjson::GetParseError_En(ok.Code())));
  }
  if (!check.root_is_object) throw DecodeError(DecodeErrc::BadMagic, "JSON root is not an object");
}

class JsonReader {
 public:
  JsonReader(std::istream& is, const Limits& limits) : ar_(is), limits_(limits) {}

  void header() {
    std::string format;
    try {
      ar_(make_nvp("format", format));
    } catch (const cereal::Exception& e) {
      throw DecodeError(DecodeErrc::BadMagic, str_cat("no format name: ", e.what()));
    }
    if (format != kJsonFormatName) throw DecodeError(DecodeErrc::BadMagic, "format " + format);
    uint64_t version = 0;
    try {
      ar_(make_nvp("version", version));
    } catch (const cereal::Exception& e) {
      throw DecodeError(DecodeErrc::BadVersion, str_cat("no format version: ", e.what()));
    }
    if (version < kMinFormatVersion || version > kMaxFormatVersion) {
      throw DecodeError(DecodeErrc::BadVersion, str_cat("format version ", version));
    }
    version_ = static_cast<uint32_t>(version);
  }

  DagArchive body() {
    DagArchive a;
    a.version = version_;
    uint64_t id = 0;
    array("nodes", limits_.max_nodes, DecodeErrc::TooManyNodes,
          [&] { a.nodes.push_back(node(id++)); });
    array("tensors", limits_.max_nodes, DecodeErrc::TooManyNodes,
          [&] { a.tensors.push_back(get<uint64_t>(nullptr)); });
    return a;
  }

 private:
  template <typename T>
  T get(const char* name) {
    T v{};
    if (name) {
      ar_(make_nvp(name, v));
    } else {
      ar_(v);
    }
    return v;
  }

  std::string name_field(const char* name) {
    std::string s = get<std::string>(name);
    if (s.size() > limits_.max_name_length) {
      throw DecodeError(DecodeErrc::TooLarge, str_cat(name, " of ", s.size(), " bytes"));
    }
    return s;
  }

  /// Reads the array member `name` element by element; its size is checked first.
  template <typename F>
  void array(const char* name, uint64_t limit, DecodeErrc over, F each) {
    ar_.setNextName(name);
    ar_.startNode();
    cereal::size_type n = 0;
    ar_.loadSize(n);
    if (n > limit) throw DecodeError(over, str_cat(name, ": ", n, " exceeds the limit ", limit));
    for (cereal::size_type i = 0; i < n; ++i) each();
    ar_.finishNode();
  }

  NodeRecord node(uint64_t id) {
    NodeRecord n;
    ar_.startNode();
    if (get<uint64_t>("id") != id) {
      throw DecodeError(DecodeErrc::Malformed, str_cat("node ", id, " has a different id"));
    }
    std::string kind = get<std::string>("kind");
    auto k = node_kind_from_name(kind);
    if (!k) throw DecodeError(DecodeErrc::UnknownNodeKind, str_cat("node ", id, ": kind ", kind));
    n.kind = *k;
    uint16_t f = node_fields(n.kind, version_);
    if (f & kFieldName) n.name = name_field("name");
    if (f & kFieldTag) n.tag = name_field("tag");
    if (f & kFieldDType) {
      std::string t = get<std::string>("dtype");
      auto dt = ir::parse_dtype(t);
      if (!dt) throw DecodeError(DecodeErrc::Malformed, str_cat("node ", id, ": dtype ", t));
      n.dtype = dtype_code(*dt);
    }
    if (f & kFieldOp) {
      std::string op = get<std::string>("op");
      auto code = op_code_from_name(n.kind, op);
      if (!code) throw DecodeError(DecodeErrc::Malformed, str_cat("node ", id, ": operator ", op));
      n.op = *code;
    }
    if (f & kFieldIntValue) n.int_value = get<int64_t>("value");
    if (f & kFieldFloatValue) n.float_value = get<double>("value");
    if (f & kFieldShape) {
      array("shape", limits_.max_rank, DecodeErrc::TooLarge,
            [&] { n.shape.push_back(get<int64_t>(nullptr)); });
    }
    if (f & kFieldAxis) {
      array("axis", limits_.max_rank, DecodeErrc::TooLarge, [&] {
        IterVarRecord iv;
        ar_.startNode();
        iv.var = get<uint64_t>("var");
        iv.min = get<int64_t>("min");
        iv.extent = get<int64_t>("extent");
        ar_.finishNode();
        n.axis.push_back(iv);
      });
    }
    if (f & kFieldRef) n.ref = get<uint64_t>(ref_field_name(n.kind));
    if (f & kFieldOperands) {
      array("operands", max_operands(limits_), DecodeErrc::WrongArity,
            [&] { n.operands.push_back(get<uint64_t>(nullptr)); });
    }
    if (f & kFieldLayoutFree) {
      array("layout_free", max_operands(limits_), DecodeErrc::TooLarge,
            [&] { n.layout_free.push_back(get<uint64_t>(nullptr)); });
    }
    ar_.finishNode();
    return n;
  }

  cereal::JSONInputArchive ar_;
  const Limits& limits_;
  uint32_t version_ = kMinFormatVersion;
};

}  // namespace

std::string write_json_archive(const DagArchive& archive) {
  std::ostringstream os;
  {
    cereal::JSONOutputArchive ar(
        os, cereal::JSONOutputArchive::Options(
                324, cereal::JSONOutputArchive::Options::IndentChar::space, 1));
    ar(make_nvp("format", std::string(kJsonFormatName)));
    ar(make_nvp("version", archive.version));
    uint64_t id = 0;
    write_array(ar, "nodes", [&] {
      for (const NodeRecord& n : archive.nodes) write_node(ar, id++, n, archive.version);
    });
    write_array(ar, "tensors", [&] {
      for (uint64_t t : archive.tensors) ar(t);
    });
  }
  os << '\n';
  return os.str();
}

DagArchive read_json_archive(std::string_view text, const Limits& limits) {
  if (text.size() > limits.max_input_bytes) {
    throw DecodeError(DecodeErrc::TooLarge, str_cat("archive of ", text.size(), " bytes"));
  }
  check_syntax(text);
  ViewStreamBuf buf(text);
  std::istream is(&buf);
  JsonReader reader(is, limits);
  reader.header();
  return reader.body();
}

std::string dag_to_json(const std::vector<ir::Tensor>& tensors) {
  return write_json_archive(flatten_dag(tensors));
}

std::vector<ir::Tensor> dag_from_json(std::string_view text, const Limits& limits) {
  try {
    return rebuild_dag(read_json_archive(text, limits), limits);
  } catch (const DecodeError&) {
    throw;
  } catch (const std::exception& e) {
    throw DecodeError(DecodeErrc::Malformed, e.what());
  }
}

}  // namespace mrd::serialize
