// Pending asks: each completes exactly once (property S2) with a reply, a
// timeout or target-down, whichever comes first; the entry is gone after its
// first completion, so a late reply finds nothing and is a counted dead
// letter, never a second completion.
//
// Ids are this node's, increasing from first_ask_id(incarnation), so one
// life never reuses another's: replies carry only the id and the asker's
// (address, name), and a reply still queued for a previous life must not
// complete a new ask of the same number (found by the simulator's counter
// example: a restarted node got its previous life's answers).
// The table is bounded (max_pending_asks); deadlines are kept in an ordered
// index so expiry and next_deadline() cost O(log n).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "kernel/actors/behavior.hpp"
#include "kernel/assert.hpp"
#include "kernel/ids.hpp"
#include "kernel/time.hpp"

namespace weft {

// Who is waiting: a local actor (by index) or the driver (external ask).
struct Asker {
  static constexpr std::uint32_t kExternal = UINT32_MAX;
  std::uint32_t actor = kExternal;

  bool external() const { return actor == kExternal; }
  friend bool operator==(const Asker&, const Asker&) = default;
};

// Where a life's ask ids start: a mix of the incarnation into 62 bits, so
// lives (distinct incarnations) start far apart and never wrap.
AskId first_ask_id(Incarnation incarnation);

struct PendingAsk {
  AskId id = 0;
  Asker asker;
  NodeAddress target_node;
  Instant deadline;
};

class AskTable {
 public:
  explicit AskTable(std::uint32_t capacity, AskId first_id = 1) : capacity_(capacity), next_id_(first_id) {
    WEFT_ASSERT(capacity > 0);
    WEFT_ASSERT(first_id != 0);  // an ask's correlation id is never 0 (that is a tell's)
  }

  std::size_t size() const { return by_id_.size(); }
  bool full() const { return by_id_.size() >= capacity_; }

  // Registers an ask; the table must not be full.
  AskId add(Asker asker, NodeAddress target_node, Instant deadline);
  // A fresh id for an ask refused before it was registered (the table was
  // full): it completes at once, and the id is never pending.
  AskId refuse() {
    WEFT_ASSERT(by_id_.empty() || by_id_.rbegin()->first < next_id_);  // so this id is not pending
    return next_id_++;
  }
  // Removes and returns the ask if still pending (the one completion).
  std::optional<PendingAsk> take(AskId id);
  // Puts a taken ask back: only Mutations::replies_complete_twice does this.
  void restore(const PendingAsk& ask);
  // Removes and returns every ask due at `now`, oldest deadline first.
  std::vector<PendingAsk> take_expired(Instant now);
  // Removes and returns every ask to `node`, in id order.
  std::vector<PendingAsk> take_for_node(const NodeAddress& node);

  Instant next_deadline() const;

 private:
  std::uint32_t capacity_;
  AskId next_id_;
  std::map<AskId, PendingAsk> by_id_;
  std::set<std::pair<Instant, AskId>> by_deadline_;
};

}  // namespace weft
