// Every knob of a weft node, in one plain struct, validated in one place and
// printed in one place. Defaults follow Akka's failure detector and
// memberlist's gossip cadence, scaled for a LAN; docs/tuning.md explains each.
//
// validate() returns every problem at once, each naming the field, what is
// wrong and how to fix it, so an operator fixes a config in one round.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel/authentication.hpp"
#include "kernel/detection/phi_detector.hpp"
#include "kernel/ids.hpp"
#include "kernel/time.hpp"

namespace weft {

// What a node does on learning the cluster downed it while it was alive.
enum class OnDowned : std::uint8_t {
  rejoin,    // take a new incarnation and join again (the default)
  shut_down  // stop taking part; the driver sees a shutdown event and exits
};

// What a full mailbox does with a new message.
enum class MailboxOverflow : std::uint8_t {
  reject_new,  // the new message becomes a dead letter (sender-visible back-pressure)
  drop_oldest  // the oldest queued message becomes a dead letter
};

// Deliberate defects, for showing that a property or checker can fail
// (docs/properties.md names, per property, the defect it catches). All off by
// default; never set them outside tests. Each names the guarantee it breaks.
struct Mutations {
  bool throttle_off = false;          // F5: every frame reaches the detector
  bool indirect_probes_off = false;   // F4: suspicion marks unreachable without asking others
  bool refutation_off = false;        // F3: an unreachable mark is never withdrawn
  bool replies_complete_twice = false;  // S2: a reply leaves its ask pending
  bool mailbox_unbounded = false;     // S4: mailboxes ignore their capacity
  bool control_behind_user = false;   // F2: heartbeats and gossip queue behind user frames
  bool merge_order_dependent = false; // M2: gossip overwrites a member instead of merging
  bool downing_off = false;           // F1: the leader never downs an unreachable member
  bool suspicion_delayed = false;     // F1: a probe waits 8 heartbeats longer before marking
  bool self_down_kept = false;        // M3: a node downed while alive neither rejoins nor stops
  bool duplicate_delivery = false;    // S1: every remote tell is delivered twice
  bool mailbox_lifo = false;          // S1: an actor takes its newest message first
  bool misroute_user = false;         // S1: user frames leave on the next member's link, and
                                      //     the receiver trusts the link over the envelope
  bool reply_body_stale = false;      // S2: a reply completes its ask with the previous reply's body
  bool ask_timeout_late = false;      // S2: asks time out 600 ms after their deadline
  bool ask_timeout_off = false;       // S2: asks never time out
  bool outbound_unbounded = false;    // S4: user frames queue past max_outbound_user_bytes
  bool heal_probe_off = false;        // M5: no digest to downed members or absent seeds
  bool liveness_behind_user = false;  // F2: only control frames are evidence of life, and they
                                      //     queue behind user frames (Akka's heartbeats behind
                                      //     large messages)
  bool ingest_guard_off = false;      // W3: any incarnation jump is plausible (memberlist#358)
  bool cluster_check_off = false;     // W3: a hello naming another cluster is taken
  bool convergence_off = false;       // M4: the leader never sees convergence (joiners stay joining)
  bool down_keeps_asks = false;       // S3: asks to a member going down wait for their timeout
  bool proof_check_off = false;       // W3: any handshake proof is taken as valid
  bool pause_floor_off = false;       // F3: once every observer confirms, the leader downs at once
  bool confirmation_off = false;      // F1: downing ignores confirmations (always down_after_unreachable)
  bool flap_guard_off = false;        // M7: a node lists itself unreachable when others' rows say
                                      //     so, and a probe started before a withdrawal re-marks
  bool joiners_up_late = false;       // M6: the leader moves joiners up only on its join-retry tick
                                      //     (once a join_retry_interval, as a leader-actions interval would)
  bool leader_ignores_reachability = false;  // F1: the leader is the lowest live address, reachable or not,
                                             //     so the side of a partition without it downs nobody
  bool downed_gossip_ignored = false; // M5: a state gossiped by a life this node holds down is dropped
                                      //     (as SWIM drops a dead member's word), so sides that downed
                                      //     each other never merge
  bool claim_refutation_off = false;  // W4: a node takes no newer life to refute a forged claim about
                                      //     itself: it refuses a newer incarnation, which keeps circulating,
                                      //     and takes a leave it never asked for
  bool nonce_reuse = false;           // W3: a node's handshake nonce is the same on every link, so a
                                      //     dialer's proof recorded from one link proves the next
  bool role_unbound = false;          // W3: the handshake transcript omits the prover's role, so the
                                      //     acceptor's proof reflected back passes as the dialer's

  bool dial_back_off = false;         // W3: without a key, a stranger's hello is taken at its word: its
                                      //     Join puts the address it named in the table, and every frame
                                      //     is answered by a dial there (an amplifier)
  bool held_life_unsaid = false;      // M4: a dialer answered by a hello older than the life proven at
                                      //     the address never tells it that life, so a node restarted
                                      //     below a life it took to refute a claim stays out
  bool tombstone_echo = false;        // M8: each node drops a tombstone at its own moment and remembers
                                      //     nothing of it, so a peer still holding it hands it back
  bool vouching_off = false;          // W5: every gossiped record counts as evidence of a member
                                      //     (vouched_lives.hpp), so invented members stall joins
  bool row_refutation_off = false;    // W4: a node drops a reachability row under its own name that it
                                      //     never wrote but does not rewrite its own above it
                                      //     (row_claims.hpp), so the forged row stays in every other table
  bool ingest_uncapped = false;       // W5: a peer brings in as many new members as it names
                                      //     (new_member_budget.hpp): one frame fills every table
  bool down_hold_off = false;         // W4: a down of a live member is taken as soon as it is heard,
                                      //     with no row behind it (down_claims.hpp), so one forged
                                      //     record downs a member everywhere
  bool incarnation_clock_off = false; // W4: a life above the clock plus incarnation_clock_skew is taken
                                      //     (life_ceiling.hpp), so a forger's claims walk a member's
                                      //     incarnation as far as max_incarnation_jump allows

  bool any() const { return *this != Mutations{}; }
  friend bool operator==(const Mutations&, const Mutations&) = default;
};

struct Config {
  // --- Identity
  std::string cluster_name = "weft";
  NodeAddress self;                  // where this node listens; required
  Incarnation incarnation{1};        // this life; a restart must use a larger one
  std::vector<NodeAddress> seeds;    // contact points to join through; may include self

  // --- Gossip
  Duration gossip_interval = Duration::milliseconds(200);
  std::uint32_t gossip_fanout = 3;   // peers per gossip round
  Duration join_retry_interval = Duration::seconds(1);
  // A link to a live member that is neither in this node's gossip view nor
  // one of its monitoring subjects closes after this long with nothing
  // queued for it, so links do not pile up as the view swaps.
  Duration link_idle_timeout = Duration::seconds(60);

  // --- Failure detection
  Duration heartbeat_interval = Duration::seconds(1);
  std::uint32_t monitored_by = 5;    // observers per member (ring successors)
  double phi_threshold = 8.0;
  Duration phi_min_std_deviation = Duration::milliseconds(100);
  Duration phi_acceptable_pause = Duration::seconds(3);
  std::uint32_t phi_max_sample_size = 1000;
  Duration liveness_window = Duration::milliseconds(50);  // LivenessThrottle
  std::uint32_t indirect_probes = 3; // helpers asked before marking unreachable
  Duration probe_timeout = Duration::milliseconds(500);
  // A gap between this node's own ticks longer than this means the node
  // itself was paused: its detectors forgive the silence.
  Duration self_pause_threshold = Duration::seconds(1);

  // --- Downing and removal
  // The leader downs an unreachable member after a wait that starts at
  // down_after_unreachable (one observer's word) and halves towards
  // down_after_confirmed with each further observer that agrees; once every
  // observer expected to judge the member agrees, down_after_confirmed.
  Duration down_after_unreachable = Duration::seconds(5);
  Duration down_after_confirmed = Duration::milliseconds(500);
  // How late a member resumed from a pause may answer a heartbeat it found
  // waiting (its round trip, with the clocks' drift over a few seconds):
  // a leader that watches a silent member downs it only once the heartbeat
  // it left unanswered is older than the forgiven pause plus this.
  Duration silence_slack = Duration::milliseconds(100);
  Duration remove_after_down = Duration::seconds(2);
  Duration tombstone_ttl = Duration::seconds(3600);
  // Lives whose tombstones were pruned, remembered so a peer still holding
  // one cannot bring it back (membership/forgotten_lives.hpp): at most this
  // many addresses, oldest forgotten first; 0 remembers none.
  std::size_t forgotten_lives = 4096;
  // Removed records (tombstones) a node keeps at once: past it the leader
  // drops the oldest early and the others follow (membership/tombstones.hpp),
  // so a forger's inventions cannot grow the table without bound.
  std::size_t max_tombstones = 10'000;
  OnDowned on_downed = OnDowned::rejoin;
  // Ingest guard: an incarnation more than this far above the one known for
  // an address is implausible (memberlist#358) and rejected.
  std::uint64_t max_incarnation_jump = 1ULL << 40;
  // Incarnations are start times in ms (weftd): the wall clock in ms when
  // this node started, read by its driver; 0 (the simulator's default): the
  // lives count from 1 and no clock bounds them. A life more than
  // incarnation_clock_skew above this node's estimate of the clock (this
  // plus the monotonic time since its start) is implausible and refused
  // (membership/life_ceiling.hpp), so a member's refutations raise its
  // incarnation no faster than the clock.
  std::uint64_t start_wall_ms = 0;
  Duration incarnation_clock_skew = Duration::seconds(3600);
  // Records of addresses new to this node that one peer may bring in per
  // gossip_interval (membership/new_member_budget.hpp); the rest wait for
  // the sender's next gossip. A joiner takes a cluster of this many members
  // from its seed in one exchange.
  std::uint32_t max_new_members_per_peer = 1000;

  // --- Links
  std::uint32_t max_frame_bytes = 1U << 20;
  std::uint64_t max_outbound_user_bytes = 8ULL << 20;     // per link
  std::uint64_t max_outbound_control_bytes = 4ULL << 20;  // per link
  // User bytes handed to the driver per write: the longest a heartbeat
  // waits behind user traffic is one such write.
  std::uint32_t max_write_bytes = 256U << 10;
  Duration reconnect_backoff_min = Duration::milliseconds(100);
  Duration reconnect_backoff_max = Duration::seconds(5);
  // An accepted link that has not sent its hello by then is closed: a
  // flood of idle connections costs nothing for long.
  Duration handshake_timeout = Duration::seconds(5);
  // At most this many accepted links may be waiting for their handshake at
  // once; one past it closes the oldest waiting (handshake_capacity). An
  // honest dialer finishes within a round trip, so a flood of connections
  // that say nothing evicts its own, not the honest ones. With TLS the
  // driver bounds its TLS handshakes by the same number.
  std::uint32_t max_pending_handshakes = 1024;
  Authentication auth;               // shared-secret handshake; off when it has no keys

  // --- Actors
  std::uint32_t mailbox_capacity = 1024;
  MailboxOverflow mailbox_overflow = MailboxOverflow::reject_new;
  std::uint32_t dispatch_batch = 64;      // messages per actor per turn
  std::uint32_t dispatch_budget = 4096;   // messages per kernel step, all actors
  std::uint32_t max_pending_asks = 65536;

  Mutations mutations;  // tests only

  PhiParameters phi_parameters() const;
  // Empty when valid; otherwise one line per problem.
  std::vector<std::string> validate() const;
  // key = value lines, one per field, in declaration order.
  std::string to_string() const;
};

// The time bounds of docs/properties.md, computed from a config and a
// cluster size in one place (docs/membership.md, "Bounds", derives each).
struct Bounds {
  Duration phi_trip;   // last heartbeat -> phi crosses the threshold (steady heartbeats)
  Duration spread;     // one change reaches every node by gossip
  Duration detect;     // T_detect: crash -> unreachable on every live node
  Duration down;       // T_down: crash -> down on every live node
  // A crash with its sockets closed (redials refused), every observer
  // confirming: -> down on every live node.
  Duration down_closed;
  // A pause no longer than this is never downed: the earliest an observer
  // marks a silent member (a settled detector trips near
  // phi_acceptable_pause + heartbeat_interval; the probe takes
  // probe_timeout) plus the shortest wait to down.
  Duration forgiven_pause;
  Duration converge;   // T_converge: last fault -> identical views
  Duration heal;       // T_heal: partition heals -> one view again
  // T_refute: a forged claim about a live member (a newer incarnation, a
  // leave it never asked for) -> one view again, the member live in a life
  // above the forged one: the claim spreads to the member, which refutes
  // within a round (at most one new life a gossip_interval), the new life
  // spreads, and the leader's up spreads.
  Duration refute;
  // T_vouch: members invented by a peer (records no member vouches for,
  // membership/vouched_lives.hpp) -> down on every node: they reach the
  // leader, it downs them after down_after_unreachable, the downs spread.
  Duration vouch;
};

Bounds compute_bounds(const Config& config, std::size_t cluster_size);
// The longest silence forgiven as a pause (Bounds::forgiven_pause).
Duration forgiven_pause(const Config& config);

// Gossip rounds for one change to reach all of `cluster_size` nodes with
// push-pull to `fanout` peers a round: log base (fanout + 1), doubled, plus
// a margin for unlucky peer choices.
std::uint32_t gossip_rounds_to_spread(std::size_t cluster_size, std::uint32_t fanout);

}  // namespace weft
