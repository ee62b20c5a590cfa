// Records of the public API, through the library's TVM log reader and writer.
#include "measurerd/record.h"

#include <fstream>

#include "client/api/convert.h"
#include "common/record/record.h"

namespace measurerd {
namespace {

Record from_internal_record(const mrd::record::Record& r) {
  return Record{r.workload_key,          r.target, from_internal(r.hardware),
                r.layout_rewrite_option, r.steps,  from_internal(r.result)};
}

mrd::record::Record to_internal_record(const Record& r) {
  mrd::record::Record m;
  m.workload_key = r.workload_key;
  m.target = r.target;
  m.hardware = to_internal(r.hardware);
  m.layout_rewrite_option = r.layout_rewrite_option;
  m.steps = r.steps.empty() ? "[]" : r.steps;
  m.result = to_internal(r.result);
  return m;
}

}  // namespace

Record make_record(const Task& task, const std::string& steps, const MeasureResult& result) {
  return from_internal_record(
      mrd::record::make_record(task.impl().task, steps, to_internal(result)));
}

std::string to_record_line(const Record& r) {
  return as_public([&] { return mrd::record::to_json_line(to_internal_record(r)); });
}

Record parse_record_line(const std::string& line) {
  return from_internal_record(as_public([&] { return mrd::record::from_json_line(line); }));
}

std::vector<Record> read_record_log(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InvalidInput("cannot open record log " + path);
  std::vector<Record> out;
  try {
    for (const auto& r : as_public([&] { return mrd::record::read_records(in); }))
      out.push_back(from_internal_record(r));
  } catch (const InvalidInput& e) {
    throw InvalidInput(path + ": " + e.what());
  }
  return out;
}

void append_record(const std::string& path, const Record& r) {
  as_public([&] {
    mrd::record::append_record(path, to_internal_record(r));
    return 0;
  });
}

}  // namespace measurerd
