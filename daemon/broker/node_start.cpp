#include "daemon/broker/node_start.h"

#include "daemon/server/host_info.h"

namespace mrd::daemon {

std::unique_ptr<BrokerNode> start_node(boost::asio::io_context& io, Server& server,
                                       const NodeConfig& config) {
  if (config.url.empty()) return nullptr;
  NodeContext ctx;
  ctx.dispatcher = &server.dispatcher();
  ctx.workers = server.config().pool.size;
  ctx.cores = core_count();
  ctx.max_body = server.config().max_body;
  ctx.max_states = server.config().max_states;
  ctx.caps = server.config().caps;
  auto node = std::make_unique<BrokerNode>(io, config, ctx);
  BrokerNode* raw = node.get();
  server.set_on_stop([raw] { raw->stop_taking(); });
  node->start();
  return node;
}

}  // namespace mrd::daemon
