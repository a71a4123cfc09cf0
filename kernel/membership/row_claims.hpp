// Reachability rows a node did not write: which it takes, which it refutes.
//
// Model. A reachability row is its observer's word about the links it
// holds (reachability.hpp): only the observer writes it, and the leader
// downs a member on rows alone. But rows travel by gossip, so a receiver
// cannot tell who first sent one, and any peer past the handshake can
// gossip a row under a live member's name: one forged row claiming a
// member unreachable had it removed in 4.1 s (issue 43, case 2).
//
// So, as a member refutes a newer life claimed of it, an observer refutes
// a row claimed of it: a row under this node's own life that differs from
// the one it holds is another process's word. It is not taken, and this
// node rewrites its own row, unchanged, at a version above the claim, which
// wins every merge, so the claim leaves every table within a round trip of
// gossip (2 (gossip_interval + spread), under T_refute). The leader waits
// down_after_unreachable on one observer's word, longer than that, so a
// row forged under one observer downs nobody. A version more than
// `max_jump` above the one held for its observer is refused outright, at
// every node, so no claim can take a row to the top of the range, where it
// could not be refuted.
//
// What this does not cover: rows forged under every observer of a member at
// once. Agreement among all expected observers shortens the leader's wait
// to down_after_confirmed (500 ms), less than a refutation takes to come
// back; and on a subject whose observers are all gone nobody refutes.
// docs/deploy.md's security model says so.
#pragma once

#include <cstdint>

#include "kernel/ids.hpp"
#include "kernel/membership/reachability.hpp"

namespace weft {

enum class RowVerdict : std::uint8_t {
  take,    // merge it (it may still lose to the row held)
  refute,  // a row under this node's own life that it did not write
  refuse,  // a version implausibly far above the held one
};

// `held`: this node's row of the same observer, if any.
RowVerdict judge_row(const ReachabilityRow& incoming, const ReachabilityRow* held, const MemberId& self,
                     std::uint64_t max_jump);

}  // namespace weft
