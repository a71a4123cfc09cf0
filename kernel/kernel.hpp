// The weft kernel: one node's membership, failure detection and messaging,
// as a pure state machine. No clock, socket, thread or unseeded randomness:
// a driver (io/ for real sockets, sim/ for the simulator) feeds it inputs
// stamped with `now` and drains what it produces.
//
// The methods come in four kinds:
//   getters            const; never change state
//   handle_*(now, ..)  something happened: a link came up or went down,
//                      bytes arrived, time passed
//   user commands      spawn, tell, ask, leave (also stamped with now)
//   poll_*()           what the kernel wants done: link commands, bytes to
//                      transmit, events; plus next_deadline()
//
// Calling order. After every input or command the driver drains, in this
// order, until each returns nothing:
//   1. poll_command()   connect / close links
//   2. poll_transmit()  bytes per link, control frames ahead of user frames;
//                       one write in flight per link: a link is lent bytes
//                       again only after handle_sent(now, link)
//   3. poll_event()     membership, reachability, ask completions, dead letters
// and then arms its timer for next_deadline(), calling handle_tick(now) when
// it fires (or earlier: extra ticks are harmless). `now` must never decrease.
// A kernel with user messages still to dispatch reports next_deadline() ==
// the current time, so one busy actor never starves the rest: messages are
// dispatched in bounded batches, one batch per call.
//
// Links. Each node sends only on the links it dials (outbound) and reads
// what peers send on links they dial (inbound), so per (sender, receiver)
// pair there is exactly one ordered byte stream. Every link starts with a
// hello each way; the dialer may send right behind its hello, unless links
// are authenticated (kernel/authentication.hpp): then it sends its proof
// once the acceptor's hello has proven the acceptor, and only then the rest.
// A link that goes down is redialled after a capped exponential backoff; a
// hello from the peer on a link it dialed resets that backoff and ends the
// wait.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernel/actors/actor_timers.hpp"
#include "kernel/actors/ask_table.hpp"
#include "kernel/actors/behavior.hpp"
#include "kernel/actors/mailbox.hpp"
#include "kernel/authentication.hpp"
#include "kernel/config.hpp"
#include "kernel/detection/indirect_probes.hpp"
#include "kernel/detection/liveness_throttle.hpp"
#include "kernel/detection/monitoring_ring.hpp"
#include "kernel/detection/phi_detector.hpp"
#include "kernel/events.hpp"
#include "kernel/links/link_table.hpp"
#include "kernel/membership/dial_backs.hpp"
#include "kernel/membership/down_claims.hpp"
#include "kernel/membership/leader_actions.hpp"
#include "kernel/membership/life_ceiling.hpp"
#include "kernel/membership/member_table.hpp"
#include "kernel/membership/reachability.hpp"
#include "kernel/membership/seen_set.hpp"
#include "kernel/membership/new_member_budget.hpp"
#include "kernel/membership/row_claims.hpp"
#include "kernel/membership/tombstones.hpp"
#include "kernel/membership/vouched_lives.hpp"
#include "kernel/prng.hpp"
#include "kernel/timers.hpp"
#include "kernel/wire/frame.hpp"
#include "kernel/wire/message.hpp"

namespace weft {

struct Transmit {
  LinkId link;
  // Valid until handle_sent(now, link), or until the link is closed or down.
  std::span<const std::uint8_t> bytes;
};

// Counters for observability and for the simulator's checkers.
struct KernelCounters {
  std::uint64_t frames_in = 0;
  std::uint64_t frames_out = 0;
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  std::uint64_t observations_passed = 0;      // reached a phi detector
  std::uint64_t observations_throttled = 0;   // held back by the LivenessThrottle
  std::uint64_t user_messages_dispatched = 0;
  std::uint64_t gossip_states_sent = 0;
  std::uint64_t gossip_deltas_sent = 0;  // answers to a state, and seen sets alone
  std::uint64_t links_closed[kAllCloseReasons.size()] = {};
  std::uint64_t wire_errors[wire::kAllWireErrors.size()] = {};
  std::uint64_t dead_letters[kDeadLetterReasonCount] = {};
  std::uint64_t marks[kMarkCount] = {};
  std::uint64_t ingest_rejected = 0;
  // Of those, records of a life whose tombstone this node pruned (a peer
  // still holding it, or a forger resending it): refused, not revived.
  std::uint64_t forgotten_lives_refused = 0;
  // Records of addresses new to this node past what their sender may bring
  // in a gossip_interval (membership/new_member_budget.hpp): not taken, so
  // an honest sender's next gossip brings them.
  std::uint64_t new_members_deferred = 0;
  // Without a key: frames from a stranger (a dialer whose address holds no
  // record here) dropped while this node's dial to that address had not
  // been answered by the life its hello named (membership/dial_backs.hpp),
  // and of those, frames that found max_pending_handshakes dials waiting.
  std::uint64_t stranger_frames_unanswered = 0;
  std::uint64_t dial_backs_full = 0;
  // New lives this node took to refute a claim about itself that only it
  // may make (a newer incarnation, a leave it never asked for).
  std::uint64_t refutations = 0;
  // Hellos whose dialer held a life of this node's address above its own
  // (wire::Hello::held_incarnation): heard as claims to refute.
  std::uint64_t held_lives_heard = 0;
  // Reachability rows under this node's life that it did not write
  // (membership/row_claims.hpp): refuted by rewriting its own above them.
  std::uint64_t rows_refuted = 0;
  // Downs of a life this node holds live, heard with no row marking it
  // unreachable (membership/down_claims.hpp): held for their subject to
  // refute, and sent to it. Counted once per claim.
  std::uint64_t downs_held = 0;
  // Downs of this node's own life with no evidence that it was cut off:
  // refuted with a new life, under on_downed = shut_down too.
  std::uint64_t downs_refuted = 0;
  // Gossiped lives above this node's estimate of the clock plus
  // incarnation_clock_skew (membership/life_ceiling.hpp): refused, never
  // refuted. (A hello above it closes its link implausible_incarnation.)
  std::uint64_t lives_above_clock = 0;
  // Gossip answers not sent because all they would repeat is a record this
  // node refused: sent, the peer would answer with the record again.
  std::uint64_t gossip_replies_withheld = 0;
  // Control frames not queued because they exceed max_frame_bytes: the
  // gossip state outgrew the frame (about 40 bytes a member), so this node
  // cannot gossip its state until max_frame_bytes is raised.
  std::uint64_t control_too_large = 0;
  // Authenticated links the dialer dropped after our proof and before its
  // own: usually a dialer holding none of our keys (it counts bad_proof).
  std::uint64_t handshakes_abandoned = 0;
  std::uint64_t mailbox_high_water = 0;  // deepest any mailbox has been (weftd's metrics)
};

class Kernel {
 public:
  // The config must be valid (Config::validate() empty): drivers validate
  // and report before constructing. `seed` feeds the kernel's own PRNG.
  Kernel(Config config, std::uint64_t seed);
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  // --- getters
  const Config& config() const { return config_; }
  const MemberId& self() const { return self_; }
  MemberStatus self_status() const;
  const MemberTable& members() const { return members_; }
  // This node's actor named `name` as its behaviour, or nullptr: what
  // Context::local_behavior gives an actor, for a driver's sends. Actors
  // are never destroyed before their kernel.
  Behavior* local_behavior(std::string_view name) const;
  // Whether a handshake here established `life` or a newer life of its
  // address: first-hand, where a gossiped record is hearsay.
  bool proven(const MemberId& life) const;
  // The highest life this node finds plausible now (membership/
  // life_ceiling.hpp); none without Config::start_wall_ms.
  std::optional<std::uint64_t> life_ceiling() const { return life_ceiling_.at(now_); }
  const ReachabilityTable& reachability() const { return reachability_; }
  // Every live member this node counts as reachable holds exactly this
  // node's state (the seen set covers them).
  bool converged() const;
  // The lowest-address live, reachable member: the one that moves members
  // up, out and down in this node's part of the cluster.
  std::optional<NodeAddress> leader() const;
  bool is_unreachable(const MemberId& subject) const;
  std::uint64_t state_digest() const { return digest_; }
  // The members known to hold exactly this node's state (its seen set).
  std::vector<MemberId> seen_by() const;
  // The peers gossip's uniform picks come from, sorted; as of the last
  // gossip round (members gone since are dropped at the next).
  std::span<const NodeAddress> gossip_view() const { return gossip_view_.addresses; }
  const KernelCounters& counters() const { return counters_; }
  bool is_shut_down() const { return shut_down_; }
  // The subjects this node monitors (its ring successors), in order.
  std::vector<MemberId> monitored_subjects() const;
  // phi for a monitored subject (0 if not monitored).
  double phi(const MemberId& subject, Instant now) const;
  // The detector judging a monitored subject; nullptr if not monitored.
  const PhiDetector* detector(const MemberId& subject) const;
  std::size_t mailbox_size(std::string_view actor) const;
  // The behavior of the local actor spawned under `actor`; nullptr if none.
  // For the simulator's workloads, which check the state of actors another
  // party spawned (sim/application_actors.hpp); never for actor code.
  Behavior* behavior(std::string_view actor);
  // The most messages any one actor's mailbox holds now, in O(actors): a
  // checker that reads mailboxes after every input reads this one number
  // rather than looking each actor up by name.
  std::size_t deepest_mailbox() const;
  std::size_t pending_asks() const { return asks_.size(); }
  std::size_t outbound_bytes_queued(const NodeAddress& peer) const;

  // --- inputs
  // A peer connected to us; returns the id the driver must use for it.
  // `peer_names`: the names (IP addresses, DNS names) the peer's verified
  // TLS certificate gives, where the driver checks them; the host its
  // hello names must be one of them (else wrong_name). nullopt: unchecked.
  LinkId handle_link_accepted(Instant now, std::optional<std::vector<std::string>> peer_names = std::nullopt);
  // A link we asked for (ConnectCommand) is connected; `peer_names` as
  // above, against the host we dialed.
  void handle_link_up(Instant now, LinkId link, std::optional<std::vector<std::string>> peer_names = std::nullopt);
  // A link is gone (or a connect failed).
  void handle_link_down(Instant now, LinkId link, LinkDownCause cause);
  // Bytes read from a link; on a link we dialed, only after handle_link_up
  // (asserted: a peer writes only once it has read our hello).
  void handle_bytes(Instant now, LinkId link, std::span<const std::uint8_t> bytes);
  void handle_tick(Instant now);
  // The bytes poll_transmit() last lent for `link` have been written (the
  // socket took them). Until then that link is lent nothing more: what is
  // produced meanwhile queues in the kernel, control ahead of user, within
  // the outbound bounds. This is the driver's backpressure.
  void handle_sent(Instant now, LinkId link);

  // --- user commands
  // Registers an actor under `name` on this node (names are unique).
  ActorRef spawn(Instant now, std::string name, std::unique_ptr<Behavior> behavior);
  // One-way message; `sender` may be empty (no actor).
  SendResult tell(Instant now, const ActorRef& target, std::uint32_t type_tag,
                  std::span<const std::uint8_t> body);
  // Request-response from outside any actor; completes exactly once as an
  // AskCompleted event with this id.
  // `sent`, if given, says how the send went (Context::ask_reporting).
  AskId ask(Instant now, const ActorRef& target, std::uint32_t type_tag,
            std::span<const std::uint8_t> body, Duration timeout, SendResult* sent = nullptr);
  // Graceful leave: leaving -> exiting -> removed, then a ShutdownEvent.
  void leave(Instant now);
  // Key rotation without a restart (weftd's SIGHUP): the keys handshakes
  // from now on sign with (the first) and accept (any); links already up
  // stay. Refused, with the reason, if it would turn authentication on or
  // off: that is a local setting every peer must share, so a restart of
  // every node (docs/deploy.md).
  bool replace_auth_keys(std::vector<AuthKey> keys, std::string& error);

  // --- outputs
  std::optional<LinkCommand> poll_command();
  std::optional<Transmit> poll_transmit();
  std::optional<Event> poll_event();
  Instant next_deadline() const;

 private:
  class ActorContext;
  struct Actor;
  // The link records and their table: kernel/links/link_table.hpp.
  using Outbound = OutboundLink;
  using Inbound = InboundLink;
  using OutboundIt = LinkTable::OutboundIt;
  using InboundIt = LinkTable::InboundIt;

  // kernel.cpp: clock, ticks, outputs, and what a peer's message means
  void advance(Instant now);
  // The owned timers (timers_) with the derived ones read from their
  // structures (kernel/timers.hpp).
  TimerTable timers() const;
  Instant earliest_probe_deadline() const;
  void on_message(const MemberId& peer, wire::Message&& message);
  void mark(Mark m);

  // kernel_links.cpp: dialing, handshakes, reading frames off links,
  // closing them and lending their bytes. The records, their states and
  // their bookkeeping are in kernel/links/.
  Outbound& outbound(const NodeAddress& peer);
  template <class Message>
  void send_control(const NodeAddress& peer, const Message& message);
  void connect_due(Instant now);
  void redial_now(const NodeAddress& peer);
  void close_outbound(const NodeAddress& peer, CloseReason reason,
                      wire::WireError error = wire::WireError::none);
  void close_inbound(LinkId link, CloseReason reason, wire::WireError error = wire::WireError::none);
  void count_close(CloseReason reason, wire::WireError error);
  void expire_handshakes();
  void inbound_down(InboundIt it, LinkDownCause cause);
  void outbound_down(OutboundIt it, LinkDownCause cause);
  void suspect_refused(const NodeAddress& peer);
  void read_inbound(InboundIt it, std::span<const std::uint8_t> bytes);
  void read_outbound(OutboundIt it, std::span<const std::uint8_t> bytes);
  void on_inbound_frame(InboundIt it, std::span<const std::uint8_t> payload);
  void on_outbound_frame(OutboundIt it, std::span<const std::uint8_t> payload);
  wire::Hello make_hello(std::array<std::uint8_t, wire::kNonceBytes> nonce) const;
  std::array<std::uint8_t, wire::kNonceBytes> fresh_nonce();
  // The role a proof's transcript names: the prover's, or under the
  // role_unbound mutation always the dialer's (the transcript binds no role).
  HandshakeRole transcript_role(HandshakeRole prover) const;
  void on_hello(InboundIt it, const wire::Hello& hello);
  void on_hello_proof(InboundIt it, const wire::HelloProof& proof);
  void accept_peer(InboundIt it, const MemberId& peer);
  bool proof_holds(std::span<const std::uint8_t> proof, HandshakeRole prover, const HelloSide& dialer,
                   const HelloSide& acceptor) const;
  std::optional<CloseReason> check_hello(const wire::Hello& hello) const;
  // A handshake here established `life` (or a newer life of its address).
  void note_proven(const MemberId& life);
  // Without a key, whether a frame from `peer`, whose address holds no
  // record here, waits for our dial to that address to be answered
  // (membership/dial_backs.hpp); `join` keeps a Join.
  bool held_for_dial_back(const MemberId& peer, bool join);
  // Whether our dial to `life.address` was answered by `life` and is open.
  bool dial_answered(const MemberId& life) const;
  // Whether the established link's peer has a record here (cached per link).
  bool known_peer(Inbound& in) const;
  // A dialer said it holds `held` for our address: above our life, a
  // claim about us (a restart below a life we took to refute one).
  void hear_held_life(std::uint64_t held);
  void dial_stale_address(const NodeAddress& address);
  // New evidence may have vouched for members: the views, the ring and the
  // gossip targets follow (vouched_lives.hpp).
  void on_vouching_changed();
  // Monitors and the reachability view, recomputed until they agree.
  void settle_monitors();
  void update_excused_view();

  // kernel_membership.cpp: join, gossip, applying the leader's moves, rejoin
  void start_membership();
  void on_state_changed();
  void apply_status(const NodeAddress& address, MemberStatus status);
  void on_gossip_digest(const MemberId& from, const wire::GossipDigest& digest);
  void merge_gossip(const MemberId& from, wire::GossipState&& state);
  void merge_gossip_delta(const MemberId& from, wire::GossipDelta&& delta);
  bool ignores_gossip_from(const MemberId& from) const;
  // Merges what a peer sent; returns the addresses whose records were refused.
  std::vector<NodeAddress> take_in(const NodeAddress& from, std::vector<Member>&& records,
                                   std::span<const ReachabilityRow> rows, MemberTable& incoming,
                                   ReachabilityTable& incoming_rows);
  bool overwrite_members(const MemberTable& incoming);
  bool accept_record(const Member& incoming) const;
  // `known`: our record of its address; `newest`: the highest incarnation
  // in our table (a record of an address we hold nothing of is judged
  // against it: an implausible squat).
  // `rows`: the rows that came with it (a row marking this node is evidence
  // that a down of it may be real).
  bool accept_record(const Member& incoming, const Member* known, Incarnation newest,
                     std::span<const ReachabilityRow> rows = {}) const;
  Incarnation newest_incarnation() const;
  // Records `from` sent: those the ingest guard or `from`'s budget of new
  // members refuses are left out and named in `refused`.
  // A down without evidence is held (membership/down_claims.hpp): named in
  // `refused`, and in `to_subjects` the first time it is heard. `rows`:
  // the rows that came with the records.
  MemberTable accept_records(const NodeAddress& from, std::vector<Member>&& records,
                             std::span<const ReachabilityRow> rows, std::vector<NodeAddress>& refused,
                             std::vector<Member>& to_subjects);
  // A row held here or in `rows` marks `life` unreachable, or nothing here
  // vouches for it: a down of it needs no wait for its subject.
  bool down_has_evidence(const MemberId& life, std::span<const ReachabilityRow> rows) const;
  // This node heard its own life down, with `rows`: was it cut off (down_claims.hpp)?
  bool was_cut_off(std::span<const ReachabilityRow> rows) const;
  // A life above the clock plus incarnation_clock_skew (life_ceiling.hpp).
  bool above_clock(std::uint64_t incarnation) const;
  // compute_bounds for the table's size now, kept until the size changes:
  // the downs held, the cut-off window and crowded tombstones read it.
  const Bounds& bounds_now() const;
  // A refused record about this node that another process may not make:
  // notes the life a refutation must rise above.
  void note_claim_about_self(const Member& claim);
  void emit_member_changes(const std::vector<Member>& before);
  void gossip_round();
  void refresh_gossip_targets();
  // True iff refresh_gossip_targets() would list a peer (some other member is live).
  bool has_live_peer() const;
  void refresh_gossip_view();
  std::uint32_t add_to_gossip_view();
  void drop_from_gossip_view(std::optional<std::uint32_t> kept = std::nullopt);
  void hasten_gossip(bool is_converged);
  void heal_probe();
  const std::vector<NodeAddress>& heal_candidates();
  void join_attempt();
  void close_idle_links(bool joining);
  void close_idle_member_links();
  void close_idle_inbound();
  void check_unlive_links() const;
  void send_gossip_state(const NodeAddress& peer);
  void send_gossip_delta(const NodeAddress& peer, const MemberTable& theirs, const ReachabilityTable& their_rows,
                         const std::vector<NodeAddress>& refused);
  void send_delta(const NodeAddress& peer, std::span<const Member> members, std::span<const ReachabilityRow> rows);
  void leader_actions();
  void on_seen_grew();
  // `holder` holds this node's state: its bit in the seen set, if it is a
  // record of the table. True if that is news.
  bool add_seen(const MemberId& holder);
  void check_self_status();
  void rejoin();
  // A Join from `joiner` (with a key, or once our dial to it was answered):
  // its record joining, and our state to it.
  void take_joiner(const MemberId& joiner);
  void refute();
  void take_new_life(Incarnation above);
  void shut_down(bool downed);
  void prune_gone();
  void drop_tombstones(const std::vector<NodeAddress>& addresses);
  void follow_leader_tombstones(const std::vector<NodeAddress>& leaders_addresses);
  void update_reachability_view();
  bool counts_as_observer(const MemberId& observer) const;
  MemberStanding standing(const Member& member) const;
  DownEvidence down_evidence(const MemberId& subject, Instant unreachable_since) const;
  bool is_gone(const MemberId& id) const;
  bool is_live(const NodeAddress& address) const;

  // kernel_detection.cpp: monitors, heartbeats, probes
  void refresh_monitors();
  void heartbeat_round();
  void observe(const MemberId& peer);
  void observe_inbound(Inbound& link);
  void observe_monitor(const MemberId& peer, Monitor& monitor);
  void check_detectors();
  void start_probe(const MemberId& subject);
  void on_heartbeat(const MemberId& from, const wire::Heartbeat& heartbeat);
  void on_probe_request(const MemberId& from, const wire::ProbeRequest& request);
  std::optional<Instant> last_heard(const NodeAddress& peer) const;
  void on_probe_ack(const MemberId& from, const wire::ProbeAck& ack);
  void on_probe_alive(const MemberId& from, const wire::ProbeAlive& alive);
  void expire_probes();
  void withdraw_mark(Monitor& monitor);
  void forgive_own_pause();

  // kernel_actors.cpp: local delivery, remote sends, asks, dispatch
  // `slot_hint`: the target ref's local_slot, trusted only once checked.
  // `urgent`: queued with the link's control frames (Context::tell_urgent).
  SendResult send_user(const wire::Envelope& envelope, std::uint32_t slot_hint = ActorRef::kNoSlot,
                       bool urgent = false);
  SendResult deliver_local(std::string_view actor, const Delivery& delivery,
                           std::uint32_t slot_hint = ActorRef::kNoSlot);
  std::uint32_t spawned_slot(const ActorRef& target) const;
  SendResult deliver_to(std::uint32_t actor, const Delivery& delivery);
  void on_envelope(const MemberId& peer, const wire::Envelope& envelope);
  void complete_ask(const PendingAsk& ask, AskOutcome outcome, std::uint32_t type_tag,
                    std::span<const std::uint8_t> body);
  void fail_asks_to(const NodeAddress& node);
  void expire_asks();
  Instant next_ask_expiry() const;
  Duration ask_expiry_delay() const;  // zero unless mutations.ask_timeout_late
  void dispatch();
  // A kind with no sender, body or id (members_changed, timer) for `actor`,
  // ahead of its user messages.
  void deliver_system(std::uint32_t actor, DeliveryKind kind, std::uint32_t type_tag);
  void fire_actor_timers();
  void notify_member_watchers();
  void dead_letter(DeadLetterReason reason, const ActorRef& target, std::uint32_t type_tag);
  AskId start_ask(Asker asker, const wire::ActorRefView& sender, const ActorRef& target,
                  std::uint32_t type_tag, std::span<const std::uint8_t> body, Duration timeout,
                  SendResult* sent = nullptr);

  Config config_;
  Prng prng_;
  MemberId self_;
  Instant now_;
  bool started_ = false;
  bool shut_down_ = false;
  bool leaving_ = false;
  TimerTable timers_;  // the owned timers; timers() adds the derived ones

  // Membership state (the gossip payload) and its bookkeeping.
  MemberTable members_;
  ReachabilityTable reachability_;
  std::uint64_t digest_ = 0;
  SeenSet seen_;                                 // who holds exactly this state
  struct GossipTargets {
    bool valid = false;
    std::uint64_t members_version = 0;
    std::uint64_t seen_version = 0;
    std::uint64_t vouched_version = 0;
    std::uint64_t rebuilds = 0;         // moves on whenever the indices may have moved
    std::vector<std::uint32_t> peers;   // indices into members_.members()
    std::vector<std::uint32_t> unseen;  // the subset of peers not in seen_
  };
  GossipTargets gossip_targets_;                 // refresh_gossip_targets()
  // The few peers gossip's uniform picks come from (refresh_gossip_view).
  struct GossipView {
    std::vector<NodeAddress> addresses;   // sorted
    std::vector<std::uint32_t> indices;   // the same members, as indices into members_.members()
    std::uint64_t targets_rebuild = UINT64_MAX;  // the gossip_targets_.rebuilds indices match
    std::uint32_t rounds_since_swap = 0;
  };
  GossipView gossip_view_;
  Instant next_idle_check_;                      // close_idle_member_links() runs no sooner
  struct HealCandidates {
    bool valid = false;
    std::uint64_t members_version = 0;
    std::uint64_t evidence_version = 0;  // VouchedLives::evidence_version()
    std::vector<NodeAddress> addresses;  // sorted
  };
  HealCandidates heal_candidates_;               // heal_candidates()
  std::map<NodeAddress, Instant> unreachable_since_;
  std::map<NodeAddress, Instant> down_since_;
  std::vector<MemberId> unreachable_view_;       // sorted; for ReachabilityEvents
  std::vector<NodeAddress> sorted_seeds_;        // config_.seeds, sorted and unique
  // Outbound links opened or revived while their address was not a live
  // member (seeds tried, heal probes, replies to strangers): the only links
  // close_idle_links can close, since a member leaving live status has its
  // link closed at once (emit_member_changes).
  std::set<NodeAddress> unlive_links_;
  Instant last_gossip_;                          // when gossip_round last ran
  // The highest incarnation a refused claim gave this node's address, until
  // a new life above it is taken; no sooner than next_refutation_, so a
  // forger who keeps claiming costs at most one new life a gossip_interval.
  std::optional<Incarnation> refute_above_;
  // The newest life of each address a handshake established here, kept
  // while the address is in the table (prune_gone drops the rest).
  std::map<NodeAddress, Incarnation> proven_lives_;
  // Addresses whose last answer to our dial was a hello older than the
  // life proven there: the next hello we send there names that life
  // (wire::Hello::held_incarnation), so a process restarted below it
  // hears what it must pass. Kept while the address is in the table.
  std::map<NodeAddress, Incarnation> stale_answers_;
  Tombstones tombstones_;                        // when each removal was seen; the lives dropped
  DialBacks dial_backs_;                         // keyless strangers waiting for our dial's answer
  NewMemberBudget new_members_;                  // how many new members each peer may still bring in
  std::uint64_t member_table_epoch_ = 0;         // bumped when members_ is assigned whole (its version may repeat)
  Instant next_refutation_;
  // Lives this node has evidence of (vouched_lives.hpp); the live records
  // it has none for count for nothing it decides.
  VouchedLives vouched_;
  DownClaims down_claims_;                       // downs held for their subject to refute
  mutable std::optional<std::pair<std::size_t, Bounds>> bounds_cache_;  // bounds_now(), by table size
  LifeCeiling life_ceiling_;                     // the highest plausible life: the clock plus skew
  // The last instant this node held another member unreachable, took
  // another member's down, or noticed a pause of its own: evidence that a
  // down of its own life may be real (was_cut_off).
  std::optional<Instant> last_disturbed_;
  // unreachable_view_ and vouched_.view() together, sorted: the members
  // convergence and the leader's election pass over.
  std::vector<MemberId> excused_view_;
  std::optional<std::uint64_t> ring_vouched_version_;  // the vouched_.version() ring_ holds

  // Failure detection.
  std::map<MemberId, Monitor> monitors_;         // subjects this node observes
  MonitoringRing ring_;                          // as of the last refresh_monitors()
  PhiDetector fresh_detector_;                   // every new monitor's detector starts as a copy
  std::vector<MemberId> ring_view_;              // the unreachable view ring_'s walks passed
  std::optional<std::uint64_t> ring_members_version_;  // the members_.version() ring_ holds
  // Any frame, any peer. Never iterated; its elements stay put when it
  // rehashes, so an Inbound may keep a pointer to its peer's entry.
  std::unordered_map<NodeAddress, Instant, AddressHash> last_heard_;
  std::uint64_t liveness_generation_ = 1;        // bumped when monitors_ or last_heard_ lose entries
  std::uint64_t heartbeat_sequence_ = 0;
  IndirectProbes probes_;                        // those this node runs and helps with

  // Links: the records, their indexes and queues (kernel/links/link_table.hpp).
  LinkTable links_;
  std::uint64_t nonces_made_ = 0;                // authenticated nonces: the MAC's counter
  std::deque<LinkCommand> commands_;

  // Actors.
  std::vector<std::unique_ptr<Actor>> actors_;
  // Looked up on every message; never iterated, so its order reaches nothing.
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view name) const;
  };
  std::unordered_map<std::string, std::uint32_t, NameHash, std::equal_to<>> actor_index_;
  std::uint32_t last_found_ = ActorRef::kNoSlot;  // the actor actor_index_ last gave
  std::deque<std::uint32_t> run_queue_;
  MailboxSlot dropped_;       // scratch: a message a full drop_oldest mailbox let go
  ActorTimers actor_timers_;  // Context::start_timer
  MailboxSlot dispatching_;   // the message being delivered; its buffer is reused
  AskTable asks_;
  std::vector<std::uint8_t> previous_reply_body_;  // mutations.reply_body_stale only
  std::deque<Event> events_;
  KernelCounters counters_;
};

}  // namespace weft
