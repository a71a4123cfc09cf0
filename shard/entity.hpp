// What a user defines to host entities addressed by identity (issue 28):
// an entity kind, and the entity's behaviour.
//
// An entity is an ordinary Behavior that a region (shard/region.hpp) starts
// on the first message its node receives for it, while the node owns its
// shard, and stops when it has been idle for `passivate_after` or when its
// shard moves to another node. It sees its messages as any actor does: the
// user's own tag and body, the original sender and, for an ask, the ask to
// reply to (the reply goes straight to the asker). Through its context it
// can tell, ask, reply and read the members; its self() is its region's ref
// (an entity's identity is its kind and key, not a ref). Its timers are
// its own (start_timer, cancel_timer: a `timer` delivery with the tag, as
// an actor's), kept by its region on one region timer; they end with the
// entity (idle, moved, or its lease gone), never wake a stopped one, and
// do not travel with a handoff: an entity that wants one after a move
// starts it again in take_over's wake, on its next message. A timer
// delivered counts as a message for passivation. An entity's
// watches_members() is not read.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>
#include <string>
#include <string_view>

#include "kernel/actors/behavior.hpp"
#include "kernel/time.hpp"

namespace weft::shard {

enum class StopReason : std::uint8_t {
  idle,   // no message for passivate_after
  moved,  // the node's view gives its shard to another node (or to none)
  // Majority mode: the node's lease on the shard ran out (it could not
  // prove a majority of voters named it for `lease`); nothing is handed on.
  no_lease,
};
std::string_view to_string(StopReason reason);

class Entity : public Behavior {
 public:
  // Runs once, just before the region drops the entity: the place to save
  // what must outlive it. Not in a message: reply() counts a dead letter.
  virtual void stopping(Context& context, StopReason reason) {
    (void)context;
    (void)reason;
  }
  // When its shard moves to another live node (after stopping(moved)): the
  // state to carry there, written to `state`, or false to carry none (the
  // new owner then starts it fresh on its next message). No system the
  // issue names carries state without a database; here it travels in the
  // handoff, in memory.
  virtual bool hand_over(std::vector<std::uint8_t>& state) {
    (void)state;
    return false;
  }
  // On the new owner, right after make(key), before any message: what
  // hand_over gave.
  virtual void take_over(std::span<const std::uint8_t> state) { (void)state; }
};

// Defects planted on purpose in the region, to show the simulator's
// properties catch them (props/entities; docs/sharding.md). All off in use.
struct RegionMutations {
  bool keep_moved = false;          // entities whose shard moved keep running here
  bool drop_handoff_state = false;  // a moved entity's state is not sent
  bool no_handoff_wait = false;     // a gained shard is served before the old owner's handoff
  bool unordered = false;           // messages are handed on as they arrive, gaps or not
  bool vote_without_promise = false;  // majority mode: voters name whatever their view says
  bool ignore_joins = false;        // a view that only adds members up is not read
  // A gained shard waits for its last owner's handoff even when that owner
  // is down, and no wait ends but by a handoff (not by the owner going
  // down, not at handoff_timeout): a crashed owner's shards are never
  // served again, the stuck handoff Akka users report.
  bool endless_wait = false;
  // A HandoffDone ends a wait on its sender for a shard it says it still
  // serves (its view has not moved the shard yet): the new owner starts the
  // shard's entities fresh, and their state, when it comes, is a conflict.
  bool done_ends_every_wait = false;
  // A query is answered as before queries named shards: with no handoff
  // sent again, so a first handoff dropped unseen is state lost.
  bool no_resend = false;
  // A node downed while alive rejoins in a new life, whose links start
  // empty, and its region sends nothing again of what the old life handed:
  // a handoff still in the old links' buffers (a cut link) is state lost.
  bool rejoin_forgets_handoffs = false;
  // A shard this node handed to a member that is not live comes back, and
  // the copy of what it handed is forgotten, not taken back: a part lost
  // on a cut link to a member that went down is state gone.
  bool forget_returned = false;
  // A shard handed to a member that is not live comes back, and the copy
  // of what was handed is taken back even though a view since named a
  // third owner, which may have served the key and hands it here newer:
  // the old copy, restored first, makes that handoff a conflict.
  bool return_past_third_owner = false;
  // A HandoffDone sent to an earlier life of this node, queued behind a cut
  // link until the node restarted, is taken as the new life's: its "handed
  // nothing" ends a wait on a sender that holds the key, and the state
  // that sender then hands is a conflict with the fresh entity.
  bool done_for_any_life = false;
  // A message stamped by a life its node has left (down, or restarted) is
  // handed on as any other: its source's numbering went with that life, so
  // it counts as a new source's first, after what its sender sent since.
  bool keep_stale = false;
  // A batch's entries for shards owned here are handed to their entities
  // as they come, past the shard's inbox: not kept while the shard awaits
  // its handoff, not put in order.
  bool batch_skips_inbox = false;
  // An ask routed straight to an owner goes at once, ahead of the tells
  // batched for that owner before it: the owner sees the ask's number
  // first, and the tells' come late.
  bool ask_overtakes_batch = false;
  // Majority mode: vote requests, votes and releases go as plain tells,
  // queued behind whatever user messages wait for the same link: under a
  // flood no vote comes back while its lease would still run.
  bool votes_behind_user = false;
};

// What a partition does to a kind's entities (docs/sharding.md, "Split
// brain").
enum class Consistency : std::uint8_t {
  // Both sides keep serving; two nodes whose views disagree may both host
  // an entity until the views agree again.
  available,
  // A node hosts a shard only while a majority of the voters name it the
  // owner, under a lease (shard/quorum_lease.hpp): never two hosts at any
  // instant, given the drift bound; the side without a majority stops
  // within `lease`, and a moved shard waits for the votes.
  majority,
};

struct MajorityOptions {
  // The voters: the same list on every node. Empty: the node's seeds
  // (ActorStart::seeds), which a deployment lists alike everywhere.
  std::vector<NodeAddress> voters;
  // How long a majority's votes let a node host (the stable-after of
  // Akka's split-brain resolver): a node cut off from the majority stops
  // hosting this long after its last answered request, at the latest.
  Duration lease = Duration::seconds(7);
  // The clocks' drift bound, parts per million either way: 2 %, the
  // simulator's worst (a real quartz drifts about 100 ppm).
  std::uint32_t max_drift_ppm = 20'000;
};

struct EntityKind {
  std::string name;  // its region is the actor "shard.<name>" on every node
  std::uint32_t shards = 64;  // keys map to this many shards; the unit that moves
  Duration passivate_after = Duration::seconds(120);
  // How long a new owner keeps a shard's messages waiting for the old
  // owner's handoff before it starts without (the old owner going down
  // ends the wait at once).
  Duration handoff_timeout = Duration::seconds(10);
  // How long a gap in one source's numbering is waited for before the
  // messages after it are handed on (shard/shard_inbox.hpp).
  Duration reorder_wait = Duration::seconds(2);
  // Messages a region keeps at most, awaiting handoffs or gaps; past it a
  // message is refused (buffer_full).
  std::size_t buffer_capacity = 10'000;
  Consistency consistency = Consistency::available;
  MajorityOptions majority = {};
  // Tells to entities on other nodes sent in one dispatch step go to each
  // owner as one batch (shard/entity_batch.hpp); false sends each alone.
  bool batch_tells = true;
  RegionMutations mutations = {};
  // A fresh entity for `key`; nullptr refuses the message (counted).
  std::function<std::unique_ptr<Entity>(std::string_view key)> make;
};

}  // namespace weft::shard
