// `measurer best --export DIR`: a record's kernel as files a C or C++ program can use. For
// each exported record, DIR/NAME/ (NAME from the workload key, e.g. matmul_64_64_64_float32):
//   kernel.c or kernel.ll  the generated source (C backend, or LLVM IR for llvm targets)
//   kernel.so              the shared object, exporting `int32_t mrd_entry(void* const* args)`
//   kernel.h               the entry, and an inline wrapper NAME(...) whose parameters carry
//                          the argument shapes, inputs then outputs
//   steps.json             the transform steps; record.log the record itself (one log line)
#pragma once

#include <string>

#include "common/record/record.h"

namespace mrd::cli {

struct ExportedKernel {
  std::string name;  ///< the subdirectory and the wrapper's name
  std::string dir;
};

/// Builds the record's state again (through the compile cache) and writes its files under
/// `dir`. `comment` heads kernel.h (what it is, its cost). Throws UserError when the record
/// cannot be rebuilt (a tensor workload, a build error) or a file cannot be written.
ExportedKernel export_kernel(const record::Record& r, const std::string& dir,
                             const std::string& comment);

/// The C identifier made of a workload key: `["matmul", 64, 64, 64, "float32"]` ->
/// `matmul_64_64_64_float32`.
std::string kernel_name(const std::string& workload_key);

}  // namespace mrd::cli
