// Indirect probes: before a node blames a subject, it asks others whether
// they can reach it (SWIM's ping-req; foca's probe.rs).
//
// Model. When a subject's phi crosses the threshold (or its redial is
// refused), its monitor probes it directly once more and asks up to
// `indirect_probes` helpers (live members it counts as reachable) to probe
// it too. Two records per probe, one on each side:
//   asked    this node suspects `subject`: open until `deadline`. A direct
//            probe_ack, or a probe_alive from one of the helpers asked,
//            closes it (the subject lives; an alive from anyone else names
//            no record, as foca counts only the members it asked); at the deadline, a subject heard from since the probe
//            started is spared and any other is condemned: the record stays,
//            condemned, for one more wait (the leader's longest), so that a
//            helper's late probe_alive can still withdraw the mark.
//   helping  another node asked this one: a probe_ack from the subject
//            before `deadline` is passed on to the asker as probe_alive;
//            after it, the request is forgotten (silence is the answer).
// Ids come from one counter for both kinds, never reused within the
// kernel's lifetime (not even across a rejoin), so an answer names exactly
// one record, and a stale answer names none.
//
// Property served: F4, one broken link between two healthy nodes downs
// neither: the helpers' path avoids the broken link, so only a subject that
// nobody can reach is marked. Also F3: a node that was paused itself gives
// its asked probes a fresh wait (postpone), so its own silence blames
// nobody; and M7: the kernel refuses a mark from a probe that started
// before the subject's last withdrawal (it keeps `started` for that).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "kernel/ids.hpp"
#include "kernel/prng.hpp"
#include "kernel/time.hpp"

namespace weft {

struct ProbeAsked {
  MemberId subject;
  Instant started;
  Instant deadline;
  std::vector<NodeAddress> helpers;  // asked to vouch; sorted
  // Timed out and condemned the subject; kept until `deadline` so that a
  // helper's late answer can still withdraw the mark.
  bool condemned = false;
};

struct ProbeHelping {
  MemberId asker;
  std::uint64_t asker_probe = 0;  // the asker's probe id, quoted back in probe_alive
  MemberId subject;
  Instant deadline;
};

// A probe that went unanswered: its subject, and when the probe started.
struct CondemnedProbe {
  MemberId subject;
  Instant started;
};

// What a probe_alive meant to this node's own probe.
enum class AliveAnswer : std::uint8_t {
  unknown,  // no open probe of that id and subject: stale or forged
  in_time,  // answered before the deadline: the subject was never marked by it
  late,     // answered after the probe condemned the subject: withdraw the mark
};

class IndirectProbes {
 public:
  // Up to `count` helpers drawn from `candidates` without replacement, in
  // the order drawn (one bounded draw per pick).
  static std::vector<NodeAddress> pick_helpers(std::vector<NodeAddress> candidates, std::uint32_t count,
                                               Prng& prng);

  // This node suspects `subject` at `now` and asks `helpers` to vouch for
  // it; the probe is open for `wait`. Returns its id, for the probe and the
  // helpers' requests.
  std::uint64_t ask(const MemberId& subject, Instant now, Duration wait, std::vector<NodeAddress> helpers);
  // `asker` asked this node to probe `subject` (its probe `asker_probe`),
  // answering by `deadline`. Returns the id of this node's own probe.
  std::uint64_t help(const MemberId& asker, std::uint64_t asker_probe, const MemberId& subject, Instant deadline);

  // A probe_ack for probe `id` arrived from `from`. If it answers a request
  // this node helps with, returns that request (closed): the asker is owed
  // a probe_alive. If it answers this node's own probe, closes it.
  std::optional<ProbeHelping> on_ack(const NodeAddress& from, std::uint64_t id);
  // `from` vouches for `subject` under this node's probe `id`; it counts
  // only if `from` is one of the helpers that probe asked.
  AliveAnswer on_alive(const NodeAddress& from, std::uint64_t id, const MemberId& subject);

  // Closes what is due at `now`: asked probes whose subject
  // `heard_since(subject, started)` are spared; the others are condemned,
  // kept `keep_condemned` longer, and returned in id order; probes already
  // condemned, and requests this node helps with, are forgotten.
  std::vector<CondemnedProbe> expire(Instant now, Duration keep_condemned,
                                     const std::function<bool(const MemberId&, Instant)>& heard_since);
  // This node was paused: no asked probe falls due before `at`.
  void postpone(Instant at);
  // Forgets every probe (a rejoin); ids keep counting.
  void clear();

  Instant next_deadline() const;
  const std::map<std::uint64_t, ProbeAsked>& asked() const { return asked_; }
  const std::map<std::uint64_t, ProbeHelping>& helping() const { return helping_; }

 private:
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, ProbeAsked> asked_;      // this node suspects
  std::map<std::uint64_t, ProbeHelping> helping_;  // this node helps
};

}  // namespace weft
