#include "common/schedule/transform_steps.h"

#include <limits>

#include "common/ir/scalar_semantics.h"
#include "common/util/error.h"

namespace mrd::schedule {

namespace {

using nlohmann::json;

/// Reads the fields of one step record, reporting errors with the step's index and kind.
class FieldReader {
 public:
  FieldReader(const json& rec, size_t index, std::string kind)
      : rec_(rec), index_(index), kind_(std::move(kind)) {}

  [[noreturn]] void fail(const std::string& why) const {
    throw UserError(str_cat("step ", index_, " (", kind_, "): ", why));
  }
  void expect_size(size_t n) const {
    if (rec_.size() != n) {
      fail(str_cat("expected ", n - 1, " fields, got ", rec_.size() - 1));
    }
  }
  int64_t int_at(size_t i, const char* what) const {
    const json& v = rec_[i];
    if (!v.is_number_integer()) fail(str_cat(what, " must be an integer"));
    return v.get<int64_t>();
  }
  int small_int(size_t i, const char* what) const {
    int64_t v = int_at(i, what);
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
      fail(str_cat(what, " out of range"));
    }
    return static_cast<int>(v);
  }
  int id(size_t i, const char* what) const {
    int v = small_int(i, what);
    if (v < 0) fail(str_cat(what, " must not be negative"));
    return v;
  }
  bool flag(size_t i, const char* what) const {
    const json& v = rec_[i];
    if (v.is_boolean()) fail(str_cat(what, " must be 0 or 1"));
    int64_t x = int_at(i, what);
    if (x != 0 && x != 1) fail(str_cat(what, " must be 0 or 1"));
    return x == 1;
  }
  std::string str(size_t i, const char* what) const {
    if (!rec_[i].is_string()) fail(str_cat(what, " must be a string"));
    return rec_[i].get<std::string>();
  }
  std::vector<int64_t> int_list(size_t i, const char* what) const {
    const json& v = rec_[i];
    if (!v.is_array()) fail(str_cat(what, " must be a list of integers"));
    std::vector<int64_t> out;
    for (const json& x : v) {
      if (!x.is_number_integer()) fail(str_cat(what, " must be a list of integers"));
      out.push_back(x.get<int64_t>());
    }
    return out;
  }
  std::vector<int> id_list(size_t i, const char* what) const {
    std::vector<int> out;
    for (int64_t x : int_list(i, what)) {
      if (x < 0 || x > std::numeric_limits<int>::max()) fail(str_cat(what, " holds a bad id"));
      out.push_back(static_cast<int>(x));
    }
    return out;
  }

 private:
  const json& rec_;
  size_t index_;
  std::string kind_;
};

Step parse_step(const json& rec, size_t index) {
  if (!rec.is_array() || rec.empty() || !rec[0].is_string()) {
    throw UserError(str_cat("step ", index, ": a step must be a list starting with its kind"));
  }
  std::string kind = rec[0].get<std::string>();
  FieldReader r(rec, index, kind);
  if (kind == "AN") {
    r.expect_size(4);
    int ann = r.small_int(3, "annotation");
    if (ann < 0 || ann > 11) r.fail("unknown annotation code");
    return AnnotationStep{r.id(1, "stage_id"), r.id(2, "iter_id"), ann};
  }
  if (kind == "FU") {
    r.expect_size(3);
    return FuseStep{r.id(1, "stage_id"), r.id_list(2, "fused_ids")};
  }
  if (kind == "PR") {
    r.expect_size(4);
    return PragmaStep{r.id(1, "stage_id"), r.id(2, "iter_id"), r.str(3, "pragma_type")};
  }
  if (kind == "RE") {
    r.expect_size(3);
    return ReorderStep{r.id(1, "stage_id"), r.id_list(2, "after_ids")};
  }
  if (kind == "SP") {
    r.expect_size(6);
    int64_t extent = r.int_at(3, "extent");
    if (extent < 0) r.fail("extent must not be negative");
    std::vector<int64_t> lengths = r.int_list(4, "lengths");
    for (int64_t l : lengths) {
      if (l <= 0) r.fail("split lengths must be positive");
    }
    return SplitStep{r.id(1, "stage_id"), r.id(2, "iter_id"), extent, std::move(lengths),
                     r.flag(5, "inner_to_outer")};
  }
  if (kind == "FSP") {
    r.expect_size(5);
    return FollowSplitStep{r.id(1, "stage_id"), r.id(2, "iter_id"), r.id(3, "src_step_id"),
                           r.id(4, "n_split")};
  }
  if (kind == "FFSP") {
    r.expect_size(6);
    return FollowFusedSplitStep{r.id(1, "stage_id"), r.id(2, "iter_id"),
                                r.id_list(3, "src_step_ids"), r.id(4, "level"),
                                r.flag(5, "factor_or_nparts")};
  }
  if (kind == "SA") {
    r.expect_size(5);
    return StorageAlignStep{r.id(1, "stage_id"), r.id(2, "iter_id"), r.small_int(3, "factor"),
                            r.small_int(4, "offset")};
  }
  if (kind == "CA") {
    r.expect_size(4);
    return ComputeAtStep{r.id(1, "stage_id"), r.id(2, "target_stage_id"),
                         r.id(3, "target_iter_id")};
  }
  if (kind == "CI") {
    r.expect_size(2);
    return ComputeInlineStep{r.id(1, "stage_id")};
  }
  if (kind == "CR") {
    r.expect_size(2);
    return ComputeRootStep{r.id(1, "stage_id")};
  }
  if (kind == "CHR") {
    r.expect_size(4);
    return CacheReadStep{r.id(1, "stage_id"), r.str(2, "scope_name"),
                         r.id_list(3, "reader_stage_ids")};
  }
  if (kind == "CHW") {
    r.expect_size(3);
    return CacheWriteStep{r.id(1, "stage_id"), r.str(2, "scope_name")};
  }
  if (kind == "RF") {
    r.expect_size(4);
    return RfactorStep{r.id(1, "stage_id"), r.id(2, "iter_id"), r.id(3, "factor_iter_id")};
  }
  r.fail("unknown step kind");
}

struct ToJson {
  json operator()(const AnnotationStep& s) const {
    return json::array({"AN", s.stage_id, s.iter_id, s.annotation});
  }
  json operator()(const FuseStep& s) const { return json::array({"FU", s.stage_id, s.fused_ids}); }
  json operator()(const PragmaStep& s) const {
    return json::array({"PR", s.stage_id, s.iter_id, s.pragma_type});
  }
  json operator()(const ReorderStep& s) const {
    return json::array({"RE", s.stage_id, s.after_ids});
  }
  json operator()(const SplitStep& s) const {
    return json::array(
        {"SP", s.stage_id, s.iter_id, s.extent, s.lengths, s.inner_to_outer ? 1 : 0});
  }
  json operator()(const FollowSplitStep& s) const {
    return json::array({"FSP", s.stage_id, s.iter_id, s.src_step_id, s.n_split});
  }
  json operator()(const FollowFusedSplitStep& s) const {
    return json::array(
        {"FFSP", s.stage_id, s.iter_id, s.src_step_ids, s.level, s.factor_or_nparts ? 1 : 0});
  }
  json operator()(const StorageAlignStep& s) const {
    return json::array({"SA", s.stage_id, s.iter_id, s.factor, s.offset});
  }
  json operator()(const ComputeAtStep& s) const {
    return json::array({"CA", s.stage_id, s.target_stage_id, s.target_iter_id});
  }
  json operator()(const ComputeInlineStep& s) const { return json::array({"CI", s.stage_id}); }
  json operator()(const ComputeRootStep& s) const { return json::array({"CR", s.stage_id}); }
  json operator()(const CacheReadStep& s) const {
    return json::array({"CHR", s.stage_id, s.scope_name, s.reader_stage_ids});
  }
  json operator()(const CacheWriteStep& s) const {
    return json::array({"CHW", s.stage_id, s.scope_name});
  }
  json operator()(const RfactorStep& s) const {
    return json::array({"RF", s.stage_id, s.iter_id, s.factor_iter_id});
  }
};

}  // namespace

std::string step_name(const Step& s) {
  static const char* const kNames[] = {"AN", "FU", "PR", "RE", "SP",  "FSP", "FFSP",
                                       "SA", "CA", "CI", "CR", "CHR", "CHW", "RF"};
  return kNames[s.index()];
}

int step_stage_id(const Step& s) {
  return std::visit([](const auto& x) { return x.stage_id; }, s);
}

std::vector<Step> steps_from_json(const nlohmann::json& steps) {
  MRD_USER_CHECK(steps.is_array(), "transform steps must be a JSON list");
  std::vector<Step> out;
  out.reserve(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) out.push_back(parse_step(steps[i], i));
  return out;
}

nlohmann::json steps_to_json(const std::vector<Step>& steps) {
  json out = json::array();
  for (const Step& s : steps) out.push_back(std::visit(ToJson{}, s));
  return out;
}

namespace {
const SplitStep& source_split(int src, const std::vector<Step>& steps, const char* who) {
  MRD_USER_CHECK(src >= 0 && static_cast<size_t>(src) < steps.size(), who, " refers to step ", src,
                 ", which does not exist");
  const SplitStep* sp = std::get_if<SplitStep>(&steps[src]);
  MRD_USER_CHECK(sp != nullptr, who, " refers to step ", src, ", which is not a split (SP)");
  return *sp;
}
}  // namespace

std::vector<int64_t> follow_split_lengths(const FollowSplitStep& s,
                                          const std::vector<Step>& steps) {
  const SplitStep& sp = source_split(s.src_step_id, steps, "FSP");
  MRD_USER_CHECK(s.n_split >= 1 && static_cast<size_t>(s.n_split) <= sp.lengths.size() + 1,
                 "n_split ", s.n_split, " does not fit the ", sp.lengths.size(),
                 " lengths of step ", s.src_step_id);
  std::vector<int64_t> lengths(sp.lengths.begin(), sp.lengths.begin() + (s.n_split - 1));
  int64_t last = 1;
  for (size_t j = s.n_split - 1; j < sp.lengths.size(); ++j) {
    auto p = ir::checked_mul(last, sp.lengths[j]);
    MRD_USER_CHECK(p, "the product of the lengths of step ", s.src_step_id, " overflows");
    last = *p;
  }
  lengths.push_back(last);
  return lengths;
}

int64_t follow_fused_split_length(const FollowFusedSplitStep& s, const std::vector<Step>& steps) {
  MRD_USER_CHECK(!s.src_step_ids.empty(), "FFSP needs at least one source step");
  int64_t len = 1;
  for (int src : s.src_step_ids) {
    const SplitStep& sp = source_split(src, steps, "FFSP");
    MRD_USER_CHECK(s.level >= 0 && static_cast<size_t>(s.level) < sp.lengths.size(), "level ",
                   s.level, " out of range for step ", src);
    auto p = ir::checked_mul(len, sp.lengths[s.level]);
    MRD_USER_CHECK(p, "the product of the lengths at level ", s.level, " overflows");
    len = *p;
  }
  return len;
}

}  // namespace mrd::schedule
