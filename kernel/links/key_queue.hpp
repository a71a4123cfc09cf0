// KeyQueue: entries of an ordered map handed out in key order, each at most
// once per push. The kernel keeps one per link direction for the links
// poll_transmit() should look at, so it lends bytes in the order a walk of
// the link records would (least address, then least link id) without
// walking them all on every call.
//
// Model. The queue holds map iterators; its caller keeps a flag in each
// record saying "queued", so a key is in the queue at most once and the
// order over the queued keys is total. Pushing appends (no allocation once
// the vector has grown) and notes whether the order still holds; pop()
// sorts lazily, only when a push broke the order, and then hands out the
// least key. Entries before `head_` are handed out and kept only until the
// next compaction, so a burst of pops costs nothing but an index step.
//
// Invariants: head_ <= items_.size(); while sorted_, items_[head_..] are in
// strictly increasing key order (checked one pair per pop). An entry must
// be dropped (drop_if) before its map record is erased: the queue cannot see
// an iterator go stale.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "kernel/assert.hpp"

namespace weft {

template <class Iterator>
class KeyQueue {
 public:
  // Queues `it`, which must not be queued already (the caller's flag).
  void push(Iterator it) {
    WEFT_ASSERT(head_ <= items_.size());
    if (sorted_ && head_ < items_.size() && !(items_.back()->first < it->first)) sorted_ = false;
    items_.push_back(it);
    WEFT_ASSERT(size() > 0);
  }

  // Takes out the queued entry with the least key into `out`; false (and
  // the storage reset) when none is left.
  bool pop(Iterator& out) {
    WEFT_ASSERT(head_ <= items_.size());
    if (head_ == items_.size()) {
      items_.clear();
      head_ = 0;
      sorted_ = true;
      return false;
    }
    if (!sorted_) {
      compact();
      std::sort(items_.begin(), items_.end(), [](const Iterator& a, const Iterator& b) { return a->first < b->first; });
      sorted_ = true;
    }
    out = items_[head_++];
    // Keys are unique and in order: the next one is strictly greater.
    WEFT_ASSERT(head_ == items_.size() || out->first < items_[head_]->first);
    return true;
  }

  // Drops the queued entries `drop` selects (before their records are
  // erased). The order of those left is kept, so sorted_ still holds.
  template <class Predicate>
  void drop_if(Predicate drop) {
    compact();
    std::erase_if(items_, drop);
    WEFT_ASSERT(head_ == 0);
  }

  // Entries queued and not yet handed out.
  std::size_t size() const { return items_.size() - head_; }
  bool empty() const { return size() == 0; }

 private:
  // Forgets the entries already handed out.
  void compact() {
    WEFT_ASSERT(head_ <= items_.size());
    items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }

  std::vector<Iterator> items_;  // those before head_ are handed out
  std::size_t head_ = 0;
  bool sorted_ = true;           // items_ from head_ on are in key order
};

}  // namespace weft
