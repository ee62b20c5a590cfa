#include "daemon/server/session.h"

#include <poll.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <vector>

#include "common/proto/codec.h"
#include "common/util/error.h"
#include "daemon/server/dispatcher.h"
#include "daemon/server/log_escape.h"
#include "daemon/server/session_manager.h"

namespace mrd::daemon {

namespace asio = boost::asio;
using proto::ErrorCode;
using proto::MessageType;

Session::Session(Socket socket, SessionContext context, uint64_t client_id)
    : socket_(std::move(socket)),
      ctx_(std::move(context)),
      client_id_(client_id),
      decoder_(ctx_.max_body),
      deadline_(socket_.get_executor()) {
  if (ctx_.uid_usage) ++ctx_.uid_usage->connections;
}

void Session::start() {
  if (ctx_.hello_timeout > 0) arm_deadline(ctx_.hello_timeout);
  do_read();
}

void Session::arm_deadline(double seconds) {
  deadline_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(seconds)));
  auto self = shared_from_this();
  deadline_.async_wait([this, self](boost::system::error_code ec) {
    if (!ec) on_deadline();
  });
}

void Session::on_deadline() {
  if (closing_ || closed_) return;
  if (!greeted_) {
    spdlog::warn("client {}: no Hello within {} s; closing", client_id_, ctx_.hello_timeout);
    fail(ErrorCode::TimedOut, str_cat("no Hello within ", ctx_.hello_timeout, " s"));
    return;
  }
  if (ctx_.idle_timeout <= 0) return;
  auto now = std::chrono::steady_clock::now();
  // Waiting for its results is not idle; a peer that reads none of them is.
  if (*in_flight_ > 0 && !paused_) last_activity_ = now;
  auto idle = std::chrono::duration<double>(now - last_activity_).count();
  if (idle < ctx_.idle_timeout) {
    arm_deadline(ctx_.idle_timeout - idle);
    return;
  }
  spdlog::info("client {}: idle for {} s; closing", client_id_, ctx_.idle_timeout);
  fail(ErrorCode::TimedOut, str_cat("idle for ", ctx_.idle_timeout, " s"));
}

void Session::do_read() {
  if (closing_ || closed_ || paused_ || reading_) return;
  reading_ = true;
  auto self = shared_from_this();
  socket_.async_read_some(
      asio::buffer(buffer_), [this, self](boost::system::error_code ec, size_t n) {
        reading_ = false;
        if (closed_ || closing_) return;
        if (ec) {
          if (decoder_.mid_frame())
            spdlog::warn("client {}: connection closed in the middle of a frame", client_id_);
          else
            spdlog::debug("client {}: disconnected ({})", client_id_, ec.message());
          close();
          return;
        }
        decoder_.feed(std::string_view(buffer_.data(), n));
        handle_frames();
      });
}

void Session::handle_frames() {
  size_t handled = 0;
  while (!closing_ && !closed_ && !paused_) {
    if (handled == kFramesPerTurn && decoder_.has_frame()) {
      // The rest after what else waits on the event loop: one peer's burst of small frames
      // does not hold up every other peer and worker.
      asio::post(socket_.get_executor(), [this, self = shared_from_this()] {
        if (!closed_) handle_frames();
      });
      return;
    }
    auto frame = decoder_.next();
    if (!frame) break;
    ++handled;
    last_activity_ = std::chrono::steady_clock::now();
    try {
      handle_frame(*frame);
    } catch (const proto::ProtocolError& e) {
      fail(e.code(), e.what());
    } catch (const std::exception& e) {
      spdlog::error("client {}: {}", client_id_, log_quoted(e.what(), 1024));
      fail(ErrorCode::Internal, e.what());
    }
  }
  if (!closing_ && !closed_ && !paused_ && decoder_.failure()) {
    spdlog::warn("client {}: {}", client_id_, decoder_.failure()->message);
    fail(decoder_.failure()->code, decoder_.failure()->message);
  }
  if (unsent_ > ctx_.max_unsent) pause();
  do_read();  // not while paused or closing
}

void Session::pause() {
  if (paused_ || closing_ || closed_) return;
  paused_ = true;
  spdlog::debug("client {}: {} bytes unsent; not reading until it reads", client_id_, unsent_);
  if (ctx_.dispatcher) ctx_.dispatcher->pause_client(client_id_);
}

void Session::resume() {
  if (!paused_) return;
  paused_ = false;
  spdlog::debug("client {}: reading again", client_id_);
  if (ctx_.dispatcher) ctx_.dispatcher->resume_client(client_id_);
  handle_frames();  // those read before the pause first; then it reads again
}

void Session::handle_frame(const proto::Frame& frame) {
  auto type = static_cast<MessageType>(frame.type);
  if (!greeted_) {
    if (type != MessageType::Hello)
      throw proto::ProtocolError(ErrorCode::UnexpectedMessage, "the first message must be Hello");
    auto hello = proto::decode<proto::Hello>(frame.body, ctx_.limits);
    if (hello.min_version > proto::kProtocolVersion || hello.max_version < proto::kProtocolVersion)
      throw proto::ProtocolError(
          ErrorCode::UnsupportedVersion,
          str_cat("client speaks versions ", hello.min_version, "..", hello.max_version,
                  "; this server speaks ", proto::kProtocolVersion));
    greeted_ = true;
    spdlog::debug("client {}: hello from {}", client_id_, log_quoted(hello.client_name));
    send(proto::encode(ctx_.welcome()));
    deadline_.cancel();
    if (ctx_.idle_timeout > 0) arm_deadline(ctx_.idle_timeout);
    return;
  }
  switch (type) {
    case MessageType::MeasureRequest:
      handle_measure(frame);
      return;
    case MessageType::StatusRequest:
      send(proto::encode(ctx_.status()));
      return;
    case MessageType::Cancel: {
      auto c = proto::decode<proto::Cancel>(frame.body, ctx_.limits);
      if (!ctx_.dispatcher->cancel(client_id_, c.request_id))
        send(proto::encode_error(ErrorCode::UnknownRequest, "no such request in flight",
                                 c.request_id));
      return;
    }
    default:
      // Unknown or misplaced types are answered, not fatal: a newer client may probe.
      send(proto::encode_error(ErrorCode::UnexpectedMessage,
                               str_cat("message type ", frame.type, " is not served here")));
  }
}

void Session::handle_measure(const proto::Frame& frame) {
  auto req = proto::decode<proto::MeasureRequest>(frame.body, ctx_.limits);
  uint64_t id = req.request_id;
  std::string bad = proto::check_options(req.options);
  if (!bad.empty()) {
    send(proto::encode_error(ErrorCode::InvalidRequest, bad, id));
    return;
  }
  for (size_t i = 0; i < req.states.size(); ++i)
    if (req.states[i].find('\0') != std::string::npos) {
      // The steps are JSON text: a NUL is never part of it, and C string handling would
      // silently end the state there.
      send(proto::encode_error(ErrorCode::InvalidRequest,
                               str_cat("state ", i, " contains a NUL byte"), id));
      return;
    }
  if (ctx_.check_caps) {
    std::string over = ctx_.check_caps(req.options);
    if (!over.empty()) {
      send(proto::encode_error(ErrorCode::InvalidRequest, over, id));
      return;
    }
  }
  if (peer_hung_up()) {
    // The end of file that follows drops every request of this peer: its work would be
    // thrown away, while it kept workers from everyone else.
    spdlog::debug("client {}: request {} not started: the peer has hung up", client_id_, id);
    return;
  }
  if (*in_flight_ >= ctx_.max_requests) {
    send(proto::encode_error(
        ErrorCode::InvalidRequest,
        str_cat("too many requests in flight (at most ", ctx_.max_requests, " per connection)"),
        id));
    return;
  }
  if (ctx_.uid_usage && ctx_.uid_usage->requests >= ctx_.max_uid_requests) {
    send(proto::encode_error(ErrorCode::InvalidRequest,
                             str_cat("too many requests in flight (at most ", ctx_.max_uid_requests,
                                     " per user, over all its connections)"),
                             id));
    return;
  }
  std::weak_ptr<Session> weak = shared_from_this();
  RequestSink sink;
  sink.on_result = [weak, id](uint32_t index, const measure::MeasureResult& r) {
    if (auto s = weak.lock()) {
      proto::MeasureResultMsg m;
      m.request_id = id;
      m.index = index;
      m.result = r;
      s->send(proto::encode(m));
    }
  };
  std::shared_ptr<size_t> counter = in_flight_;
  std::shared_ptr<UidUsage> usage = ctx_.uid_usage;
  sink.on_done = [weak, counter, usage](const proto::RequestDone& d) {
    --*counter;
    if (usage) --usage->requests;
    if (auto s = weak.lock()) s->send(proto::encode(d));
  };
  size_t n = req.states.size();
  ++*in_flight_;
  if (usage) ++usage->requests;
  if (!ctx_.dispatcher->submit(client_id_, std::move(req), std::move(sink))) {
    --*in_flight_;
    if (usage) --usage->requests;
    send(proto::encode_error(ErrorCode::DuplicateRequest, "request id already in flight", id));
    return;
  }
  spdlog::debug("client {}: request {} with {} inputs", client_id_, id, n);
}

bool Session::peer_hung_up() {
  pollfd p{socket_.native_handle(), POLLRDHUP, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

void Session::send(std::string frame) {
  if (closed_) return;
  unsent_ += frame.size();
  out_.push_back(std::move(frame));
  // Results keep coming from jobs already on workers; no new job of this client starts.
  if (unsent_ > ctx_.max_unsent) pause();
  if (!writing_) do_write();
}

void Session::do_write() {
  if (out_.empty()) {
    writing_ = false;
    if (closing_) close();
    return;
  }
  writing_ = true;
  // The frames queued so far in one gathered write: one system call for a burst of replies,
  // not one each.
  std::vector<asio::const_buffer> buffers;
  size_t bytes = 0;
  for (const auto& f : out_) {
    if (buffers.size() == kFramesPerWrite) break;
    buffers.push_back(asio::buffer(f));
    bytes += f.size();
  }
  auto self = shared_from_this();
  asio::async_write(socket_, buffers,
                    [this, self, frames = buffers.size(), bytes](boost::system::error_code ec,
                                                                 size_t) {
                      if (closed_) return;
                      if (ec) {
                        close();
                        return;
                      }
                      last_activity_ = std::chrono::steady_clock::now();
                      unsent_ -= bytes;
                      out_.erase(out_.begin(), out_.begin() + static_cast<long>(frames));
                      if (paused_ && unsent_ <= ctx_.max_unsent / 2) resume();
                      do_write();
                    });
}

void Session::fail(ErrorCode code, const std::string& message) {
  close_with_error(code, message);
}

void Session::close_with_error(ErrorCode code, const std::string& message) {
  if (closing_ || closed_) return;
  send(proto::encode_error(code, message));
  closing_ = true;
  // Stop taking work for this client now; its queued inputs are dropped.
  if (ctx_.dispatcher) ctx_.dispatcher->drop_client(client_id_);
  // A peer that does not read its replies would never get this one either.
  if (!writing_ || paused_) close();
}

void Session::close() {
  if (closed_) return;
  closed_ = true;
  deadline_.cancel();
  if (ctx_.uid_usage) {
    // Requests dropped with the connection never report done: give them back here.
    --ctx_.uid_usage->connections;
    ctx_.uid_usage->requests -= std::min(ctx_.uid_usage->requests, *in_flight_);
    *in_flight_ = 0;
  }
  boost::system::error_code ignored;
  socket_.shutdown(Socket::shutdown_both, ignored);
  socket_.close(ignored);
  out_.clear();
  unsent_ = 0;
  if (ctx_.dispatcher) ctx_.dispatcher->drop_client(client_id_);
  if (ctx_.manager) ctx_.manager->leave(client_id_);
}

}  // namespace mrd::daemon
