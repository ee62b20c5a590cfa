#include "common/registry/workload_codec.h"

#include <cstring>

#include "common/dag/workload_key.h"
#include "common/util/error.h"

namespace mrd::registry {

using serialize::DecodeErrc;
using serialize::DecodeError;

namespace {

constexpr char kMagic[4] = {'M', 'R', 'D', 'W'};
constexpr uint8_t kVersion = 1;
constexpr uint8_t kKindFunction = 1;
constexpr uint8_t kKindTensors = 2;
constexpr uint8_t kArgInt = 1;
constexpr uint8_t kArgFloat = 2;
constexpr uint8_t kArgString = 3;
/// Longest workload key accepted (TVM's are a hash and a few shapes).
constexpr uint32_t kMaxKeyLength = 1 << 16;

class Writer {
 public:
  void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(uint32_t v) { le(v, 4); }
  void u64(uint64_t v) { le(v, 8); }
  void bytes(std::string_view s) { out_.append(s.data(), s.size()); }
  void str(std::string_view s) {
    MRD_USER_CHECK(s.size() <= UINT32_MAX, "string too long to serialize");
    u32(static_cast<uint32_t>(s.size()));
    bytes(s);
  }
  std::string take() { return std::move(out_); }

 private:
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  uint8_t u8() { return static_cast<uint8_t>(take(1)[0]); }
  uint32_t u32() { return static_cast<uint32_t>(le(4)); }
  uint64_t u64() { return le(8); }
  std::string_view take(uint64_t n) {
    if (n > in_.size() - pos_) {
      throw DecodeError(DecodeErrc::Truncated, "workload: the data ends inside the workload");
    }
    std::string_view s = in_.substr(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return s;
  }
  /// A length-prefixed string, its length checked against `max` before anything is copied.
  std::string str(uint32_t max, const char* what) {
    uint32_t n = u32();
    if (n > max) {
      throw DecodeError(DecodeErrc::TooLarge,
                        str_cat("workload: ", what, " of ", n, " bytes exceeds the limit ", max));
    }
    return std::string(take(n));
  }
  bool at_end() const { return pos_ == in_.size(); }

 private:
  uint64_t le(int n) {
    std::string_view b = take(static_cast<uint64_t>(n));
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(b[i])) << (8 * i);
    return v;
  }
  std::string_view in_;
  size_t pos_ = 0;
};

[[noreturn]] void malformed(const std::string& what) {
  throw DecodeError(DecodeErrc::Malformed, "workload: " + what);
}

void check_name(const std::string& name, const serialize::Limits& limits) {
  if (name.empty()) malformed("a function workload needs a name");
  if (name.size() > limits.max_name_length) {
    throw DecodeError(DecodeErrc::TooLarge, "workload: function name too long");
  }
}

}  // namespace

std::string workload_to_binary(const Workload& w) {
  Writer out;
  out.bytes(std::string_view(kMagic, 4));
  out.u8(kVersion);
  if (const auto* f = std::get_if<FunctionWorkload>(&w)) {
    out.u8(kKindFunction);
    out.str(f->name);
    MRD_USER_CHECK(f->args.size() <= kMaxWorkloadArgs, "workload ", f->name, " has more than ",
                   kMaxWorkloadArgs, " arguments");
    out.u32(static_cast<uint32_t>(f->args.size()));
    for (const WorkloadArg& a : f->args) {
      if (const auto* i = std::get_if<int64_t>(&a)) {
        out.u8(kArgInt);
        out.u64(static_cast<uint64_t>(*i));
      } else if (const auto* d = std::get_if<double>(&a)) {
        uint64_t bits;
        std::memcpy(&bits, d, sizeof bits);
        out.u8(kArgFloat);
        out.u64(bits);
      } else {
        out.u8(kArgString);
        out.str(std::get<std::string>(a));
      }
    }
  } else {
    const auto& t = std::get<TensorWorkload>(w);
    out.u8(kKindTensors);
    out.str(t.key.empty() ? dag::tensor_workload_key(t.tensors) : t.key);
    std::string archive = serialize::dag_to_binary(t.tensors);
    out.u64(archive.size());
    out.bytes(archive);
  }
  return out.take();
}

Workload workload_from_binary(std::string_view bytes, const serialize::Limits& limits) {
  if (bytes.size() > limits.max_input_bytes) {
    throw DecodeError(DecodeErrc::TooLarge, "workload: input larger than the limit");
  }
  Reader in(bytes);
  if (in.take(4) != std::string_view(kMagic, 4)) {
    throw DecodeError(DecodeErrc::BadMagic, "workload: not a workload archive");
  }
  uint8_t version = in.u8();
  if (version != kVersion) {
    throw DecodeError(DecodeErrc::BadVersion,
                      str_cat("workload: format version ", int(version), " is not supported"));
  }
  uint8_t kind = in.u8();
  Workload result;
  if (kind == kKindFunction) {
    FunctionWorkload f;
    f.name = in.str(limits.max_name_length, "function name");
    check_name(f.name, limits);
    uint32_t count = in.u32();
    if (count > kMaxWorkloadArgs) {
      throw DecodeError(DecodeErrc::TooLarge, str_cat("workload: ", count, " arguments"));
    }
    for (uint32_t i = 0; i < count; ++i) {
      uint8_t tag = in.u8();
      if (tag == kArgInt) {
        f.args.emplace_back(static_cast<int64_t>(in.u64()));
      } else if (tag == kArgFloat) {
        uint64_t bits = in.u64();
        double d;
        std::memcpy(&d, &bits, sizeof d);
        f.args.emplace_back(d);
      } else if (tag == kArgString) {
        f.args.emplace_back(in.str(limits.max_name_length, "string argument"));
      } else {
        malformed(str_cat("unknown argument tag ", int(tag)));
      }
    }
    result = std::move(f);
  } else if (kind == kKindTensors) {
    TensorWorkload t;
    t.key = in.str(kMaxKeyLength, "workload key");
    uint64_t n = in.u64();
    std::string_view archive = in.take(n);
    t.tensors = serialize::dag_from_binary(archive, limits);
    if (t.key.empty()) t.key = dag::tensor_workload_key(t.tensors);
    result = std::move(t);
  } else {
    malformed(str_cat("unknown workload kind ", int(kind)));
  }
  if (!in.at_end()) malformed("trailing bytes after the workload");
  return result;
}

nlohmann::json workload_to_json(const Workload& w) {
  if (const auto* f = std::get_if<FunctionWorkload>(&w)) {
    nlohmann::json args = nlohmann::json::array();
    for (const WorkloadArg& a : f->args) {
      std::visit([&](const auto& v) { args.push_back(v); }, a);
    }
    return {{"function", f->name}, {"args", std::move(args)}};
  }
  const auto& t = std::get<TensorWorkload>(w);
  return {{"dag", nlohmann::json::parse(serialize::dag_to_json(t.tensors))},
          {"key", t.key.empty() ? dag::tensor_workload_key(t.tensors) : t.key}};
}

Workload workload_from_json(const nlohmann::json& j, const serialize::Limits& limits) {
  if (!j.is_object()) malformed("a workload must be a JSON object");
  if (j.contains("function")) {
    const auto& name = j.at("function");
    if (!name.is_string()) malformed("\"function\" must be a string");
    FunctionWorkload f;
    f.name = name.get<std::string>();
    check_name(f.name, limits);
    if (j.contains("args")) {
      const auto& args = j.at("args");
      if (!args.is_array()) malformed("\"args\" must be an array");
      if (args.size() > kMaxWorkloadArgs) {
        throw DecodeError(DecodeErrc::TooLarge, str_cat("workload: ", args.size(), " arguments"));
      }
      for (const auto& a : args) {
        if (a.is_number_unsigned()) {
          if (a.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
            malformed("integer argument out of range");
          }
          f.args.emplace_back(static_cast<int64_t>(a.get<uint64_t>()));
        } else if (a.is_number_integer()) {
          f.args.emplace_back(a.get<int64_t>());
        } else if (a.is_number_float()) {
          f.args.emplace_back(a.get<double>());
        } else if (a.is_string()) {
          if (a.get_ref<const std::string&>().size() > limits.max_name_length) {
            throw DecodeError(DecodeErrc::TooLarge, "workload: string argument too long");
          }
          f.args.emplace_back(a.get<std::string>());
        } else {
          malformed("arguments must be numbers or strings");
        }
      }
    }
    return f;
  }
  if (j.contains("dag")) {
    TensorWorkload t;
    t.tensors = serialize::dag_from_json(j.at("dag").dump(), limits);
    if (j.contains("key")) {
      if (!j.at("key").is_string()) malformed("\"key\" must be a string");
      t.key = j.at("key").get<std::string>();
      if (t.key.size() > kMaxKeyLength) {
        throw DecodeError(DecodeErrc::TooLarge, "workload: key too long");
      }
    }
    if (t.key.empty()) t.key = dag::tensor_workload_key(t.tensors);
    return t;
  }
  malformed("a workload needs \"function\" or \"dag\"");
}

}  // namespace mrd::registry
