// Strangers this node has dialed back before it answers them, on clusters
// without a key.
//
// Model. Without a key a hello proves nothing: whoever reaches the port may
// name any address in it. Every answer to a frame goes out on a link this
// node dials to the address its sender named, so a node that answered a
// stranger's Join (with its member list) or digest (with its whole state)
// would send a few hundred bytes to any address a forger names, for a
// hello of sixty: an amplifier (issue 43, case 6). And a Join taken at its
// word puts the named address in the table, from where every member would
// dial it and wait on its convergence.
//
// So a stranger (a dialer whose address holds no record here) is answered
// only once this node's own dial to that address was answered by the life
// its hello named: that proves someone at the address speaks weft for this
// cluster and chose to be dialed, as a return-routability check does. Until
// then its frames are dropped (counted), and the first one starts the dial,
// which carries nothing but this node's hello. A Join is kept meanwhile, and
// taken once the dial is answered, so an honest joiner pays one round trip.
// Entries end when the dial is answered by any life of the address, or at
// their deadline (a handshake_timeout), and there are at most `capacity` of
// them, so a forger naming ever new addresses costs this node at most that
// many dials in flight. With a key the hello is proven and none of this
// applies.
#pragma once

#include <cstddef>
#include <map>

#include "kernel/ids.hpp"
#include "kernel/time.hpp"

namespace weft {

class DialBacks {
 public:
  explicit DialBacks(std::size_t capacity) : capacity_(capacity) {}

  enum class Wait : std::uint8_t {
    started,  // a new entry: the caller dials the address now
    waiting,  // the life was already waited for (a Join, if this was one, is kept)
    full,     // `capacity` entries wait: the frame is dropped and nothing dialed
  };
  // A frame from `stranger` that is not answered until its address answers
  // our dial; `join` keeps a Join to take then.
  Wait wait(const MemberId& stranger, bool join, Instant deadline);
  // Our dial to `life.address` was answered by `life`: whether a Join from
  // that very life waits to be taken. Every entry of the address ends.
  bool answered(const MemberId& life);
  // Entries past their deadline end (their dials were not answered).
  void expire(Instant now);

  bool awaits(const NodeAddress& address) const;
  bool empty() const { return waiting_.empty(); }

 private:
  struct Entry {
    Instant deadline;
    bool join = false;
  };
  std::size_t capacity_;
  std::map<MemberId, Entry> waiting_;  // ordered: lives of one address are adjacent
};

}  // namespace weft
