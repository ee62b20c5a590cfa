#include <cereal/archives/binary.hpp>
#include <istream>
#include <sstream>

#include "common/serialize/archive_io.h"
#include "common/serialize/decode_error.h"
#include "common/serialize/serialize.h"
#include "common/serialize/view_stream.h"
#include "common/util/error.h"

// cereal's binary archives use the host byte order; the format is little-endian.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the binary DAG format is little-endian");

namespace mrd::serialize {

namespace {

class BinaryWriter {
 public:
  void u8(uint8_t v) { ar_(v); }
  void u16(uint16_t v) { ar_(v); }
  void i64(int64_t v) { ar_(v); }
  void f64(double v) { ar_(v); }
  void varint(uint64_t v) {
    while (v >= 0x80) {
      u8(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    u8(static_cast<uint8_t>(v));
  }
  void str(const std::string& s) {
    varint(s.size());
    ar_(cereal::binary_data(s.data(), s.size()));
  }
  std::string take() { return os_.str(); }

 private:
  std::ostringstream os_;
  cereal::BinaryOutputArchive ar_{os_};
};

void write_node(BinaryWriter& w, const NodeRecord& n, uint32_t version) {
  uint16_t f = node_fields(n.kind, version);
  w.u8(static_cast<uint8_t>(n.kind));
  if (f & kFieldName) w.str(n.name);
  if (f & kFieldTag) w.str(n.tag);
  if (f & kFieldDType) w.u8(n.dtype);
  if (f & kFieldOp) w.u8(n.op);
  if (f & kFieldIntValue) w.i64(n.int_value);
  if (f & kFieldFloatValue) w.f64(n.float_value);
  if (f & kFieldShape) {
    w.varint(n.shape.size());
    for (int64_t d : n.shape) w.i64(d);
  }
  if (f & kFieldAxis) {
    w.varint(n.axis.size());
    for (const IterVarRecord& iv : n.axis) {
      w.varint(iv.var);
      w.i64(iv.min);
      w.i64(iv.extent);
    }
  }
  if (f & kFieldRef) w.varint(n.ref);
  if (f & kFieldOperands) {
    w.varint(n.operands.size());
    for (uint64_t id : n.operands) w.varint(id);
  }
  if (f & kFieldLayoutFree) {
    w.varint(n.layout_free.size());
    for (uint64_t id : n.layout_free) w.varint(id);
  }
}

class BinaryReader {
 public:
  BinaryReader(std::string_view bytes, const Limits& limits) : buf_(bytes), limits_(limits) {}

  size_t remaining() const { return buf_.remaining(); }

  void need(uint64_t n, const char* what) const {
    if (n > buf_.remaining()) {
      throw DecodeError(DecodeErrc::Truncated,
                        str_cat(what, " needs ", n, " bytes, ", buf_.remaining(), " left"));
    }
  }

  uint8_t u8(const char* what) { return fixed<uint8_t>(what); }
  uint16_t u16(const char* what) { return fixed<uint16_t>(what); }
  int64_t i64(const char* what) { return fixed<int64_t>(what); }
  double f64(const char* what) { return fixed<double>(what); }

  /// Unsigned LEB128, at most 10 bytes.
  uint64_t varint(const char* what) {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      uint8_t b = u8(what);
      if (shift == 63 && b > 1) {
        throw DecodeError(DecodeErrc::Malformed, str_cat(what, ": varint overflows 64 bits"));
      }
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
  }

  /// A count of items of at least `item_bytes` bytes each: at most `limit` (else `over`),
  /// and no more than the bytes left can hold (else Truncated).
  uint64_t count(const char* what, uint64_t limit, DecodeErrc over, uint64_t item_bytes) {
    uint64_t n = varint(what);
    if (n > limit) throw DecodeError(over, str_cat(what, ": ", n, " exceeds the limit ", limit));
    if (n > buf_.remaining() / item_bytes) {
      throw DecodeError(DecodeErrc::Truncated, str_cat(what, ": ", n, " items cannot fit in ",
                                                       buf_.remaining(), " bytes"));
    }
    return n;
  }

  std::string str(const char* what) {
    uint64_t n = count(what, limits_.max_name_length, DecodeErrc::TooLarge, 1);
    std::string s(n, '\0');
    ar_(cereal::binary_data(s.data(), n));
    return s;
  }

  NodeRecord node(uint32_t version) {
    NodeRecord n;
    uint8_t kind = u8("node kind");
    if (kind >= kNumNodeKinds) {
      throw DecodeError(DecodeErrc::UnknownNodeKind, str_cat("node kind ", int(kind)));
    }
    n.kind = static_cast<NodeKind>(kind);
    uint16_t f = node_fields(n.kind, version);
    if (f & kFieldName) n.name = str("name");
    if (f & kFieldTag) n.tag = str("tag");
    if (f & kFieldDType) n.dtype = u8("dtype");
    if (f & kFieldOp) n.op = u8("operator");
    if (f & kFieldIntValue) n.int_value = i64("value");
    if (f & kFieldFloatValue) n.float_value = f64("value");
    if (f & kFieldShape) {
      uint64_t rank = count("shape", limits_.max_rank, DecodeErrc::TooLarge, 8);
      for (uint64_t i = 0; i < rank; ++i) n.shape.push_back(i64("dimension"));
    }
    if (f & kFieldAxis) {
      uint64_t rank = count("axis", limits_.max_rank, DecodeErrc::TooLarge, 17);
      for (uint64_t i = 0; i < rank; ++i) {
        IterVarRecord iv;
        iv.var = varint("axis var");
        iv.min = i64("axis min");
        iv.extent = i64("axis extent");
        n.axis.push_back(iv);
      }
    }
    if (f & kFieldRef) n.ref = varint("reference");
    if (f & kFieldOperands) {
      uint64_t k = count("operands", max_operands(limits_), DecodeErrc::WrongArity, 1);
      for (uint64_t i = 0; i < k; ++i) n.operands.push_back(varint("operand"));
    }
    if (f & kFieldLayoutFree) {
      uint64_t k = count("layout-free placeholders", max_operands(limits_), DecodeErrc::TooLarge, 1);
      for (uint64_t i = 0; i < k; ++i) n.layout_free.push_back(varint("layout-free placeholder"));
    }
    return n;
  }

 private:
  template <typename T>
  T fixed(const char* what) {
    need(sizeof(T), what);
    T v;
    ar_(v);
    return v;
  }

  ViewStreamBuf buf_;
  std::istream is_{&buf_};
  cereal::BinaryInputArchive ar_{is_};
  const Limits& limits_;
};

void check_magic(std::string_view bytes) {
  std::string_view head = bytes.substr(0, kBinaryMagic.size());
  if (head != kBinaryMagic.substr(0, head.size())) {
    throw DecodeError(DecodeErrc::BadMagic, "not a binary DAG archive");
  }
  if (head.size() < kBinaryMagic.size()) {
    throw DecodeError(DecodeErrc::Truncated, "data ends inside the magic");
  }
}

}  // namespace

std::string write_binary_archive(const DagArchive& archive) {
  BinaryWriter w;
  for (char c : kBinaryMagic) w.u8(static_cast<uint8_t>(c));
  w.u16(static_cast<uint16_t>(archive.version));
  w.varint(archive.nodes.size());
  for (const NodeRecord& n : archive.nodes) write_node(w, n, archive.version);
  w.varint(archive.tensors.size());
  for (uint64_t id : archive.tensors) w.varint(id);
  return w.take();
}

DagArchive read_binary_archive(std::string_view bytes, const Limits& limits) {
  if (bytes.size() > limits.max_input_bytes) {
    throw DecodeError(DecodeErrc::TooLarge, str_cat("archive of ", bytes.size(), " bytes"));
  }
  check_magic(bytes);
  BinaryReader r(bytes.substr(kBinaryMagic.size()), limits);
  uint16_t version = r.u16("version");
  if (version < kMinFormatVersion || version > kMaxFormatVersion) {
    throw DecodeError(DecodeErrc::BadVersion, str_cat("format version ", version));
  }
  DagArchive a;
  a.version = version;
  // Every node holds at least its kind and dtype bytes.
  uint64_t n = r.count("node count", limits.max_nodes, DecodeErrc::TooManyNodes, 2);
  for (uint64_t i = 0; i < n; ++i) a.nodes.push_back(r.node(version));
  uint64_t t = r.count("tensor count", limits.max_nodes, DecodeErrc::TooManyNodes, 1);
  for (uint64_t i = 0; i < t; ++i) a.tensors.push_back(r.varint("tensor"));
  if (r.remaining() != 0) {
    throw DecodeError(DecodeErrc::Malformed, str_cat(r.remaining(), " bytes after the archive"));
  }
  return a;
}

std::string dag_to_binary(const std::vector<ir::Tensor>& tensors) {
  return write_binary_archive(flatten_dag(tensors));
}

std::vector<ir::Tensor> dag_from_binary(std::string_view bytes, const Limits& limits) {
  try {
    return rebuild_dag(read_binary_archive(bytes, limits), limits);
  } catch (const DecodeError&) {
    throw;
  } catch (const cereal::Exception& e) {
    throw DecodeError(DecodeErrc::Truncated, e.what());
  } catch (const std::exception& e) {
    throw DecodeError(DecodeErrc::Malformed, e.what());
  }
}

}  // namespace mrd::serialize
