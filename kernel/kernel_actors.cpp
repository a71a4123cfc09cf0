// Actors and messaging: local short-circuit delivery, remote sends, asks and
// their completions, and dispatch in bounded batches.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>

#include "kernel/kernel.hpp"
#include "kernel/kernel_internal.hpp"

namespace weft {
namespace {

ActorRefView view_of(const wire::ActorRefView& ref) {
  return ActorRefView{ref.node.host, ref.node.port, ref.name};
}

DeliveryKind delivery_kind(wire::MessageKind kind) {
  return kind == wire::MessageKind::ask ? DeliveryKind::ask : DeliveryKind::tell;
}

// Byte equality of two strings of `n` bytes without a call for the usual
// lengths of names and hosts (4 to 16 bytes): two overlapping loads from
// each end cover them, and each load stays inside the strings.
template <std::size_t N>
bool same_words(const char* a, const char* b, std::size_t n) {
  using Word = std::conditional_t<N == 8, std::uint64_t, std::uint32_t>;
  Word head_a, head_b, tail_a, tail_b;
  std::memcpy(&head_a, a, N);
  std::memcpy(&head_b, b, N);
  std::memcpy(&tail_a, a + n - N, N);
  std::memcpy(&tail_b, b + n - N, N);
  return ((head_a ^ head_b) | (tail_a ^ tail_b)) == 0;
}

inline bool same_text(std::string_view a, std::string_view b) {
  const std::size_t n = a.size();
  if (n != b.size()) return false;
  if (n >= 8 && n <= 16) return same_words<8>(a.data(), b.data(), n);
  if (n >= 4 && n < 8) return same_words<4>(a.data(), b.data(), n);
  return a == b;
}

// The name external asks travel under: replies are routed by correlation id,
// so the name only has to be a valid one.
constexpr std::string_view kExternalAsker = "$ask";

}  // namespace

std::size_t Kernel::NameHash::operator()(std::string_view name) const {
  // FNV-1a: names are short; weft's own, so the same on every platform.
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return static_cast<std::size_t>(h);
}

class Kernel::ActorContext final : public Context {
 public:
  ActorContext(Kernel& kernel, std::uint32_t actor, const MailboxSlot& current)
      : kernel_(kernel), actor_(actor), current_(current) {}

  const ActorRef& self() const override { return kernel_.actors_[actor_]->ref; }
  Instant now() const override { return kernel_.now_; }

  SendResult tell(const ActorRef& target, std::uint32_t type_tag,
                  std::span<const std::uint8_t> body) override {
    const ActorRef& sender = self();
    if (const std::uint32_t slot = kernel_.spawned_slot(target); slot != ActorRef::kNoSlot) {
      return kernel_.deliver_to(slot, Delivery{DeliveryKind::tell, ActorRefView{sender.node.host, sender.node.port,
                                                                                sender.name},
                                               0, type_tag, body});
    }
    wire::Envelope envelope{wire::MessageKind::tell, wire::ActorRefView::of(target), wire::ActorRefView::of(sender),
                            0, type_tag, body};
    return kernel_.send_user(envelope);
  }

  SendResult tell_urgent(const ActorRef& target, std::uint32_t type_tag,
                         std::span<const std::uint8_t> body) override {
    if (kernel_.spawned_slot(target) != ActorRef::kNoSlot) return tell(target, type_tag, body);
    const ActorRef& sender = self();
    wire::Envelope envelope{wire::MessageKind::tell, wire::ActorRefView::of(target), wire::ActorRefView::of(sender),
                            0, type_tag, body};
    return kernel_.send_user(envelope, ActorRef::kNoSlot, true);
  }

  AskId ask(const ActorRef& target, std::uint32_t type_tag, std::span<const std::uint8_t> body,
            Duration timeout) override {
    return kernel_.start_ask(Asker{actor_}, wire::ActorRefView::of(self()), target, type_tag, body,
                             timeout);
  }
  AskId ask_reporting(const ActorRef& target, std::uint32_t type_tag, std::span<const std::uint8_t> body,
                      Duration timeout, SendResult& sent) override {
    return kernel_.start_ask(Asker{actor_}, wire::ActorRefView::of(self()), target, type_tag, body, timeout,
                             &sent);
  }

  SendResult reply(std::uint32_t type_tag, std::span<const std::uint8_t> body) override {
    return reply_to(current_.view(), type_tag, body);
  }

  SendResult reply_to(const Delivery& asked, std::uint32_t type_tag, std::span<const std::uint8_t> body) override {
    if (asked.kind != DeliveryKind::ask) {
      kernel_.dead_letter(DeadLetterReason::reply_outside_ask, self(), type_tag);
      return SendResult::unknown_actor;
    }
    const wire::ActorRefView target{{asked.sender.host, asked.sender.port}, asked.sender.name};
    wire::Envelope envelope{wire::MessageKind::reply, target, wire::ActorRefView::of(self()),
                            asked.correlation_id, type_tag, body};
    return kernel_.send_user(envelope);
  }

  std::span<const Member> members() const override { return kernel_.members_.members(); }
  Behavior* local_behavior(std::string_view name) const override { return kernel_.local_behavior(name); }

  SendResult forward(const ActorRef& target, const Delivery& message, std::uint32_t type_tag,
                     std::span<const std::uint8_t> body) override {
    if (message.kind != DeliveryKind::tell && message.kind != DeliveryKind::ask) return SendResult::invalid_target;
    const wire::ActorRefView sender{{message.sender.host, message.sender.port}, message.sender.name};
    const auto kind = message.kind == DeliveryKind::ask ? wire::MessageKind::ask : wire::MessageKind::tell;
    wire::Envelope envelope{kind, wire::ActorRefView::of(target), sender, message.correlation_id, type_tag, body};
    return kernel_.send_user(envelope, target.local_slot);
  }

  void start_timer(std::uint32_t tag, Duration after) override {
    kernel_.actor_timers_.start({actor_, tag}, kernel_.now_ + std::max(after, Duration::zero()));
  }
  void cancel_timer(std::uint32_t tag) override { (void)kernel_.actor_timers_.cancel({actor_, tag}); }

 private:
  Kernel& kernel_;
  std::uint32_t actor_;
  const MailboxSlot& current_;
};

ActorRef Kernel::spawn(Instant now, std::string name, std::unique_ptr<Behavior> behavior) {
  advance(now);
  WEFT_ASSERT(!name.empty() && name.size() <= wire::kMaxActorNameBytes);
  WEFT_ASSERT(actor_index_.find(name) == actor_index_.end());
  WEFT_ASSERT(behavior != nullptr);
  const auto index = static_cast<std::uint32_t>(actors_.size());
  ActorRef ref{self_.address, name, index};
  const std::uint32_t capacity = config_.mutations.mailbox_unbounded ? UINT32_MAX : config_.mailbox_capacity;
  actors_.push_back(std::make_unique<Actor>(Actor{name, ref, std::move(behavior),
                                                  Mailbox(capacity, config_.mailbox_overflow), {}, false}));
  actor_index_.emplace(std::move(name), index);
  if (actors_[index]->behavior->watches_members()) {
    actors_[index]->watches_members = true;
    actors_[index]->members_change_queued = true;
    deliver_system(index, DeliveryKind::members_changed, 0);
  }
  // The ref's slot names this very actor, so spawned_slot() resolves it; one
  // index entry per actor.
  WEFT_ASSERT(spawned_slot(ref) == index);
  WEFT_ASSERT(actor_index_.size() == actors_.size());
  return ref;
}

SendResult Kernel::tell(Instant now, const ActorRef& target, std::uint32_t type_tag,
                        std::span<const std::uint8_t> body) {
  advance(now);
  if (const std::uint32_t slot = spawned_slot(target); slot != ActorRef::kNoSlot) {
    // What send_user would do for this ref, less the envelope and the lookups.
    const SendResult result = deliver_to(slot, Delivery{DeliveryKind::tell, {}, 0, type_tag, body});
    links_.sweep();
    return result;
  }
  wire::Envelope envelope{wire::MessageKind::tell, wire::ActorRefView::of(target), {}, 0, type_tag, body};
  const SendResult result = send_user(envelope);
  links_.sweep();
  return result;
}

AskId Kernel::ask(Instant now, const ActorRef& target, std::uint32_t type_tag,
                  std::span<const std::uint8_t> body, Duration timeout, SendResult* sent) {
  advance(now);
  WEFT_ASSERT(started_);
  const wire::ActorRefView sender{wire::AddressView::of(self_.address), kExternalAsker};
  const AskId id = start_ask(Asker{}, sender, target, type_tag, body, timeout, sent);
  WEFT_ASSERT(id != 0);  // 0 is no ask: completions are matched by id
  links_.sweep();
  return id;
}

AskId Kernel::start_ask(Asker asker, const wire::ActorRefView& sender, const ActorRef& target,
                        std::uint32_t type_tag, std::span<const std::uint8_t> body, Duration timeout,
                        SendResult* sent) {
  WEFT_ASSERT(timeout > Duration::zero());
  WEFT_ASSERT(asker.external() || asker.actor < actors_.size());
  if (asks_.full()) {
    if (sent != nullptr) *sent = SendResult::too_many_asks;
    const AskId id = asks_.refuse();
    complete_ask(PendingAsk{id, asker, target.node, now_}, AskOutcome::rejected, 0, {});
    return id;
  }
  const std::size_t pending_before = asks_.size();
  const AskId id = asks_.add(asker, target.node, now_ + timeout);
  WEFT_ASSERT(asks_.size() == pending_before + 1);
  wire::Envelope envelope{wire::MessageKind::ask, wire::ActorRefView::of(target), sender, id, type_tag, body};
  const SendResult result = send_user(envelope, target.local_slot);
  if (sent != nullptr) *sent = result;
  if (result != SendResult::sent) {
    if (const auto pending = asks_.take(id)) {
      complete_ask(*pending,
                   result == SendResult::member_down ? AskOutcome::target_down : AskOutcome::rejected, 0,
                   {});
    }
  }
  return id;
}

void Kernel::dead_letter(DeadLetterReason reason, const ActorRef& target, std::uint32_t type_tag) {
  ++counters_.dead_letters[static_cast<std::size_t>(reason)];
  events_.push_back(DeadLetter{reason, target, type_tag});
}

SendResult Kernel::send_user(const wire::Envelope& envelope, std::uint32_t slot_hint, bool urgent) {
  // A malformed ref is the caller's mistake, reported, never a crash.
  const wire::ActorRefView& t = envelope.target;
  if (t.name.empty() || t.name.size() > wire::kMaxActorNameBytes || t.node.host.empty() ||
      t.node.host.size() > wire::kMaxHostBytes || t.node.port == 0) {
    return SendResult::invalid_target;
  }
  const wire::AddressView node = envelope.target.node;
  if (node.port == self_.address.port && node.host == self_.address.host) {
    // Short-circuit: a local target never touches the codec or a link (S5).
    if (envelope.kind == wire::MessageKind::reply) {
      if (const auto pending = asks_.take(envelope.correlation_id)) {
        complete_ask(*pending, AskOutcome::reply, envelope.type_tag, envelope.body);
      } else {
        dead_letter(DeadLetterReason::late_reply, envelope.target.to_owned(), envelope.type_tag);
      }
      return SendResult::sent;
    }
    return deliver_local(envelope.target.name,
                         Delivery{delivery_kind(envelope.kind), view_of(envelope.sender),
                                  envelope.correlation_id, envelope.type_tag, envelope.body},
                         slot_hint);
  }
  NodeAddress address = node.to_owned();
  WEFT_ASSERT(address != self_.address);  // the short-circuit above took this node's own
  const Member* member = members_.find(address);
  if (member == nullptr) {
    dead_letter(DeadLetterReason::unknown_member, envelope.target.to_owned(), envelope.type_tag);
    return SendResult::unknown_member;
  }
  if (!is_live_status(member->status)) {
    dead_letter(DeadLetterReason::member_down, envelope.target.to_owned(), envelope.type_tag);
    return SendResult::member_down;
  }
  // Sized once: the same number checks both bounds and lays out the frame.
  const std::size_t payload_bytes = wire::encoded_size(envelope);
  if (payload_bytes > config_.max_frame_bytes) {
    dead_letter(DeadLetterReason::too_large, envelope.target.to_owned(), envelope.type_tag);
    return SendResult::too_large;
  }
  if (config_.mutations.misroute_user) {
    for (const Member& m : members_.members()) {
      if (m.address() > address && m.address() != self_.address && is_live_status(m.status)) {
        address = m.address();
        break;
      }
    }
  }
  Outbound& out = outbound(address);
  const std::size_t queued = urgent ? out.control.size() : out.user_queued();
  const std::size_t bound = urgent ? Context::kMaxUrgentBytes : config_.max_outbound_user_bytes;
  if (queued + wire::kFrameHeaderBytes + payload_bytes > bound && !config_.mutations.outbound_unbounded) {
    dead_letter(DeadLetterReason::outbound_full, envelope.target.to_owned(), envelope.type_tag);
    return SendResult::outbound_full;
  }
  if (urgent) {
    wire::append_encoded_frame(out.control, envelope, payload_bytes);
    ++counters_.frames_out;
    return SendResult::sent;
  }
  wire::append_encoded_frame(out.user, envelope, payload_bytes);
  ++out.user_frames;
  ++counters_.frames_out;
  return SendResult::sent;
}

// The actor a ref from spawn() names, if the ref still names it: the slot
// spawn wrote into the ref holds an actor with the ref's very name and
// address (ids.hpp, ActorRef::local_slot); kNoSlot otherwise.
Behavior* Kernel::local_behavior(std::string_view name) const {
  if (last_found_ < actors_.size() && same_text(actors_[last_found_]->name, name)) {
    return actors_[last_found_]->behavior.get();
  }
  const auto found = actor_index_.find(name);
  return found == actor_index_.end() ? nullptr : actors_[found->second]->behavior.get();
}

std::uint32_t Kernel::spawned_slot(const ActorRef& target) const {
  const std::uint32_t slot = target.local_slot;
  if (slot >= actors_.size()) return ActorRef::kNoSlot;
  const ActorRef& own = actors_[slot]->ref;
  if (own.node.port != target.node.port || !same_text(own.name, target.name) ||
      !same_text(own.node.host, target.node.host)) {
    return ActorRef::kNoSlot;
  }
  return slot;
}

// The target's address is this node's; only its name is left to resolve:
// through the ref's slot, else the actor last found by name (messages come
// in streams to one actor, and a name off the wire has no slot), else the
// index.
SendResult Kernel::deliver_local(std::string_view name, const Delivery& delivery, std::uint32_t slot_hint) {
  const auto names = [&](std::uint32_t index) {
    return index < actors_.size() && same_text(actors_[index]->name, name);
  };
  std::uint32_t index = slot_hint;
  if (!names(index)) {
    index = last_found_;
    if (!names(index)) {
      const auto found = actor_index_.find(name);
      if (found == actor_index_.end()) {
        dead_letter(DeadLetterReason::unknown_actor, ActorRef{self_.address, std::string(name)},
                    delivery.type_tag);
        return SendResult::unknown_actor;
      }
      index = found->second;
      WEFT_ASSERT(index < actors_.size() && actors_[index]->name == name);  // the index is of spawned actors
      last_found_ = index;
    }
  }
  return deliver_to(index, delivery);
}

SendResult Kernel::deliver_to(std::uint32_t index, const Delivery& delivery) {
  WEFT_ASSERT(index < actors_.size());
  Actor& actor = *actors_[index];
  switch (actor.mailbox.push(delivery, &dropped_)) {
    case PushResult::queued: break;
    case PushResult::rejected:
      mark(Mark::mailbox_overflow);
      dead_letter(DeadLetterReason::mailbox_full, actor.ref, delivery.type_tag);
      return SendResult::mailbox_full;
    case PushResult::dropped_oldest:
      mark(Mark::mailbox_overflow);
      dead_letter(DeadLetterReason::mailbox_full, actor.ref, dropped_.type_tag());
      break;
  }
  counters_.mailbox_high_water = std::max<std::uint64_t>(counters_.mailbox_high_water, actor.mailbox.size());
  if (!actor.scheduled) {
    actor.scheduled = true;
    run_queue_.push_back(index);
  }
  WEFT_ASSERT(!actor.mailbox.empty());  // what was queued waits in the run queue
  return SendResult::sent;
}

void Kernel::on_envelope(const MemberId& peer, const wire::Envelope& envelope) {
  (void)peer;
  if ((envelope.target.node.host != self_.address.host || envelope.target.node.port != self_.address.port) &&
      !config_.mutations.misroute_user) {
    dead_letter(DeadLetterReason::misdelivered, envelope.target.to_owned(), envelope.type_tag);
    return;
  }
  if (envelope.kind == wire::MessageKind::reply) {
    if (const auto pending = asks_.take(envelope.correlation_id)) {
      if (config_.mutations.reply_body_stale) {
        const std::vector<std::uint8_t> stale =
            std::exchange(previous_reply_body_, {envelope.body.begin(), envelope.body.end()});
        complete_ask(*pending, AskOutcome::reply, envelope.type_tag, stale);
      } else {
        complete_ask(*pending, AskOutcome::reply, envelope.type_tag, envelope.body);
      }
      if (config_.mutations.replies_complete_twice) {
        asks_.restore(*pending);
      }
    } else {
      dead_letter(DeadLetterReason::late_reply, envelope.target.to_owned(), envelope.type_tag);
    }
    return;
  }
  const Delivery delivery{delivery_kind(envelope.kind), view_of(envelope.sender), envelope.correlation_id,
                          envelope.type_tag, envelope.body};
  (void)deliver_local(envelope.target.name, delivery);
  if (config_.mutations.duplicate_delivery && envelope.kind == wire::MessageKind::tell) {
    (void)deliver_local(envelope.target.name, delivery);
  }
}

void Kernel::complete_ask(const PendingAsk& ask, AskOutcome outcome, std::uint32_t type_tag,
                          std::span<const std::uint8_t> body) {
  if (ask.asker.external()) {
    events_.push_back(AskCompleted{ask.id, outcome, type_tag, {body.begin(), body.end()}});
    return;
  }
  WEFT_ASSERT(ask.asker.actor < actors_.size());
  Actor& actor = *actors_[ask.asker.actor];
  DeliveryKind kind = DeliveryKind::reply;
  switch (outcome) {
    case AskOutcome::reply: kind = DeliveryKind::reply; break;
    case AskOutcome::timeout: kind = DeliveryKind::ask_timeout; break;
    case AskOutcome::target_down: kind = DeliveryKind::ask_target_down; break;
    case AskOutcome::rejected: kind = DeliveryKind::ask_rejected; break;
  }
  actor.system.emplace_back().fill_completion(kind, ask.id, type_tag, body);
  if (!actor.scheduled) {
    actor.scheduled = true;
    run_queue_.push_back(ask.asker.actor);
  }
}

void Kernel::fail_asks_to(const NodeAddress& node) {
  if (config_.mutations.down_keeps_asks) return;
  for (const PendingAsk& ask : asks_.take_for_node(node)) {
    WEFT_ASSERT(ask.target_node == node);
    complete_ask(ask, AskOutcome::target_down, 0, {});
  }
}

void Kernel::expire_asks() {
  if (config_.mutations.ask_timeout_off) return;
  const Instant expired_by = now_ - ask_expiry_delay();
  for (const PendingAsk& ask : asks_.take_expired(expired_by)) {
    WEFT_ASSERT(ask.deadline <= expired_by);
    complete_ask(ask, AskOutcome::timeout, 0, {});
  }
  // Every ask left is still inside its time (S2: none completes late).
  WEFT_ASSERT(asks_.next_deadline() > expired_by);
}

Instant Kernel::next_ask_expiry() const {
  const Instant next = asks_.next_deadline();
  if (config_.mutations.ask_timeout_off || next == Instant::never()) return Instant::never();
  return next + ask_expiry_delay();
}

Duration Kernel::ask_expiry_delay() const {
  return config_.mutations.ask_timeout_late ? Duration::milliseconds(600) : Duration::zero();
}

void Kernel::deliver_system(std::uint32_t index, DeliveryKind kind, std::uint32_t type_tag) {
  Actor& actor = *actors_[index];
  WEFT_ASSERT(kind == DeliveryKind::members_changed || kind == DeliveryKind::timer);
  actor.system.emplace_back().fill(Delivery{kind, {}, 0, type_tag, {}});
  if (!actor.scheduled) {
    actor.scheduled = true;
    run_queue_.push_back(index);
  }
}

void Kernel::fire_actor_timers() {
  for (const ActorTimers::Key& key : actor_timers_.take_due(now_)) {
    WEFT_ASSERT(key.actor < actors_.size());
    deliver_system(key.actor, DeliveryKind::timer, key.tag);
  }
}

// One members_changed per watcher however many changes come before it runs:
// the watcher reads the table itself, so the deliveries stay bounded.
void Kernel::notify_member_watchers() {
  for (std::uint32_t index = 0; index < actors_.size(); ++index) {
    Actor& actor = *actors_[index];
    if (!actor.watches_members || actor.members_change_queued) continue;
    actor.members_change_queued = true;
    deliver_system(index, DeliveryKind::members_changed, 0);
  }
}

void Kernel::dispatch() {
  std::uint32_t budget = config_.dispatch_budget;
  MailboxSlot& current = dispatching_;
  while (budget > 0 && !run_queue_.empty()) {
    const std::uint32_t index = run_queue_.front();
    run_queue_.pop_front();
    WEFT_ASSERT(index < actors_.size() && actors_[index]->scheduled);  // queued once, while scheduled
    actors_[index]->scheduled = false;
    for (std::uint32_t n = 0; n < config_.dispatch_batch && budget > 0; ++n, --budget) {
      Actor& actor = *actors_[index];  // re-read: a behaviour may spawn and grow actors_
      if (!actor.system.empty()) {
        swap(current, actor.system.front());
        actor.system.pop_front();
        if (current.kind() == DeliveryKind::members_changed) actor.members_change_queued = false;
      } else if (!actor.mailbox.empty()) {
        // Taken out, so the behaviour may enqueue to itself while it runs.
        if (config_.mutations.mailbox_lifo && actor.mailbox.size() >= 2) {
          actor.mailbox.take_newest(current);
        } else {
          actor.mailbox.take(current);
        }
      } else {
        break;
      }
      ActorContext context(*this, index, current);
      actor.behavior->receive(context, current.view());
      ++counters_.user_messages_dispatched;
    }
    Actor& actor = *actors_[index];
    if (!actor.scheduled && (!actor.system.empty() || !actor.mailbox.empty())) {
      actor.scheduled = true;
      run_queue_.push_back(index);
    }
  }
  // Bounded: the loop stops only on an exhausted budget or an empty queue.
  WEFT_ASSERT(budget == 0 || run_queue_.empty());
}

std::size_t Kernel::mailbox_size(std::string_view actor) const {
  const auto found = actor_index_.find(actor);
  return found == actor_index_.end() ? 0 : actors_[found->second]->mailbox.size();
}

Behavior* Kernel::behavior(std::string_view actor) {
  const auto found = actor_index_.find(actor);
  return found == actor_index_.end() ? nullptr : actors_[found->second]->behavior.get();
}

std::size_t Kernel::deepest_mailbox() const {
  std::size_t deepest = 0;
  for (const std::unique_ptr<Actor>& actor : actors_) deepest = std::max<std::size_t>(deepest, actor->mailbox.size());
  return deepest;
}

}  // namespace weft
