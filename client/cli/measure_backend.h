// Where measurer sends its measurements: the local measurerd (its socket) or the nodes of a
// broker (--broker). The subcommands that measure use this one interface.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "client/cli/commands.h"
#include "common/measure/measure_types.h"
#include "common/proto/messages.h"

namespace mrd::cli {

class MeasureBackend {
 public:
  virtual ~MeasureBackend() = default;
  /// The cores of the machine(s) measuring: the daemon's, or the first live node's.
  virtual uint32_t cores() const = 0;
  /// "exclusive", "shared", or both names when a broker's nodes differ.
  virtual std::string policy_name() const = 0;
  /// `node` is the broker node that measured the result, empty for the local measurerd.
  using OnResult = std::function<void(uint32_t index, const measure::MeasureResult& result,
                                      const std::string& node)>;
  virtual proto::RequestDone measure(const std::string& task_bytes,
                                     const std::vector<std::string>& states,
                                     const measure::MeasureOptions& options,
                                     const OnResult& on_result) = 0;
  virtual bool cancel() noexcept = 0;
  virtual bool cancelled() const = 0;
};

}  // namespace mrd::cli
namespace mrd::client {
struct BrokerOptions;
}
namespace mrd::cli {

/// The broker URL, password file, device key and window of `common`; throws
/// client::ConnectionError for a bad URL or an unreadable password file.
client::BrokerOptions broker_options(const Common& common);

/// Connects as `common` says; throws client::ConnectionError or ServerError.
std::unique_ptr<MeasureBackend> open_backend(const Common& common, const std::string& client_name);

}  // namespace mrd::cli
