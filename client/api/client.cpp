// The public Client: a handle on the library's own client, with the protocol's errors turned
// into the public exception types.
#include "measurerd/client.h"

#include "client/api/convert.h"
#include "client/lib/client.h"
#include "common/proto/protocol_error.h"

namespace measurerd {

struct Client::Impl {
  mrd::client::Client client;
  ServerInfo info;
  Impl(const std::string& socket_path, const std::string& name) : client(socket_path, name) {}
};

namespace {

/// Runs `f`, turning the library's connection, server and protocol errors into the public ones.
template <typename F>
auto translated(F&& f) -> decltype(f()) {
  try {
    return as_public(f);
  } catch (const mrd::client::ConnectionError& e) {
    throw ConnectionError(e.what());
  } catch (const mrd::client::ServerError& e) {
    throw ServerError(static_cast<int>(e.code()),
                      std::string(mrd::proto::error_code_name(e.code())), e.what());
  } catch (const mrd::proto::ProtocolError& e) {
    throw ConnectionError(std::string("bad reply from measurerd: ") + e.what());
  }
}

}  // namespace

std::string default_socket_path() {
  return mrd::client::default_socket_path();
}

Client::Client(const std::string& socket_path, const std::string& client_name)
    : impl_(translated([&] { return std::make_unique<Impl>(socket_path, client_name); })) {
  const auto& w = impl_->client.welcome();
  impl_->info.version = w.server_version;
  impl_->info.cpu_model = w.cpu_model;
  impl_->info.cores = w.cores;
  impl_->info.workers = w.workers;
  impl_->info.policy = static_cast<TimingPolicy>(w.policy);
  impl_->info.max_states = w.max_states;
}

Client::~Client() = default;
Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&&) noexcept = default;

const ServerInfo& Client::server() const {
  return impl_->info;
}

MeasureSummary Client::measure(const Task& task, const std::vector<std::string>& states,
                               const MeasureOptions& options, const OnResult& on_result) {
  return translated([&] {
    auto done = impl_->client.measure(task.impl().task, states, to_internal(options),
                                      [&](uint32_t index, const mrd::measure::MeasureResult& r) {
                                        if (on_result) on_result(index, from_internal(r));
                                      });
    return MeasureSummary{done.count, done.errors};
  });
}

bool Client::cancel() noexcept {
  return impl_ && impl_->client.cancel();
}

Status Client::status() {
  return translated([&] {
    auto s = impl_->client.status();
    Status out;
    out.workers = s.workers;
    out.workers_alive = s.workers_alive;
    out.queued = s.queued;
    out.in_flight = s.in_flight;
    out.completed = s.completed;
    out.throughput = s.throughput;
    out.cache_hits = s.cache_hits;
    out.uptime = s.uptime;
    out.clients = s.clients;
    out.policy = static_cast<TimingPolicy>(s.policy);
    return out;
  });
}

}  // namespace measurerd
