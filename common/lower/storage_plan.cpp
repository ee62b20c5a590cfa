#include "common/lower/storage_plan.h"

#include <map>
#include <memory>
#include <unordered_set>
#include <vector>

#include "common/ir/expr_functor.h"
#include "common/ir/stmt_functor.h"
#include "common/lower/inplace_check.h"
#include "common/util/error.h"

namespace mrd::lower {

using namespace ir;

namespace {

/// One entry of the linear sequence: a store, or the start or the end of a loop, conditional
/// or let. `pair` is the distance to the other end of a scope (> 0 at its start, < 0 at its
/// end, 0 for a store); `touched` (on stores and scope ends) the allocations it reads or
/// writes, recorded at the allocations' levels.
struct SeqEntry {
  Stmt stmt;
  int64_t pair = 0;
  std::vector<const BufferNode*> touched;
};

struct AllocInfo {
  Buffer buffer;
  size_t level = 0;                // number of scopes open at the Allocate
  const ForNode* attach = nullptr;  // innermost enclosing parallel loop
};

class AccessFinder : public StmtVisitor, public ExprVisitor {
 public:
  std::vector<SeqEntry> seq;
  std::unordered_map<const BufferNode*, AllocInfo> allocs;

  void run(const Stmt& s) { StmtVisitor::visit(s); }

 protected:
  void visit_expr(const Expr& e) override { ExprVisitor::visit(e); }
  void visit_(const BufferLoadNode* op, const Expr& self) override {
    ExprVisitor::visit_(op, self);
    touch(op->buffer.get());
  }
  void visit_(const AllocateNode* op, const Stmt& self) override {
    allocs[op->buffer.get()] = AllocInfo{op->buffer, scopes_.size(), parallel_.empty() ? nullptr : parallel_.back()};
    StmtVisitor::visit_(op, self);
  }
  void visit_(const StoreNode* op, const Stmt& self) override {
    scopes_.emplace_back();
    visit_expr(op->value);
    for (const Expr& i : op->indices) visit_expr(i);
    touch(op->buffer.get());
    std::vector<const BufferNode*> touched = std::move(scopes_.back());
    scopes_.pop_back();
    if (!touched.empty()) seq.push_back(SeqEntry{self, 0, std::move(touched)});
  }
  void visit_(const ForNode* op, const Stmt& self) override {
    bool parallel = op->for_kind == ForKind::Parallel;
    if (parallel) parallel_.push_back(op);
    new_scope(self, [&] { StmtVisitor::visit_(op, self); });
    if (parallel) parallel_.pop_back();
  }
  void visit_(const IfThenElseNode* op, const Stmt& self) override {
    new_scope(self, [&] { StmtVisitor::visit_(op, self); });
  }
  void visit_(const LetNode* op, const Stmt& self) override {
    new_scope(self, [&] { StmtVisitor::visit_(op, self); });
  }

 private:
  void touch(const BufferNode* b) {
    auto it = allocs.find(b);
    if (it == allocs.end()) return;  // a parameter
    MRD_CHECK(it->second.level < scopes_.size(), "storage_plan: an access outside any statement");
    scopes_[it->second.level].push_back(b);
  }
  template <typename F>
  void new_scope(const Stmt& self, F&& walk_children) {
    scopes_.emplace_back();
    size_t begin = seq.size();
    seq.push_back(SeqEntry{self, 0, {}});
    walk_children();
    SeqEntry end{self, 0, std::move(scopes_.back())};
    scopes_.pop_back();
    int64_t distance = static_cast<int64_t>(seq.size() - begin);
    end.pair = -distance;
    seq[begin].pair = distance;
    seq.push_back(std::move(end));
  }

  std::vector<std::vector<const BufferNode*>> scopes_;
  std::vector<const ForNode*> parallel_;
};

/// Memory that one or more allocations live in.
struct Storage {
  const ForNode* attach = nullptr;
  MemScope scope = MemScope::Global;
  DType elem = DType::Float32;
  uint64_t bits = 0;
  std::vector<Buffer> allocs;
};

uint64_t size_bits(const BufferNode* b) {
  return static_cast<uint64_t>(b->num_elements()) * static_cast<uint64_t>(dtype_bits(b->dtype));
}

class Planner {
 public:
  Planner(const std::vector<SeqEntry>& seq, const std::unordered_map<const BufferNode*, AllocInfo>& allocs)
      : seq_(seq), allocs_(allocs), gen_(seq.size()), kill_(seq.size()) {}

  StoragePlan plan() {
    liveness();
    for (size_t i = 0; i < seq_.size(); ++i) {
      const SeqEntry& s = seq_[i];
      if (s.pair >= 0) start(i);
      if (s.pair < 0) {
        const ForNode* loop = s.stmt.as<ForNode>();
        if (loop && loop->for_kind == ForKind::Parallel) forget_free(loop);
      }
      if (s.pair <= 0) {
        for (const BufferNode* b : kill_[i]) {
          if (!in_place_.count(b)) release(b);
        }
      }
    }
    return result();
  }

 private:
  /// An allocation starts at the start of the first entry touching it and ends at the end of
  /// the last one.
  void liveness() {
    std::unordered_set<const BufferNode*> seen;
    for (size_t i = seq_.size(); i-- > 0;) {
      for (const BufferNode* b : seq_[i].touched) {
        if (seen.insert(b).second) kill_[i].push_back(b);
      }
    }
    seen.clear();
    for (size_t i = 0; i < seq_.size(); ++i) {
      if (seq_[i].pair < 0) continue;
      for (const BufferNode* b : seq_[i + seq_[i].pair].touched) {
        if (seen.insert(b).second) gen_[i].push_back(b);
      }
    }
  }

  void start(size_t i) {
    const std::vector<const BufferNode*>& kills = kill_[i + seq_[i].pair];
    bool detect_in_place = gen_[i].size() <= 2;
    bool in_place_found = false;  // one in-place allocation per statement
    for (const BufferNode* b : gen_[i]) {
      const AllocInfo& info = allocs_.at(b);
      Storage* dst = nullptr;
      if (detect_in_place) {
        for (const BufferNode* src : kills) {
          auto placed = placed_.find(src);
          if (in_place_.count(src) || placed == placed_.end()) continue;
          Storage* e = placed->second;
          if (e->scope == b->scope && e->attach == info.attach && e->elem == b->dtype &&
              writes_in_place(seq_[i].stmt, b, src) && e->bits == size_bits(b) && !in_place_found) {
            dst = e;
            in_place_.insert(src);
            in_place_found = true;
          }
        }
      }
      if (!dst) dst = find(info);
      dst->allocs.push_back(info.buffer);
      placed_[b] = dst;
    }
  }

  Storage* fresh(const AllocInfo& info) {
    auto e = std::make_unique<Storage>();
    e->attach = info.attach;
    e->scope = info.buffer->scope;
    e->elem = info.buffer->dtype;
    e->bits = size_bits(info.buffer.get());
    storages_.push_back(std::move(e));
    return storages_.back().get();
  }

  /// TVM's FindAlloc for allocations of constant size.
  Storage* find(const AllocInfo& info) {
    constexpr uint64_t kMatchRange = 16;
    const BufferNode* b = info.buffer.get();
    uint64_t bits = size_bits(b);
    if (b->scope != MemScope::Global || bits <= 32) return fresh(info);
    auto usable = [&](const Storage* e) {
      return e->attach == info.attach && e->scope == b->scope && e->elem == b->dtype;
    };
    auto take = [&](std::multimap<uint64_t, Storage*>::iterator it) {
      Storage* e = it->second;
      e->bits = std::max(e->bits, bits);
      free_.erase(it);
      return e;
    };
    auto begin = free_.lower_bound(bits / kMatchRange);
    auto mid = free_.lower_bound(bits);
    auto end = free_.upper_bound(bits * kMatchRange);
    for (auto it = mid; it != end; ++it) {
      if (usable(it->second)) return take(it);
    }
    for (auto it = mid; it != begin;) {
      --it;
      if (usable(it->second)) return take(it);
    }
    return fresh(info);
  }

  void release(const BufferNode* b) {
    Storage* e = placed_.at(b);
    if (e->scope != MemScope::Global || e->bits <= 32) return;
    free_.emplace(e->bits, e);
  }

  void forget_free(const ForNode* loop) {
    for (auto it = free_.begin(); it != free_.end();) {
      it = it->second->attach == loop ? free_.erase(it) : std::next(it);
    }
  }

  StoragePlan result() const {
    StoragePlan plan;
    for (const auto& e : storages_) {
      if (e->allocs.size() < 2) continue;
      const Buffer& first = e->allocs.front();
      bool alike = true;
      int64_t elems = 0;
      for (const Buffer& a : e->allocs) {
        alike = alike && a->shape == first->shape;
        elems = std::max(elems, a->num_elements());
      }
      Buffer storage = alike ? first : BufferNode::make(first->name, e->elem, {elems}, e->scope);
      for (const Buffer& a : e->allocs) {
        if (a != storage) plan.emplace(a.get(), storage);
      }
    }
    return plan;
  }

  const std::vector<SeqEntry>& seq_;
  const std::unordered_map<const BufferNode*, AllocInfo>& allocs_;
  std::vector<std::vector<const BufferNode*>> gen_, kill_;  // by sequence index
  std::vector<std::unique_ptr<Storage>> storages_;
  std::unordered_map<const BufferNode*, Storage*> placed_;
  std::multimap<uint64_t, Storage*> free_;
  std::unordered_set<const BufferNode*> in_place_;  // allocations whose memory went on in place
};

}  // namespace

StoragePlan plan_storage(const Stmt& body) {
  AccessFinder finder;
  finder.run(body);
  return Planner(finder.seq, finder.allocs).plan();
}

}  // namespace mrd::lower
