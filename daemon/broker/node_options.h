// measurerd's --broker options, added to its command line in one place.
#pragma once

#include <CLI/CLI.hpp>

#include "daemon/broker/node_config.h"

namespace mrd::daemon {

void add_node_options(CLI::App& app, NodeConfig& config);
/// Parses the URL, reads the password file and fills the defaults; throws UserError.
void finish_node_config(NodeConfig& config);

}  // namespace mrd::daemon
