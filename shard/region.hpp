// A region: one per entity kind on every node (the actor "shard.<kind>"),
// which routes entity messages to the node that owns their shard, hosts the
// entities its node owns, and hands shards over when they move (issue 28;
// docs/sharding.md).
//
// Model. Ownership is the node's own view, nothing more: a shard's owner is
// Placement's pick among the members up in this node's member table
// (shard/placement.hpp), recomputed whenever the table changes (the region
// watches it from its spawn). Then, for an entity message
// (shard/envelope.hpp):
//   - its sender's own node's region stamps it with itself as the source
//     and the shard's next number, as it is sent (route_here below: then
//     straight to the owner's region when that is another node's), or as
//     it arrives, from a sender that cannot reach the region;
//   - owned here: it goes through the shard's inbox (shard/shard_inbox.hpp),
//     which hands messages on in each source's order, and the entity is
//     started if it is not active (EntityKind::make) and given the message,
//     with its sender and ask kept;
//   - owned elsewhere: forwarded to the owner's region (Context::forward:
//     the sender and the ask are kept, so the entity answers the asker
//     directly), unless it has been handed on kMaxHops times already;
//   - refused, counted by reason, and an ask refused is answered at once
//     with kRefusedTag and the reason (Refusal below).
// Handoff. When the view gives a shard of this node's to another node, the
// region stops its
// entities (Entity::stopping, reason moved), sends the new owner's region
// the state of those that have some (Entity::hand_over), then a HandoffDone
// with the shard's numbering, then forwards the messages its inbox still
// kept (shard/handoff_wire.hpp); one link carries them in that order. A
// shard a view gives no one (no member up in it) stays, entities and all,
// until a view names an owner to hand it to. When
// the view gives this node a shard whose previous owner is still live, the
// region keeps the shard's messages until that owner's HandoffDone arrives,
// the owner goes down, or handoff_timeout passes; then it restores the
// entities handed over (Entity::take_over) and hands the kept messages on
// in order. A handoff is taken only from a live member that owned the shard
// in a view without this node (or the one it awaits): anything else is
// refused and counted, and moves nothing. The old owner keeps what it sent
// (states and numbering) for 2 x handoff_timeout and sends it again when
// the new owner's query names the shard: a first copy refused (it came
// before the receiver's view named it owner) or dropped unseen is not state
// lost; if the shard comes back while its receiver is not live (owed no
// handoff, its copy maybe lost on a cut link), the region takes the kept
// copy back (take_back_returned): at once, or, if a view since named a
// third owner (which may hand the shard here newer), when the shard's wait
// ends, for the keys no handoff brought. A message stamped by a life its node has left is refused
// (stale_source): that life's numbering is gone, so it cannot be ordered.
// Split brain (AP). Two nodes whose views agree name the same owner, so
// they never both host an entity; nodes whose views disagree (a partition,
// a change still spreading) may, until their views agree again, when the
// loser stops its copy (reason moved) and hands it over.
// Majority mode (EntityKind::consistency). A shard is hosted only under a
// lease from a majority of the voters (shard/quorum_lease.hpp): messages for
// a shard this node owns but holds no lease on are kept (bounded, like a
// wait) while the region asks the voters, and handed on in order once it
// holds one; when a lease runs out the shard's entities stop (reason
// no_lease, nothing handed on) and its messages are kept again. A region
// asks for votes every lease / 8 while it has entities or kept messages,
// and not at all when idle. Every region is also a voter when its node is
// one. Handing a shard over releases it at the voters.
// Passivation. An entity idle for passivate_after is stopped (reason idle)
// by a timer that fires no more often than every passivate_after / 8, so an
// idle entity goes between passivate_after and 1.125 times it.
//
// Determinism: entities, inboxes and pending handoffs are kept in ordered
// maps and the region reads no clock but the context's, so a seed replays
// the same activations.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "app/metrics.hpp"
#include "kernel/actors/behavior.hpp"
#include "kernel/actors/mailbox.hpp"
#include "shard/entity.hpp"
#include "shard/entity_batch.hpp"
#include "shard/entity_table.hpp"
#include "shard/envelope.hpp"
#include "shard/handoff_wire.hpp"
#include "shard/placement.hpp"
#include "shard/quorum_lease.hpp"
#include "shard/shard_inbox.hpp"

namespace weft::shard {

enum class Refusal : std::uint8_t {
  malformed,       // not a message a region reads (wrong tag, or it did not decode)
  no_host,         // no member is up in this node's view
  hop_limit,       // handed on kMaxHops times: the views on its way disagree
  forward_failed,  // the owner could not be sent to (down, outbound full, ...)
  no_entity,       // EntityKind::make returned none
  buffer_full,     // buffer_capacity messages kept already
  out_of_order,    // its source's numbering had passed it (a gap skipped)
  stale_source,    // its source's node is down, or runs a newer life, in this node's view
};
inline constexpr std::size_t kRefusalCount = 8;
std::string_view to_string(Refusal refusal);

struct RegionCounters {
  std::uint64_t delivered = 0;   // messages handed to an entity here
  std::uint64_t forwarded = 0;   // messages handed on to the owner's region
  std::uint64_t activated = 0;   // entities started on a message
  std::uint64_t passivated = 0;  // entities stopped idle
  std::uint64_t moved = 0;       // entities stopped because their shard moved
  std::array<std::uint64_t, kRefusalCount> refused{};
  std::uint64_t handed_out = 0;         // entities whose state was sent to a new owner
  std::uint64_t handed_in = 0;          // entities restored from a handoff
  std::uint64_t handoff_lost = 0;       // state that could not be sent (too large, outbound full)
  std::uint64_t handoff_refused = 0;    // handoff parts from a node that may not hand the shard
  std::uint64_t handoff_conflicts = 0;  // state for an entity already active here (dropped)
  std::uint64_t handoff_timeouts = 0;   // waits that ended without the handoff
  std::uint64_t handoffs_resent = 0;    // shards handed again on a query (handoff_wire.hpp)
  std::uint64_t handoff_duplicates = 0;  // parts and shards sent again after the first arrived: dropped
  std::uint64_t handoff_stale = 0;       // HandoffDones sent to an earlier life of this node: dropped
  std::uint64_t orphan_completions = 0;  // an entity's ask completed after it stopped
  std::uint64_t entity_timers_fired = 0;  // timers delivered to their entity
  // Majority mode.
  std::uint64_t lapsed = 0;          // entities stopped because their shard's lease ran out
  std::uint64_t votes_asked = 0;     // vote requests sent (one per voter)
  std::uint64_t votes_given = 0;     // requests this node answered as a voter
  std::uint64_t votes_refused = 0;   // requests or votes from a node with another voter list, or not a voter
  std::uint64_t refused_total() const;
};

class Region final : public Behavior, public ExportsMetrics {
 public:
  explicit Region(EntityKind kind);
  ~Region() override;

  void receive(Context& context, const Delivery& message) override;
  bool watches_members() const override { return true; }
  void export_metrics(Metrics& metrics, std::string_view actor) override;

  const EntityKind& kind() const { return kind_; }
  const RegionCounters& counters() const { return counters_; }
  // Of the counters, those that mean state may be gone (handoff_timeouts,
  // handoff_lost, handoff_refused, handoff_conflicts, lapsed), for one
  // shard: the simulator's COUNTER ends only that shard's keys' epochs.
  std::uint64_t handoffs_missed(ShardId shard) const { return shard < missed_.size() ? missed_[shard] : 0; }
  // The keys of the entities active here, in key order.
  std::vector<std::string> active_keys() const;
  bool hosts(std::string_view key) const { return entities_.find(key) != entities_.end(); }
  // The entity active here for `key`, or nullptr: for the simulator's
  // workloads, which check entities' state; never for actor code.
  const Entity* entity(std::string_view key) const;
  // Whether the entity active here for `key` began from a handoff's state
  // rather than fresh.
  bool restored(std::string_view key) const {
    const auto it = entities_.find(key);
    return it != entities_.end() && it->second.restored;
  }
  // Whether, since this node last gained `shard`, its region had cause to
  // await a handoff of it from `member` (the owner its view named before,
  // or a member newly up or newly live in its view since): for the
  // simulator's workloads, which tell a wait skipped or cut short from a
  // copy of the shard no view here could know of (a member whose view
  // disagreed served it meanwhile). Planted defects that skip the wait do
  // not change it.
  bool had_cause_to_await(ShardId shard, const NodeAddress& member) const;
  std::size_t active() const { return entities_.size(); }
  // The owner of `key`'s shard in the view this region last read; none
  // before it read one or with no member up.
  std::optional<NodeAddress> owner(std::string_view key) const;
  const std::optional<NodeAddress>& owner_of_shard(ShardId shard) const;
  // How many views this region has read: owners change only when it grows
  // (for checks that cache them, as the simulator's workloads do).
  std::uint64_t views_read() const { return views_read_; }
  // The members up in the view this region last read, in address order:
  // two regions with equal hosts name the same owner for every shard.
  const std::vector<NodeAddress>& hosts() const { return hosts_; }
  // Messages kept, awaiting handoffs or gaps.
  std::size_t kept() const;
  // Whether this region hands `shard`'s messages to its entities at `now` (its
  // node's clock): its view names this node the owner, the shard awaits no
  // handoff and, in the majority mode, it holds the shard's lease.
  bool serves_shard(ShardId shard, Instant now) const;
  // Majority mode: whether this region holds `shard`'s lease at `now` (its
  // node's clock); always false in the available mode.
  bool holds_lease(ShardId shard, Instant now) const;
  ShardId shard_of_key(std::string_view key) const;

  // --- sends from this node (region_local_sends.cpp), for the Entities
  // handle (shard/entity_ref.cpp), which reaches its node's region through
  // Context::local_behavior. A message sent on this node is numbered as it
  // is sent, in send order, by the same numbering the region stamps an
  // arriving message with, and goes:
  //   - one whose shard this region's view gives another node: straight
  //     to that node's region (hops 1), when nothing of this node's for the
  //     shard still waits in this region's mailbox, which would otherwise
  //     be overtaken (a fresh owner starts a source at the first number it
  //     sees: shard_inbox.hpp);
  //   - anything else (a shard owned here or by no one yet, a view being
  //     read, something of the shard's queued here): into this region's
  //     mailbox, numbered, for the region to route as it would an arriving
  //     message.
  // One mailbox round, one decode and one encode fewer for the common
  // message. route_here() says where and with what envelope; the caller
  // sends it and gives the result to sent_here(), which takes the number
  // back if nothing went (nothing later was numbered: the two calls are one
  // step on the kernel's thread).
  struct LocalSend {
    const ActorRef* to = nullptr;  // the owner's region, or this node's
    EntityMessage message;         // stamped, unless this node's life is unknown
    ShardId shard = 0;
    std::uint64_t queued_before = 0;
  };
  LocalSend route_here(const ActorRef& self_region, std::span<const Member> members, std::string_view key,
                       std::uint32_t tag, std::span<const std::uint8_t> body);
  void sent_here(const LocalSend& send, SendResult result);
  // How a sender on this node sends what the region sends on its behalf
  // (a batch that filled, or one sent ahead of the sender's own message):
  // through the sender's context, or the kernel for a driver.
  class Outbox {
   public:
    virtual SendResult tell(const ActorRef& to, std::uint32_t tag, std::span<const std::uint8_t> body) = 0;

   protected:
    ~Outbox() = default;
  };
  // An outbox that sends as `context` does (a sender's, or the region's own).
  class ContextOutbox final : public Outbox {
   public:
    explicit ContextOutbox(Context& context) : context_(context) {}
    SendResult tell(const ActorRef& to, std::uint32_t tag, std::span<const std::uint8_t> body) override {
      return context_.tell(to, tag, body);
    }

   private:
    Context& context_;
  };
  // A tell route_here sends straight (hops 1), from the actor named
  // `sender` (empty: none): appended to the batch for its owner
  // (shard/entity_batch.hpp) unless the kind batches no tells or the
  // message is too large for one; then false, with that owner's batch sent
  // ahead, and the caller sends the message itself (and calls sent_here).
  // The first tell batched since the region last sent its batches tells
  // the region (at `self_region`) to run; a batch that fills is sent at
  // once. The tell is `sent` once batched: a batch the kernel then will not
  // take counts each of its tells refused (forward_failed), and the kernel
  // a dead letter, but its senders are not told.
  bool batch(Outbox& out, const ActorRef& self_region, const LocalSend& send, std::string_view sender);
  // Sends ahead the batch for the owner `to` (one of route_here's) before a
  // message of this node's that goes there straight, which must not
  // overtake it.
  void send_batch_ahead(Outbox& out, const ActorRef& to);
  // Tells batched and not sent yet: for tests.
  std::size_t batched() const;

 private:
  class EntityContext;
  struct Active {
    std::unique_ptr<Entity> entity;
    Instant last_message;
    bool served = false;    // given a message here (not only restored from a handoff)
    bool restored = false;  // began here from a handoff's state
  };
  using Entities = EntityTable<Active>;

  // region.cpp: routing, delivery, refusals, timers
  // `from_mailbox`: the kernel delivered it (not a kept message offered
  // again), so it may be one route_here queued (last_queued_).
  void on_entity_message(Context& context, const Delivery& message, bool from_mailbox = false);
  // A decoded entity message (`message`'s body need not be its envelope):
  // stamped as it enters, then hosted, forwarded or refused.
  void route(Context& context, const Delivery& message, EntityMessage inner, bool from_mailbox);
  void on_entity_batch(Context& context, const Delivery& message);
  // `hash`: shard_map_'s hash of inner.key, which is also entities_'.
  void host(Context& context, const Delivery& message, const EntityMessage& inner, ShardId shard,
            std::uint64_t hash);
  void keep(Context& context, const Delivery& message, const EntityMessage& inner, ShardId shard);
  MailboxSlot copy_of(const Delivery& message, const EntityMessage& inner);
  void release_ready(Context& context, ShardInbox& inbox);
  void deliver(Context& context, const Delivery& message, const EntityMessage& inner, std::uint64_t hash);
  void refuse(Context& context, const Delivery& message, Refusal refusal);
  void on_passivation_timer(Context& context);
  void arm_passivation(Context& context, Instant earliest);
  void on_order_timer(Context& context);
  void arm_order_timer(Context& context);
  void on_completion(Context& context, const Delivery& message);
  // Stops an entity; moved to a live `hand_to`, its state goes there.
  Entities::iterator stop(Context& context, Entities::iterator it, StopReason reason,
                          const std::optional<NodeAddress>& hand_to = std::nullopt);
  void end_wait(Context& context, ShardId shard, ShardInbox& inbox, const ShardInbox::Numbering& handed);

  // region_moves.cpp: the view, handoffs out and in
  void on_members_changed(Context& context);
  void read_view(Context& context);
  void hand_over_lost(Context& context, const std::set<NodeAddress>& newly_up);
  void take_back_returned(Context& context);
  bool restore(Context& context, const HandoffEntity& part);
  void await_gained(Context& context, const std::vector<std::optional<NodeAddress>>& before,
                    const std::set<NodeAddress>& newly_seen);
  void end_waits_on_gone(Context& context);
  void on_handoff_entity(Context& context, const Delivery& message);
  void on_handoff_done(Context& context, const Delivery& message);
  void on_handoff_query(Context& context, const Delivery& message);
  void send_again(Context& context, const NodeAddress& to, const std::set<ShardId>& shards);
  void resend_old_life(Context& context);
  std::set<ShardId> still_serving() const;
  void query_awaited(Context& context);
  bool may_hand(Context& context, const NodeAddress& from, ShardId shard) const;
  bool is_live(Context& context, const NodeAddress& node) const;
  const ActorRef& region_of_host(const NodeAddress& host) const;
  std::optional<NodeAddress> owner_without_self(ShardId shard, const std::optional<NodeAddress>& also = {}) const;
  struct Handed;
  bool take_back(Context& context, ShardId shard, const Handed& handed);
  void after_taking_back(Context& context);
  void restore_set_aside(Context& context, ShardId shard);
  void restore_set_aside_unawaited(Context& context);
  Handed& handed_to(const NodeAddress& owner, ShardId shard, Instant now);
  void forget_handed(Instant now);
  bool awaits(const NodeAddress& from, ShardId shard) const;
  Instant keep_handed_until(Instant now) const { return now + kind_.handoff_timeout + kind_.handoff_timeout; }

  // region_lease.cpp: the majority mode's leases and votes, on two timers
  // (region.cpp's are 1 to 3)
  static constexpr std::uint32_t kVoteTimer = 4;   // asks the voters again
  static constexpr std::uint32_t kLapseTimer = 5;  // the earliest lease held runs out

  // region_entity_timers.cpp: the entities' own timers, on one region timer
  static constexpr std::uint32_t kEntityTimer = 6;  // the earliest entity timer is due
  void start_entity_timer(Context& context, std::string_view key, std::uint32_t tag, Duration after);
  void cancel_entity_timer(Context& context, std::string_view key, std::uint32_t tag);
  void drop_entity_timers(std::string_view key);
  void on_entity_timer(Context& context);
  void deliver_timer(Context& context, Entities::iterator it, std::uint32_t tag);  // region.cpp
  void arm_entity_timer(Context& context);
  bool may_serve(ShardId shard, Instant now) const;
  void start_leases(Context& context);
  void keep_unleased(Context& context, const Delivery& message, const EntityMessage& inner, ShardId shard);
  void ask_votes(Context& context);
  void want_votes(Context& context);
  SendResult send_lease_message(Context& context, const ActorRef& to, std::uint32_t tag,
                                std::span<const std::uint8_t> body);
  void on_vote_request(Context& context, const Delivery& message);
  void on_vote(Context& context, const Delivery& message);
  void on_release(Context& context, const Delivery& message);
  void check_lapses(Context& context);
  void arm_lapse(Context& context);
  void release_moved(Context& context, const std::vector<ShardId>& shards);
  std::optional<std::size_t> voter_index(const NodeAddress& node) const;

  EntityKind kind_;
  ShardMap shard_map_;
  NodeAddress self_;
  std::uint64_t self_life_ = 0;
  bool read_a_view_ = false;
  std::uint64_t views_read_ = 0;
  std::vector<std::optional<NodeAddress>> owners_;  // per shard, from the last view read
  std::vector<NodeAddress> hosts_;
  std::vector<NodeAddress> live_;  // members joining to exiting in the last view read (sorted)
  // Per address in the last view read, the earliest life that may still
  // send: its live life, or the one after its life that is down or
  // removed (a status no life leaves). A message stamped by an earlier life
  // is stale: the source's numbering was forgotten with that life
  // (on_members_changed), so the inbox would take it as a new source's
  // first and hand it on after the later ones its sender sent since
  // (weft-entities-sim seed 211: Adds kept for want of a lease through a
  // partition, after which every node restarted its life).
  struct LifeFloor {
    std::string host;
    std::uint16_t port = 0;
    std::uint64_t floor = 0;
  };
  std::vector<LifeFloor> life_floors_;  // sorted by (host, port)
  bool stale(const Stamp& stamp);
  // The last floor stale() looked up, valid while views_read_ stays: most
  // messages in a row come from one source.
  struct FloorSeen {
    std::uint64_t views_read = 0;  // 0: nothing cached
    std::string host;
    std::uint16_t port = 0;
    std::uint64_t floor = 0;
  };
  FloorSeen floor_seen_;
  // The life of `node` that may still send (its live life, if it is live).
  std::uint64_t life_floor(std::string_view host, std::uint16_t port) const;
  std::vector<ActorRef> host_regions_;  // hosts_' regions, made once per view rather than per message
  // Per shard: this node owned it in the last view that named an owner, so
  // it hands it over (a HandoffDone) to the next owner a view names.
  std::vector<bool> responsible_;
  std::vector<std::uint64_t> next_number_;  // per shard, the next number this region stamps
  // Per shard, the number of the latest message of this node's put in this
  // region's mailbox (route_here), until the region takes it out; 0: none
  // waits there, so a tell may go straight to the owner.
  std::vector<std::uint64_t> last_queued_;
  // Per shard, the owner's region when the last view read names another
  // node (into host_regions_), else nullptr: route_here's one lookup.
  std::vector<const ActorRef*> straight_;
  bool reading_view_ = false;  // on_members_changed runs: owners_ is being replaced
  // had_cause_to_await: per shard, views_read_ when this node gained it and
  // the owner named before; per member, views_read_ when it was last newly
  // up or live here.
  std::vector<std::uint64_t> gained_at_;
  std::vector<std::optional<NodeAddress>> named_before_;
  std::map<NodeAddress, std::uint64_t> seen_at_;
  // Members seen leaving or exiting, by their life: a leaver hosts until
  // every member has seen its leave (Placement::of_node) and hands over on
  // exiting, which the leader may follow with removed before the handoff
  // arrives. Its parts are still taken, and a wait on it goes on (bounded
  // by handoff_timeout), while its record here says removed in that life.
  // Dropped when the address is live in another life, or no wait is on it.
  std::map<NodeAddress, std::uint64_t> leavers_;
  void note_leavers(Context& context);
  bool live_or_left(Context& context, const NodeAddress& node) const;
  Entities entities_;
  // The entities' timers, by (key, tag) and the same in firing order
  // (instant, key, tag): a total order on values, so a seed replays them.
  std::map<std::pair<std::string, std::uint32_t>, Instant> entity_timers_;
  std::set<std::tuple<Instant, std::string, std::uint32_t>> entity_timer_order_;
  std::map<ShardId, ShardInbox> inboxes_;
  std::map<AskId, std::string> entity_asks_;  // asks entities made, to route their completions
  // What this region handed a new owner of a shard, kept twice
  // handoff_timeout (views may be that far apart) for the new owner's query
  // to have it sent again (handoff_wire.hpp); forgotten sooner when the
  // shard comes back here, after take_back_returned has taken it back (or
  // set it aside) if its receiver is not live.
  struct Handed {
    Instant until;
    std::uint64_t life = 0;  // the new owner's, when handed: a later life of it is owed none of this
    std::uint64_t sender_life = 0;  // this node's, when last sent: a later life's links never held it
    std::vector<std::vector<std::uint8_t>> parts;  // encoded HandoffEntity, in the order sent
    ShardInbox::Numbering numbering;
    // No view since named a third owner of the shard: the copy is still
    // the latest state there may be (take_back_returned).
    bool returnable = true;
  };
  // Copies taken back past a third owner, by shard: restored, for the keys
  // no handoff brought, when the shard's wait ends (or at once, if it
  // awaits none); dropped if the shard moves away first.
  std::map<ShardId, Handed> set_aside_;
  std::map<std::pair<NodeAddress, ShardId>, Handed> handed_;  // by (new owner, shard)
  bool passivation_armed_ = false;
  RegionCounters counters_;
  std::vector<std::uint64_t> missed_;  // per shard: handoffs_missed()
  void note_missed(ShardId shard);
  std::vector<std::uint8_t> scratch_;  // an envelope re-encoded
  // Tells batched for other nodes' regions (entity_batch.hpp): per host in
  // hosts_ (as host_regions_), sent when the region next runs, or sooner;
  // all are sent before the view that addressed them is replaced.
  std::vector<BatchWriter> batches_;
  std::vector<std::size_t> open_batches_;  // hosts whose batch holds tells, in the order they began
  bool flush_queued_ = false;              // a kFlushTag tell to itself is in the mailbox
  DecodedBatch incoming_;                  // a batch received, decoded (its entries reused)
  void send_batch(Outbox& out, std::size_t host);
  void send_batches(Context& context);
  // Sends the batch for `shard`'s owner, ahead of a message of this node's
  // numbered after what it holds (one the region numbers as it enters).
  void send_batch_before(Context& context, ShardId shard);
  // Exported counters (export_metrics), nullptr when no host gave a registry.
  struct Exported {
    Counter* delivered = nullptr;
    Counter* forwarded = nullptr;
    Counter* activated = nullptr;
    Counter* stopped_idle = nullptr;
    Counter* stopped_moved = nullptr;
    Counter* stopped_no_lease = nullptr;
    Counter* handed_out = nullptr;
    Counter* handed_in = nullptr;
    std::array<Counter*, kRefusalCount> refused{};
    Gauge* active = nullptr;
    Gauge* kept = nullptr;
  };
  Exported exported_;
  bool kept_changed_ = false;  // an entity message was kept or released: shard_kept_messages is stale

  // Majority mode (empty optionals in the available mode).
  std::vector<NodeAddress> voters_;  // sorted, unique
  std::uint64_t voters_fingerprint_ = 0;
  std::optional<Promises> promises_;  // as a voter; made at the first view, the region's start
  std::optional<Leases> leases_;      // as a host
  std::vector<bool> had_lease_;       // per shard, held at the last check
  Instant next_lapse_ = Instant::never();  // the earliest lease among had_lease_ to run out
  std::map<ShardId, std::deque<MailboxSlot>> unleased_;  // owned here, no lease yet: kept in arrival order
  bool asking_ = false;               // the vote timer is armed
};

}  // namespace weft::shard
