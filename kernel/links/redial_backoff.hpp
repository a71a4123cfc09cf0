// RedialBackoff: when this node may next dial one peer address, and how
// long it waits after the next lost link. Each outbound record of the link
// table (kernel/links/link_table.hpp) holds one; the Kernel tells it what
// happened (kernel/kernel_links.cpp) and the link table dials the record
// once next_attempt() has come.
//
// Model: capped exponential backoff with jitter, reset by a valid hello.
//   - A new record dials at once, with wait = min.
//   - A lost link (refused, failed or dropped: handle_link_down) schedules
//     the next dial at now + wait + jitter, the jitter drawn uniformly from
//     [0, wait / 4] with the kernel's PRNG, and then doubles wait up to max.
//     So the k-th loss in a row waits min * 2^(k-1), capped at max, plus up
//     to a quarter more.
//   - A valid hello from that address resets wait to min: the acceptor's
//     hello reply on our link (the link worked), or the peer's hello on a
//     link it dialed us (it listens again). The second also brings a dial
//     still waiting forward to now (hurry()).
//   - A record closed and revived before the sweep erased it keeps its wait
//     and dials after it, without jitter and without doubling (wait_from()).
//
// Properties served: a peer back after a partition or a restart is redialled
// within max + max/4 of its return even without a hello from it (T_merge in
// sim/partition_checker.hpp counts on it), while a dead peer costs at most
// one dial per max; the jitter keeps the nodes of a healed partition from
// all redialling in the same instant.
//
// Invariant: 0 < min <= wait <= max.
#pragma once

#include "kernel/assert.hpp"
#include "kernel/prng.hpp"
#include "kernel/time.hpp"

namespace weft {

class RedialBackoff {
 public:
  struct Options {
    Duration min;  // the first wait, and the wait after a reset
    Duration max;  // the cap
  };

  // A record that dials at `first_attempt`.
  RedialBackoff(Options options, Instant first_attempt);

  // The earliest instant the record may dial (while it is idle).
  Instant next_attempt() const { return next_attempt_; }
  // The wait before the next dial after the next loss (jitter aside).
  Duration wait() const { return wait_; }
  const Options& options() const { return options_; }

  // The link was lost at `now`: the next dial waits `wait` and a jitter
  // drawn from `prng`, and the wait doubles, up to max.
  void lost(Instant now, Prng& prng);
  // Revived at `now` after a close: dial after the current wait.
  void wait_from(Instant now);
  // A valid hello from the address: the next loss waits min again.
  void reset();
  // The peer dialed us at `now`, so it is listening: a dial still waiting
  // goes at `now`. Returns whether the dial was brought forward.
  bool hurry(Instant now);

 private:
  void check() const {
    WEFT_ASSERT(options_.min > Duration::zero());
    WEFT_ASSERT(options_.min <= wait_ && wait_ <= options_.max);
  }

  Options options_;
  Duration wait_;
  Instant next_attempt_;
};

}  // namespace weft
