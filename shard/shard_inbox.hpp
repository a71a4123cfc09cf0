// The order a hosted shard hands its messages to entities in, across moves
// (issue 28: per-sender FIFO to an entity, across a handoff).
//
// Model. Every message enters the mesh through its sender's own node's
// region, which numbers it as it is sent, stamping it with that source
// (node address and life) and the next number it gave the key's shard
// (shard/envelope.hpp, Region::route_here). One sender's
// messages to one entity therefore carry increasing numbers from one
// source, but need not arrive in that order when the shard moves: some went
// to the old owner and are forwarded, later ones come straight to the new.
// The inbox of a shard hosted here restores the order:
//   - it keeps, per source, the next number it expects; a message with that
//     number is handed on at once (admit: now), one with a higher number is
//     held until the gap fills (hold), one with a lower number is late;
//   - a source it has never heard from starts at the first number it sees
//     (a fresh host has no history; the old owner's is handed over);
//   - a gap that stays open `wait` (a message lost with a crashed node or a
//     broken link, or refused on its way) is skipped: the earliest held
//     number is taken as the next;
//   - while the shard awaits handoffs, every message is kept in arrival
//     order; it may await more than one member (the old owner, and a member
//     newly up that may have served the shard meanwhile: both may hold
//     state); each handoff brings its sender's numbering, which the inbox
//     takes (the later of the two per source), and once the last awaited
//     has handed over (or gone, or the time is up) the kept messages are
//     offered again in arrival order;
//   - handing the shard over gives the numbering and every message kept or
//     held, for the new owner to continue from.
// Nothing here reads a clock or iterates an unordered container: the
// region passes its instants, and sources are ordered values.
#pragma once

#include <compare>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "kernel/actors/mailbox.hpp"
#include "kernel/ids.hpp"
#include "kernel/time.hpp"

namespace weft::shard {

struct Source {
  std::string host;
  std::uint16_t port = 0;
  std::uint64_t life = 0;
  auto operator<=>(const Source&) const = default;
};

// A source as a message's stamp names it (a view of its bytes), to look one
// up without building it: every message admitted does.
struct SourceView {
  std::string_view host;
  std::uint16_t port = 0;
  std::uint64_t life = 0;
};

// Source's order, across Source and SourceView.
struct SourceOrder {
  using is_transparent = void;
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    const int host = std::string_view(a.host).compare(std::string_view(b.host));
    if (host != 0) return host < 0;
    return std::tie(a.port, a.life) < std::tie(b.port, b.life);
  }
};

class ShardInbox {
 public:
  using Numbering = std::map<Source, std::uint64_t, SourceOrder>;  // per source, the next number expected
  enum class Admit : std::uint8_t { now, hold, late };

  // --- awaiting handoffs
  // Awaits `from` too; the wait lasts until the latest `until` given.
  void await_handoff(const NodeAddress& from, Instant until);
  bool awaiting() const { return !awaited_.empty(); }
  bool awaits(const NodeAddress& from) const { return awaited_.contains(from); }
  const std::set<NodeAddress>& awaited() const { return awaited_; }
  Instant awaiting_until() const { return until_; }
  // `from` handed over (`handed`: its numbering) or is gone (empty): true
  // when it was the last awaited, and the caller ends the wait.
  bool handed_by(const NodeAddress& from, const Numbering& handed);
  // While awaiting: keeps `message` (moved from) in arrival order.
  void keep_waiting(MailboxSlot& message);
  // Ends the wait (on every member awaited), taking `handed` (the later
  // number per source), and returns the messages kept meanwhile, in arrival
  // order, to offer again.
  std::deque<MailboxSlot> end_wait(const Numbering& handed);

  // --- in order
  // A stamped message from `source` numbered `number`, not awaiting: now
  // advances the numbering past it, and the caller hands it on.
  Admit admit(const Source& source, std::uint64_t number);
  // admit() with the source as a view: built only the first time it is seen.
  Admit admit(const SourceView& source, std::uint64_t number);
  // Whether any message is held for a gap (take_ready has work).
  bool holding() const { return !held_.empty(); }
  // Keeps a message admit() answered hold for (moved from); false for a
  // number already held (a duplicate), which is late.
  bool hold(const Source& source, std::uint64_t number, MailboxSlot& message, Instant now);
  // Moves out the held messages that are next in order now, in order, and
  // those a merged numbering has passed (late: the old owner went on).
  void take_ready(std::vector<MailboxSlot>& out, std::vector<MailboxSlot>& late);
  // Skips every gap that has stayed open `wait` by `now`; take_ready()
  // then releases what follows it.
  void skip_gaps(Instant now, Duration wait);
  // When the earliest open gap will have stayed open `wait`; never if none.
  Instant next_gap_deadline(Duration wait) const;

  // --- moving
  // The numbering and every message kept or held (kept ones first, in
  // arrival order, then held ones in order), leaving the inbox empty.
  Numbering hand_over(std::vector<MailboxSlot>& messages);
  // Takes `handed` (the later number per source) outside a wait.
  void merge(const Numbering& handed);
  // Drops the numbering of sources `gone` says are gone (and what they hold).
  template <class Gone>
  void forget_sources(Gone gone) {
    last_.entry = nullptr;
    std::erase_if(next_, [&](const auto& entry) { return gone(entry.first); });
    std::erase_if(held_, [&](const auto& entry) { return gone(entry.first.first); });
  }

  std::size_t kept() const { return held_.size() + waiting_.size(); }
  bool empty() const { return next_.empty() && kept() == 0 && !awaiting(); }
  const Numbering& numbering() const { return next_; }

 private:
  struct Held {
    MailboxSlot message;
    Instant since;
  };
  // The entry admit() last found: a shard's messages mostly come from one
  // source in a row, and a hit costs the compare of one source, not a
  // search of next_. Copies start empty (a copied inbox's entries are the
  // copy's); next_'s erasures clear it.
  struct LastSource {
    Numbering::value_type* entry = nullptr;
    LastSource() = default;
    LastSource(const LastSource&) noexcept {}
    LastSource& operator=(const LastSource&) noexcept {
      entry = nullptr;
      return *this;
    }
  };

  Numbering next_;
  LastSource last_;
  std::map<std::pair<Source, std::uint64_t>, Held> held_;
  std::deque<MailboxSlot> waiting_;
  std::set<NodeAddress> awaited_;
  Instant until_;
};

}  // namespace weft::shard
