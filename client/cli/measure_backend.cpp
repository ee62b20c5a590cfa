#include "client/cli/measure_backend.h"

#include <set>

#include "client/lib/broker_client.h"
#include "client/lib/client.h"
#include "common/broker/redis_url.h"
#include "common/util/error.h"

namespace mrd::cli {
namespace {

class SocketBackend : public MeasureBackend {
 public:
  SocketBackend(const std::string& socket, const std::string& name) : c_(socket, name) {}
  uint32_t cores() const override { return c_.welcome().cores; }
  std::string policy_name() const override {
    return std::string(measure::timing_policy_name(c_.welcome().policy));
  }
  proto::RequestDone measure(const std::string& task_bytes, const std::vector<std::string>& states,
                             const measure::MeasureOptions& options,
                             const OnResult& on_result) override {
    return c_.measure(task_bytes, states, options,
                      [&](uint32_t i, const measure::MeasureResult& r) { on_result(i, r, ""); });
  }
  bool cancel() noexcept override { return c_.cancel(); }
  bool cancelled() const override { return c_.cancelled(); }

 private:
  client::Client c_;
};

class BrokerBackend : public MeasureBackend {
 public:
  explicit BrokerBackend(client::BrokerOptions o) : c_(std::move(o)) {
    std::set<std::string> policies;
    for (const auto& n : c_.nodes()) {
      if (!n.alive) continue;
      if (cores_ == 0) cores_ = n.cores;
      policies.insert(n.policy);
    }
    for (const auto& p : policies) policy_ += (policy_.empty() ? "" : "/") + p;
    if (policy_.empty())
      throw client::ConnectionError("no live node serves device key " + c_.device_key() +
                                    " (`measurer --broker URL status` lists the keys and nodes)");
  }
  uint32_t cores() const override { return cores_; }
  std::string policy_name() const override { return policy_; }
  proto::RequestDone measure(const std::string& task_bytes, const std::vector<std::string>& states,
                             const measure::MeasureOptions& options,
                             const OnResult& on_result) override {
    return c_.measure(task_bytes, states, options, on_result);
  }
  bool cancel() noexcept override { return c_.cancel(); }
  bool cancelled() const override { return c_.cancelled(); }

 private:
  client::BrokerClient c_;
  uint32_t cores_ = 0;
  std::string policy_;
};

}  // namespace

client::BrokerOptions broker_options(const Common& common) {
  client::BrokerOptions o;
  try {
    o.endpoint = broker::parse_redis_url(common.broker);
    if (!common.broker_password_file.empty())
      broker::read_password_file(o.endpoint, common.broker_password_file);
  } catch (const UserError& e) {
    throw client::ConnectionError(e.what());
  }
  o.device_key = common.device_key;
  o.window = common.broker_window;
  return o;
}

std::unique_ptr<MeasureBackend> open_backend(const Common& common, const std::string& name) {
  if (!common.broker.empty()) return std::make_unique<BrokerBackend>(broker_options(common));
  return std::make_unique<SocketBackend>(
      common.socket.empty() ? client::default_socket_path() : common.socket, name);
}

}  // namespace mrd::cli
