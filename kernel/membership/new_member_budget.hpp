// How many members new to this node one peer may bring in, per gossip
// interval.
//
// Model. A gossiped record of an address this node holds nothing of is
// hearsay: one frame from any peer past the handshake can name thousands of
// members no process is. Vouching (vouched_lives.hpp) keeps such records
// out of every decision and has the leader down them, but each still costs
// a record in every table, and the downs, removals and merges cost per
// record: 20,000 inventions in one 440 KB frame were still live in 59,400
// records of three nodes 8.4 s later (io_fake_members, before this bound).
//
// So each peer (the address of the link a frame came on) may bring in at
// most `per_interval` records of addresses new to this node within one
// gossip_interval, a window that opens at the first one; the rest are
// refused like any record the ingest guard refuses (not taken, counted),
// so the state still differs and an honest sender, whose gossip repeats,
// brings them in the next windows. A joiner takes the table of a cluster
// of N members from its seed in ceil(N / per_interval) exchanges, fewer as
// it gossips with more peers; at the default (1000, the largest cluster
// weft's bounds are simulated for) in one. Records of addresses already
// held (a new life, a new status) cost nothing here: they add no record.
// A forger then adds at most per_interval records per link per interval,
// and what it adds is downed within T_vouch.
#pragma once

#include <cstdint>
#include <map>

#include "kernel/ids.hpp"
#include "kernel/time.hpp"

namespace weft {

class NewMemberBudget {
 public:
  NewMemberBudget(std::uint32_t per_interval, Duration interval) : per_interval_(per_interval), interval_(interval) {}

  // How many more new members `peer` may bring in at `now` (a window past
  // its end starts again).
  std::uint32_t left(const NodeAddress& peer, Instant now);
  // `peer` brought `taken` new members at `now` (at most left()).
  void spend(const NodeAddress& peer, Instant now, std::uint32_t taken);
  // Windows that ended are forgotten: at most one entry per peer that sent
  // gossip within the last interval.
  void expire(Instant now);
  std::size_t size() const { return windows_.size(); }

 private:
  struct Window {
    Instant opened;
    std::uint32_t taken = 0;
  };
  std::uint32_t per_interval_;
  Duration interval_;
  std::map<NodeAddress, Window> windows_;
};

}  // namespace weft
