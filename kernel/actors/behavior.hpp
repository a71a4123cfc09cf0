// User code: an actor's behaviour, and the context it runs in.
//
// A behaviour receives one message at a time (never concurrently) through
// receive(context, message). The message's views (sender, body) are valid
// only during the call. Through the context it can tell, ask and reply; all
// of it is deterministic kernel state, so the same behaviours run unchanged
// on real sockets and in the simulator.
//
// Asks a behaviour makes complete by delivering to it a message of kind
// reply, ask_timeout or ask_target_down with the ask's correlation id:
// exactly one of these per ask.
//
// Layers built on actors (shard/: a region per entity kind) also need to
// see the membership, to hand a message on with its sender kept, and to be
// woken when the membership changes or a time passes; the context offers
// those too (members, forward, reply_to, start_timer, and a behaviour that
// watches_members() hears of every change), still as pure kernel state.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "kernel/ids.hpp"
#include "kernel/membership/member.hpp"
#include "kernel/time.hpp"

namespace weft {

enum class DeliveryKind : std::uint8_t {
  tell,
  ask,              // reply with Context::reply
  reply,            // the answer to an ask this actor made
  ask_timeout,      // an ask this actor made got no reply in time
  ask_target_down,  // an ask this actor made went to a member that is down
  ask_rejected,     // an ask this actor made could not be sent (see dead letters)
  members_changed,  // the member table changed since the last one (Behavior::watches_members)
  timer,            // a timer this actor started fired; type_tag is its tag
};

std::string_view to_string(DeliveryKind kind);

// A ref without ownership, for the sender of a delivery.
struct ActorRefView {
  std::string_view host;
  std::uint16_t port = 0;
  std::string_view name;  // empty: no sender

  bool empty() const { return name.empty(); }
  ActorRef to_owned() const { return ActorRef{NodeAddress{std::string(host), port}, std::string(name)}; }
};

struct Delivery {
  DeliveryKind kind = DeliveryKind::tell;
  ActorRefView sender;
  std::uint64_t correlation_id = 0;  // the ask's id for ask/reply/timeout/target-down
  std::uint32_t type_tag = 0;
  std::span<const std::uint8_t> body;
};

using AskId = std::uint64_t;

// How a send went, as far as this node can tell at once. Anything but
// `sent` and `invalid_target` also produced a counted dead letter; an ask
// that was not sent has completed already.
enum class SendResult : std::uint8_t {
  sent,
  unknown_member,   // the target's node is not a member this node knows
  member_down,      // the target's node is down or removed
  mailbox_full,     // a local target's mailbox is full (reject_new)
  unknown_actor,    // no local actor of that name
  outbound_full,    // the link's outbound queue is at its bound
  too_large,        // the message does not fit a frame
  too_many_asks,    // max_pending_asks reached
  invalid_target,   // the ref is malformed: empty or oversize name or host, port 0
};

std::string_view to_string(SendResult result);

class Behavior;

class Context {
 public:
  virtual ~Context() = default;
  virtual const ActorRef& self() const = 0;
  virtual Instant now() const = 0;
  virtual SendResult tell(const ActorRef& target, std::uint32_t type_tag,
                          std::span<const std::uint8_t> body) = 0;
  // tell(), sent ahead of the user messages already queued for the
  // target's node: the frame joins the link's control queue (heartbeats,
  // gossip), so a flood of user messages does not hold it back; it may
  // overtake them, and it is not counted among a lost link's frames. For a
  // layer's own small, rate-limited coordination (the sharding majority
  // mode's votes, shard/region.hpp); at most kMaxUrgentBytes queued per
  // link, past which outbound_full. A local target: as tell().
  static constexpr std::size_t kMaxUrgentBytes = 64 * 1024;
  virtual SendResult tell_urgent(const ActorRef& target, std::uint32_t type_tag,
                                 std::span<const std::uint8_t> body) {
    return tell(target, type_tag, body);
  }
  // Returns the ask's id; the completion arrives as a delivery.
  virtual AskId ask(const ActorRef& target, std::uint32_t type_tag,
                    std::span<const std::uint8_t> body, Duration timeout) = 0;
  // ask(), also saying how its send went, as tell() does: anything but
  // `sent` means the ask has completed already. For a layer that keeps
  // something per message sent (the sharding layer's numbering); a context
  // that cannot tell says `sent`.
  virtual AskId ask_reporting(const ActorRef& target, std::uint32_t type_tag, std::span<const std::uint8_t> body,
                              Duration timeout, SendResult& sent) {
    sent = SendResult::sent;
    return ask(target, type_tag, body, timeout);
  }
  // Replies to the ask being handled; a no-op (counted) outside an ask.
  virtual SendResult reply(std::uint32_t type_tag, std::span<const std::uint8_t> body) = 0;

  // This node's member table as it stands (its view), valid during the call.
  virtual std::span<const Member> members() const = 0;
  // Sends `message` (the one being handled, or a copy kept since) on to
  // `target` with a new tag and body, keeping its kind, sender and
  // correlation id: a forwarded ask is answered by whoever replies to it,
  // straight to the asker, which alone tracks it (its timeout included).
  // invalid_target unless `message` is a tell or an ask.
  virtual SendResult forward(const ActorRef& target, const Delivery& message, std::uint32_t type_tag,
                             std::span<const std::uint8_t> body) = 0;
  // Replies to `asked` (the ask being handled, or a copy kept since, e.g.
  // while its answer waited on something): reply() for any ask. Outside an
  // ask, a no-op counted as reply_outside_ask.
  virtual SendResult reply_to(const Delivery& asked, std::uint32_t type_tag, std::span<const std::uint8_t> body) = 0;
  // A timer delivery tagged `tag` to this actor `after` from now, once;
  // starting a tag that is armed replaces it (kernel/actors/actor_timers.hpp).
  virtual void start_timer(std::uint32_t tag, Duration after) = 0;
  virtual void cancel_timer(std::uint32_t tag) = 0;
  // The behaviour of this node's actor named `name`, or nullptr (always,
  // outside a kernel): for a layer whose senders work on its actor's state
  // at send time instead of through its mailbox (the sharding layer numbers
  // an entity message as it is sent: shard/entity_ref.cpp). Valid during the
  // call and on the kernel's thread only; the actor may be running (the
  // caller is then one of its own callees), so the layer says what is safe.
  virtual Behavior* local_behavior(std::string_view name) const {
    (void)name;
    return nullptr;
  }
};

class Behavior {
 public:
  virtual ~Behavior() = default;
  virtual void receive(Context& context, const Delivery& message) = 0;
  // True: from its spawn on, the actor gets a members_changed delivery
  // (first one at once) after each change of the member table; changes
  // before it handles one are coalesced into it. Read once, at spawn.
  virtual bool watches_members() const { return false; }
};

}  // namespace weft
