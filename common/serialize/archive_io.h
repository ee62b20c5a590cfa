// The two forms of a node table: compact binary and readable JSON. Each reader checks the
// limits on every declared count and length before allocating and throws DecodeError; it
// does not check references or types (rebuild_dag does). Writers take a table as is, so
// tests can also write hostile tables.
#pragma once

#include <string>
#include <string_view>

#include "common/serialize/dag_archive.h"

namespace mrd::serialize {

/// "MRDDAG": the first bytes of a binary archive, followed by the version as u16 LE.
constexpr std::string_view kBinaryMagic = "MRDDAG";
/// Value of the "format" member of a JSON archive.
constexpr std::string_view kJsonFormatName = "measurerd-dag";

std::string write_binary_archive(const DagArchive& archive);
DagArchive read_binary_archive(std::string_view bytes, const Limits& limits);

std::string write_json_archive(const DagArchive& archive);
DagArchive read_json_archive(std::string_view text, const Limits& limits);

}  // namespace mrd::serialize
