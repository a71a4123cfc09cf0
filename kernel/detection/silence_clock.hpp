// The silence clock: since when a watched subject has provably been
// silent, for the leader's floor under downing (leader_actions.hpp).
//
// Model. Two clocks, the earlier counts:
//   unanswered  the first heartbeat this node sent after it last heard the
//               subject. A subject running when it arrived answers at once,
//               so while it stays unanswered the subject has been silent
//               since about then (a round trip later at most).
//   missed      when the subject's own next heartbeat was due: the last one
//               that reached this node plus the larger of heartbeat_interval
//               and the gap before it (a member configured to heartbeat less
//               often is not held silent early). Known once two have come.
// A frame heard after a clock's instant voids it: the subject was running
// then. For `missed`, frames before the due time change nothing, and one
// after it means the subject no longer heartbeats this node (its ring
// moved). With neither clock standing, nothing proves a silence.
//
// Property served: F3, a forgiven pause is never downed, with a floor of
// the forgiven pause plus silence_slack from a proven silence instead of a
// whole heartbeat interval more from the last frame heard
// (docs/failure-detection.md).
#pragma once

#include <optional>

#include "kernel/time.hpp"

namespace weft {

class SilenceClock {
 public:
  // This node sends the subject a heartbeat at `now`; `heard` is when it
  // last heard the subject, if ever.
  void heartbeat_sent(Instant now, std::optional<Instant> heard);
  // The subject's own heartbeat reached this node at `now`.
  void heartbeat_received(Instant now);
  // This node was paused: its heartbeats went unsent and answers may wait
  // unread, so neither clock proves anything.
  void forget();

  // Since when the subject has provably been silent, given when this node
  // last heard it; none while nothing proves a silence.
  std::optional<Instant> silent_since(std::optional<Instant> heard, Duration heartbeat_interval) const;

 private:
  std::optional<Instant> unanswered_since_;
  std::optional<Instant> heartbeat_in_;
  std::optional<Duration> heartbeat_gap_;
};

}  // namespace weft
