// A region's active entities by key: an ordered map, so every walk over them
// (passivation, handoff, lapses) visits keys in one order on every run and
// every platform, beside a hash index that only finds. A lookup by key is
// the hot path of every entity message (a quarter of the one-node path's
// time went to the ordered map's string compares, weft_bench_shard); the
// index makes it one hash and, mostly, one compare. No walk reads the
// index, so its order reaches no output.
//
// Memory: the index adds a node (the key's view and the map iterator) and a
// bucket per entity; when the table empties or shrinks to an eighth of its
// buckets, the buckets go too, so passivated keys cost nothing.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace weft::shard {

template <class Value>
class EntityTable {
 public:
  using Ordered = std::map<std::string, Value, std::less<>>;
  using iterator = typename Ordered::iterator;
  using const_iterator = typename Ordered::const_iterator;

  iterator begin() { return ordered_.begin(); }
  iterator end() { return ordered_.end(); }
  const_iterator begin() const { return ordered_.begin(); }
  const_iterator end() const { return ordered_.end(); }
  std::size_t size() const { return ordered_.size(); }
  bool empty() const { return ordered_.empty(); }
  std::size_t index_buckets() const { return index_.bucket_count(); }  // tests/entity_table_test.cpp

  iterator find(std::string_view key) {
    const auto it = index_.find(key);
    return it == index_.end() ? ordered_.end() : it->second;
  }
  const_iterator find(std::string_view key) const {
    const auto it = index_.find(key);
    return it == index_.end() ? ordered_.end() : const_iterator(it->second);
  }

  // Adds `key` unless present; returns its entry and whether it is new.
  std::pair<iterator, bool> emplace(std::string_view key, Value value) {
    const auto [it, fresh] = ordered_.try_emplace(std::string(key), std::move(value));
    // The view is into the map node's key, which lives as long as the entry.
    if (fresh) index_.emplace(std::string_view(it->first), it);
    return {it, fresh};
  }

  iterator erase(iterator it) {
    index_.erase(std::string_view(it->first));
    iterator next = ordered_.erase(it);
    if (index_.size() * 8 < index_.bucket_count() && index_.bucket_count() > kKeptBuckets) {
      index_.rehash(0);  // to what the entries left need
    }
    return next;
  }

 private:
  static constexpr std::size_t kKeptBuckets = 64;
  Ordered ordered_;
  std::unordered_map<std::string_view, iterator> index_;
};

}  // namespace weft::shard
