// A region's active entities by key: an ordered map, so every walk over them
// (passivation, handoff, lapses) visits keys in one order on every run and
// every platform, beside a hash index that only finds. A lookup by key is
// the hot path of every entity message (a quarter of the one-node path's
// time went to the ordered map's string compares, weft_bench_shard); the
// index makes it one hash and, mostly, one compare. The hash is key_hash
// under the table's seed, the same a region's ShardMap takes the key's
// shard from, so a caller that has it passes it in and the key is not
// hashed again (find and emplace with a hash). No walk reads the index, so
// its order reaches no output.
//
// Memory: the index adds a node (the key's view, its hash and the map
// iterator) and a bucket per entity; when the table empties or shrinks to
// an eighth of its buckets, the buckets go too, so passivated keys cost
// nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "kernel/assert.hpp"
#include "shard/key_hash.hpp"

namespace weft::shard {

template <class Value>
class EntityTable {
 public:
  using Ordered = std::map<std::string, Value, std::less<>>;
  using iterator = typename Ordered::iterator;
  using const_iterator = typename Ordered::const_iterator;

  // `seed`: the ShardMap's, so that its hash of a key is this table's.
  explicit EntityTable(std::uint64_t seed = 0) : seed_(seed) {}
  std::uint64_t hash(std::string_view key) const { return key_hash(seed_, key); }

  iterator begin() { return ordered_.begin(); }
  iterator end() { return ordered_.end(); }
  const_iterator begin() const { return ordered_.begin(); }
  const_iterator end() const { return ordered_.end(); }
  std::size_t size() const { return ordered_.size(); }
  bool empty() const { return ordered_.empty(); }
  std::size_t index_buckets() const { return index_.bucket_count(); }  // tests/entity_table_test.cpp

  iterator find(std::string_view key) { return find(key, hash(key)); }
  const_iterator find(std::string_view key) const { return find(key, hash(key)); }
  // `hash`: hash(key), taken already.
  iterator find(std::string_view key, std::uint64_t hash) {
    const auto it = index_.find(Hashed{key, hash});
    return it == index_.end() ? ordered_.end() : it->second;
  }
  const_iterator find(std::string_view key, std::uint64_t hash) const {
    const auto it = index_.find(Hashed{key, hash});
    return it == index_.end() ? ordered_.end() : const_iterator(it->second);
  }

  // Adds `key` unless present; returns its entry and whether it is new.
  std::pair<iterator, bool> emplace(std::string_view key, Value value) {
    return insert(key, hash(key), std::move(value));
  }
  std::pair<iterator, bool> emplace(std::string_view key, std::uint64_t hash, Value value) {
    WEFT_ASSERT(hash == this->hash(key));  // once per new entity: a wrong seed is caught where it enters
    return insert(key, hash, std::move(value));
  }

  iterator erase(iterator it) {
    // Found under this table's own hash: an entry added with another
    // (emplace with a hash not hash(key)) would be left behind, dangling.
    const std::size_t erased = index_.erase(Hashed{std::string_view(it->first), hash(it->first)});
    WEFT_ASSERT(erased == 1);
    iterator next = ordered_.erase(it);
    if (index_.size() * 8 < index_.bucket_count() && index_.bucket_count() > kKeptBuckets) {
      index_.rehash(0);  // to what the entries left need
    }
    return next;
  }

 private:
  std::pair<iterator, bool> insert(std::string_view key, std::uint64_t hash, Value value) {
    const auto [it, fresh] = ordered_.try_emplace(std::string(key), std::move(value));
    // The view is into the map node's key, which lives as long as the entry.
    if (fresh) index_.emplace(Hashed{std::string_view(it->first), hash}, it);
    return {it, fresh};
  }

  // A key with its hash: the index's hasher only reads the hash back.
  struct Hashed {
    std::string_view key;
    std::uint64_t hash;
    bool operator==(const Hashed& other) const { return hash == other.hash && key == other.key; }
  };
  // noexcept and cheap, so libstdc++'s index keeps no hash of its own per
  // node (another library's may).
  struct ByHash {
    std::size_t operator()(const Hashed& k) const noexcept { return static_cast<std::size_t>(k.hash); }
  };

  static constexpr std::size_t kKeptBuckets = 64;
  std::uint64_t seed_;
  Ordered ordered_;
  std::unordered_map<Hashed, iterator, ByHash> index_;
};

}  // namespace weft::shard
