// Starts the broker node of a measurerd when --broker was given, wired to its server: the
// node takes no job once the server stops.
#pragma once

#include <boost/asio.hpp>
#include <memory>

#include "daemon/broker/broker_node.h"
#include "daemon/broker/node_config.h"
#include "daemon/server/server.h"

namespace mrd::daemon {

/// nullptr when `config.url` is empty. Call after server.start(); stop the node after the
/// event loop returns.
std::unique_ptr<BrokerNode> start_node(boost::asio::io_context& io, Server& server,
                                       const NodeConfig& config);

}  // namespace mrd::daemon
