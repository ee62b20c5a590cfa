// A map that keeps at most a number of entries and a total of their sizes, dropping the least
// recently used first. The entry just inserted is never dropped, whatever its size. Used for the
// tasks a worker keeps decoded and for the daemon's record of what each worker keeps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <unordered_map>
#include <utility>

namespace mrd {

template <class K, class V, class Hash = std::hash<K>>
class LruMap {
 public:
  LruMap(size_t max_entries, uint64_t max_bytes)
      : max_entries_(max_entries < 1 ? 1 : max_entries), max_bytes_(max_bytes) {}

  /// The value under `key`, now the most recently used; null when absent.
  V* find(const K& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return &it->second->value;
  }
  bool contains(const K& key) const { return index_.count(key) > 0; }

  /// Puts `value` (of `size` bytes) under `key`, replacing what was there, as the most
  /// recently used; then drops the least recently used others while over a limit.
  V& insert(const K& key, V value, uint64_t size) {
    erase(key);
    order_.push_front(Entry{key, std::move(value), size});
    index_.emplace(key, order_.begin());
    bytes_ += size;
    while (order_.size() > 1 && (order_.size() > max_entries_ || bytes_ > max_bytes_)) {
      bytes_ -= order_.back().size;
      index_.erase(order_.back().key);
      order_.pop_back();
    }
    return order_.front().value;
  }
  void erase(const K& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return;
    bytes_ -= it->second->size;
    order_.erase(it->second);
    index_.erase(it);
  }

  size_t size() const { return order_.size(); }
  uint64_t bytes() const { return bytes_; }

 private:
  struct Entry {
    K key;
    V value;
    uint64_t size;
  };
  size_t max_entries_;
  uint64_t max_bytes_;
  uint64_t bytes_ = 0;
  std::list<Entry> order_;
  std::unordered_map<K, typename std::list<Entry>::iterator, Hash> index_;
};

}  // namespace mrd
