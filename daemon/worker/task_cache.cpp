#include "daemon/worker/task_cache.h"

#include <stdexcept>

#include "common/proto/protocol_error.h"
#include "common/util/error.h"

namespace mrd::worker {

bool TaskCache::check(const proto::TaskRef& ref) {
  if (!ref.has_bytes) return entries_.contains(ref.digest);
  if (proto::task_digest(ref.bytes) != ref.digest)
    throw proto::ProtocolError(proto::ErrorCode::MalformedBody,
                               "a job's task bytes do not match its digest");
  return true;
}

std::shared_ptr<const measure::Task> TaskCache::get(const proto::TaskRef& ref) {
  Entry* e = entries_.find(ref.digest);
  MRD_CHECK(e || ref.has_bytes, "task ", ref.digest.short_hex(), " is neither sent nor kept");
  if (!e) {
    Entry fresh;
    try {
      fresh.task = std::make_shared<const measure::Task>(measure::task_from_binary(ref.bytes));
    } catch (const std::bad_alloc&) {
      throw;  // no verdict on the task: it may decode with more memory free
    } catch (const std::exception& x) {
      fresh.error = x.what();
    }
    e = &entries_.insert(ref.digest, std::move(fresh), ref.digest.size);
  }
  if (!e->task) throw std::runtime_error(e->error);
  return e->task;
}

}  // namespace mrd::worker
