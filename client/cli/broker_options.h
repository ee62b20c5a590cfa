// measurer's --broker options, on the top level and on each subcommand that measures.
#pragma once

#include <CLI/CLI.hpp>

#include "client/cli/commands.h"

namespace mrd::cli {

void add_broker_options(CLI::App& app, Common& common);

}  // namespace mrd::cli
