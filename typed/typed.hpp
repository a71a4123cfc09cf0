// Typed messages over the bytes-only kernel: MessagePack bodies through
// msgpack-c, type tags from a protocol declared once, a Behavior that
// dispatches by tag, and counted dead letters for bodies that do not decode.
//
//   struct Increment { std::string key; std::int64_t by; MSGPACK_DEFINE(key, by) };
//   struct Value { std::int64_t count; MSGPACK_DEFINE(count) };
//   using Counter = weft::typed::Protocol<weft::typed::Message<Increment, 1>,
//                                         weft::typed::Message<Value, 2>>;
//
// The kernel never sees any of this: it moves (type_tag, body bytes) as
// before, so typed and raw actors share a cluster, and the kernel stays free
// of msgpack. This header is the only place the two meet.
//
// Tags are fixed at compile time, in the protocol's type: two messages with
// one tag, or one type registered twice, do not compile (a static_assert
// says which), and sending a type the protocol lacks does not compile
// either. So a tag mix-up cannot reach a running cluster from one binary;
// between binaries built from different protocol headers, the receiving
// side's checks below are what stands.
//
// Exceptions. msgpack-c reports a bad body by throwing. Nothing thrown while
// decoding, or by a handler, leaves TypedBehavior::receive: the kernel calls
// receive() from its dispatch loop and is not written to be unwound. Each
// such message is a dead letter of this actor: counted by reason
// (dead_letters()) and handed to the on_dead_letter hook if one is set. The
// kernel's own dead-letter counters do not see them; it delivered the bytes.
// Encoding throws only when msgpack-c refuses a value (a string, array or map
// of 2^32 elements or more) or memory runs out, and it happens before any
// kernel call: in a handler it is caught like any other handler exception,
// elsewhere it reaches the caller.
#pragma once

#include <msgpack.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "app/metrics.hpp"
#include "kernel/actors/behavior.hpp"
#include "kernel/kernel.hpp"

namespace weft::typed {

// One registration: messages of type T travel with type tag Tag. T must own
// its data (std::string, not std::string_view, msgpack::object or
// msgpack::type::raw_ref): decoding builds views into the body and into a
// per-thread zone that is cleared before the handler runs, so a field that
// keeps such a view dangles.
template <class T, std::uint32_t Tag>
struct Message {
  using type = T;
  static constexpr std::uint32_t tag = Tag;
};

// Why a message never reached typed code.
enum class DeadLetterReason : std::uint8_t {
  unknown_tag,     // the tag is not in the protocol
  unexpected_tag,  // in the protocol, but not what the receiver takes here (no handler for it)
  malformed_body,  // not exactly one MessagePack value: bad bytes, truncated, trailing bytes, a size past the body
  wrong_type,      // one MessagePack value that does not convert to the tag's type
  handler_threw,   // the handler (or the dead-letter hook) threw; caught so the kernel is not unwound
};
inline constexpr std::size_t kDeadLetterReasonCount = 5;

constexpr std::string_view to_string(DeadLetterReason reason) {
  switch (reason) {
    case DeadLetterReason::unknown_tag: return "unknown_tag";
    case DeadLetterReason::unexpected_tag: return "unexpected_tag";
    case DeadLetterReason::malformed_body: return "malformed_body";
    case DeadLetterReason::wrong_type: return "wrong_type";
    case DeadLetterReason::handler_threw: return "handler_threw";
  }
  return "?";
}

struct DeadLetter {
  DeadLetterReason reason = DeadLetterReason::unknown_tag;
  DeliveryKind kind = DeliveryKind::tell;
  std::uint32_t type_tag = 0;
  std::string detail;  // what msgpack-c or the handler said, or which tag
};

// A body decoded as T, or why not.
template <class T>
struct Decoded {
  std::optional<T> value;
  DeadLetterReason reason = DeadLetterReason::unknown_tag;  // when !value
  std::string detail;                                       // when !value

  explicit operator bool() const { return value.has_value(); }
  T& operator*() { return *value; }
  const T& operator*() const { return *value; }
  T* operator->() { return &*value; }
  const T* operator->() const { return &*value; }
};

namespace detail {

template <class... Ms>
consteval bool distinct_tags() {
  const std::array<std::uint32_t, sizeof...(Ms)> tags{Ms::tag...};
  for (std::size_t i = 0; i < tags.size(); ++i) {
    for (std::size_t j = i + 1; j < tags.size(); ++j) {
      if (tags[i] == tags[j]) return false;
    }
  }
  return true;
}

// msgpack-c's packer writes through any stream with write(const char*, size_t).
struct VectorStream {
  std::vector<std::uint8_t>* out;
  void write(const char* data, std::size_t size) {
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(data);
    out->insert(out->end(), bytes, bytes + size);
  }
};

template <class T>
void pack_into(std::vector<std::uint8_t>& out, const T& message) {
  out.clear();
  VectorStream stream{&out};
  msgpack::pack(stream, message);
}

// One buffer per thread for outgoing bodies: the kernel copies a body before
// tell/ask/reply return, so the buffer is free again at once, and a steady
// sender allocates nothing here.
inline std::vector<std::uint8_t>& scratch() {
  thread_local std::vector<std::uint8_t> buffer;
  return buffer;
}

// The zone msgpack-c builds decoded objects in, kept per thread for the same
// reason. Strings and binaries are referenced in the body rather than copied
// (the body outlives the conversion), so the zone holds only the object tree.
inline msgpack::zone& zone() {
  thread_local msgpack::zone z;
  return z;
}

inline bool reference_everything(msgpack::type::object_type, std::size_t, void*) { return true; }

inline std::string describe(const msgpack::object& object) {
  std::ostringstream text;
  text << object;
  std::string s = std::move(text).str();
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

template <class T>
Decoded<T> unpack_as(std::span<const std::uint8_t> body) {
  Decoded<T> out;
  msgpack::zone& z = zone();
  // Cleared on every way out, so a bad body leaves nothing behind for the next.
  struct Clear {
    msgpack::zone& z;
    ~Clear() { z.clear(); }
  } clear{z};
  // Every element of an array takes at least one byte of the body (a map
  // entry two), and so does every byte of a string: limits at the body's
  // length refuse a header that claims more before msgpack-c allocates for
  // it. Without them five bytes (0xdd ff ff ff ff) ask for 4 Gi objects.
  const std::size_t n = body.size();
  const msgpack::unpack_limit limit(n, n / 2, n, n, n);
  msgpack::object object;
  std::size_t offset = 0;
  try {
    object = msgpack::unpack(z, reinterpret_cast<const char*>(body.data()), n, offset, &reference_everything,
                             nullptr, limit);
  } catch (const std::exception& e) {
    out.reason = DeadLetterReason::malformed_body;
    out.detail = e.what();
    return out;
  } catch (...) {
    out.reason = DeadLetterReason::malformed_body;
    out.detail = "msgpack-c threw an exception not derived from std::exception";
    return out;
  }
  if (offset != n) {
    out.reason = DeadLetterReason::malformed_body;
    out.detail = std::to_string(n - offset) + " bytes after the value";
    return out;
  }
  try {
    // Value-initialised: msgpack-c leaves the fields of a shorter array
    // untouched (that is how a message gains fields), so they must not be
    // indeterminate.
    T value{};
    object.convert(value);
    out.value.emplace(std::move(value));
  } catch (...) {
    // msgpack-c throws type_error; a user's own adaptor may throw anything.
    out.reason = DeadLetterReason::wrong_type;
    out.detail = "does not convert: " + describe(object);
  }
  return out;
}

}  // namespace detail

// The messages a set of actors speak: each type once, each tag once.
template <class... Messages>
class Protocol {
 public:
  static_assert(sizeof...(Messages) > 0, "weft::typed::Protocol: no messages registered");
  static_assert(detail::distinct_tags<Messages...>(),
                "weft::typed::Protocol: two messages share a type tag; give each message its own tag");

  static constexpr std::size_t size = sizeof...(Messages);
  static constexpr std::array<std::uint32_t, size> tags{Messages::tag...};

 private:
  template <class T>
  static constexpr std::size_t count_of = (std::size_t{0} + ... + std::size_t{std::is_same_v<T, typename Messages::type>});

 public:
  static_assert(((count_of<typename Messages::type> == 1) && ...),
                "weft::typed::Protocol: a message type is registered twice; register each type with one tag");

  // At least once, not exactly: a type registered twice already fails the
  // assertion above, and saying "not registered" of it as well would mislead.
  template <class T>
  static constexpr bool has = count_of<T> > 0;

  // Position of T in the registration list.
  template <class T>
  static consteval std::size_t index_of() {
    static_assert(has<T>, "weft::typed::Protocol: this message type is not registered in the protocol");
    constexpr std::array<bool, size> same{std::is_same_v<T, typename Messages::type>...};
    std::size_t i = 0;
    while (!same[i]) ++i;
    return i;
  }

  template <class T>
  static constexpr std::uint32_t tag = tags[index_of<T>()];

  // Position of a tag in the registration list; nothing if unregistered.
  static constexpr std::optional<std::size_t> index_of_tag(std::uint32_t tag_value) {
    for (std::size_t i = 0; i < size; ++i) {
      if (tags[i] == tag_value) return i;
    }
    return std::nullopt;
  }

  template <class T>
  static std::vector<std::uint8_t> encode(const T& message) {
    static_assert(has<T>, "weft::typed::Protocol: this message type is not registered in the protocol");
    std::vector<std::uint8_t> out;
    detail::pack_into(out, message);
    return out;
  }
  // Into a caller's buffer (cleared first), to reuse its capacity.
  template <class T>
  static void encode_into(std::vector<std::uint8_t>& out, const T& message) {
    static_assert(has<T>, "weft::typed::Protocol: this message type is not registered in the protocol");
    detail::pack_into(out, message);
  }

  // The body as T, if `tag_value` is T's tag and the body is one MessagePack
  // value that converts to T. Never throws msgpack-c's exceptions.
  template <class T>
  static Decoded<T> decode(std::uint32_t tag_value, std::span<const std::uint8_t> body) {
    if (tag_value != tag<T>) {
      Decoded<T> out;
      out.reason = index_of_tag(tag_value) ? DeadLetterReason::unexpected_tag : DeadLetterReason::unknown_tag;
      out.detail = "tag " + std::to_string(tag_value) + ", expected " + std::to_string(tag<T>);
      return out;
    }
    return detail::unpack_as<T>(body);
  }

  // Sends from outside any actor (a driver, a test, the simulator's clients).
  template <class T>
  static SendResult tell(Kernel& kernel, Instant now, const ActorRef& target, const T& message) {
    std::vector<std::uint8_t>& body = detail::scratch();
    encode_into(body, message);
    return kernel.tell(now, target, tag<T>, body);
  }
  // The AskCompleted it yields decodes with decode<Reply>(done.type_tag, done.body).
  template <class T>
  static AskId ask(Kernel& kernel, Instant now, const ActorRef& target, const T& message, Duration timeout) {
    std::vector<std::uint8_t>& body = detail::scratch();
    encode_into(body, message);
    return kernel.ask(now, target, tag<T>, body, timeout);
  }
};

// What a typed handler gets: the delivery's context with typed sends.
template <class P>
class TypedContext {
 public:
  TypedContext(Context& context, const Delivery& delivery) : context_(context), delivery_(delivery) {}

  Context& raw() const { return context_; }
  const ActorRef& self() const { return context_.self(); }
  Instant now() const { return context_.now(); }
  DeliveryKind kind() const { return delivery_.kind; }
  bool is_ask() const { return delivery_.kind == DeliveryKind::ask; }
  // Valid during the handler only, like the delivery it comes from.
  const ActorRefView& sender() const { return delivery_.sender; }
  // The ask's id: for an ask being handled, and for a reply or failure of
  // an ask this actor made (the id ask() returned).
  std::uint64_t correlation_id() const { return delivery_.correlation_id; }
  std::uint32_t type_tag() const { return delivery_.type_tag; }

  template <class T>
  SendResult tell(const ActorRef& target, const T& message) {
    std::vector<std::uint8_t>& body = detail::scratch();
    P::encode_into(body, message);
    return context_.tell(target, P::template tag<T>, body);
  }
  // The answer arrives through on_reply<R>, a failure through on_ask_failed.
  template <class T>
  AskId ask(const ActorRef& target, const T& message, Duration timeout) {
    std::vector<std::uint8_t>& body = detail::scratch();
    P::encode_into(body, message);
    return context_.ask(target, P::template tag<T>, body, timeout);
  }
  // Answers the ask being handled (outside an ask the kernel counts a
  // reply_outside_ask dead letter).
  template <class T>
  SendResult reply(const T& message) {
    std::vector<std::uint8_t>& body = detail::scratch();
    P::encode_into(body, message);
    return context_.reply(P::template tag<T>, body);
  }

 private:
  Context& context_;
  const Delivery& delivery_;
};

// A Behavior that decodes by tag and calls a handler per message type.
//
//   class Shard final : public TypedBehavior<Counter> {
//    public:
//     Shard() { on<Increment>([this](Ctx& ctx, const Increment& m) { ... ctx.reply(Value{...}); }); }
//   };
//
// Handlers may take the message as const T&, T&& or T. A delivery that has
// no handler, or whose body does not decode, is a dead letter of this
// actor (see the file comment); an ask among them gets no reply unless the
// on_dead_letter hook sends one, so its asker sees a timeout otherwise.
// Hosted by weft::daemon::main or weft::sim::main (app/application.hpp),
// the dead letters are also counted in the node's metrics as
// weft_typed_dead_letters_total{actor, reason} (export_metrics).
template <class P>
class TypedBehavior : public Behavior, public ExportsMetrics {
 public:
  using Ctx = TypedContext<P>;
  using DeadLetterHook = std::function<void(Ctx&, const DeadLetter&)>;

  TypedBehavior() = default;
  // Handlers often capture `this`: a copy would call into the original.
  TypedBehavior(const TypedBehavior&) = delete;
  TypedBehavior& operator=(const TypedBehavior&) = delete;

  // Tells and asks tagged P::tag<T>. Registering T again replaces its handler.
  template <class T, class F>
  void on(F&& handler) {
    static_assert(std::is_invocable_v<F&, Ctx&, T&&>, "on<T>: the handler must be callable as (Ctx&, T)");
    messages_[P::template index_of<T>()] = thunk<T>(
        [h = std::forward<F>(handler)](Ctx& ctx, T&& message) mutable { std::invoke(h, ctx, std::move(message)); });
  }
  // Replies to asks this actor made, tagged P::tag<T>: handler(ctx, ask id, reply).
  template <class T, class F>
  void on_reply(F&& handler) {
    static_assert(std::is_invocable_v<F&, Ctx&, AskId, T&&>,
                  "on_reply<T>: the handler must be callable as (Ctx&, AskId, T)");
    replies_[P::template index_of<T>()] = thunk<T>([h = std::forward<F>(handler)](Ctx& ctx, T&& message) mutable {
      std::invoke(h, ctx, AskId{ctx.correlation_id()}, std::move(message));
    });
  }
  // Asks this actor made that ended without a reply: handler(ctx, ask id,
  // kind), kind being ask_timeout, ask_target_down or ask_rejected.
  template <class F>
  void on_ask_failed(F&& handler) {
    ask_failed_ = std::forward<F>(handler);
  }
  // Wake-ups the actor asked for (Context::start_timer, watch_members):
  // handler(ctx, tag) and handler(ctx).
  template <class F>
  void on_timer(F&& handler) {
    timer_ = std::forward<F>(handler);
  }
  template <class F>
  void on_members_changed(F&& handler) {
    members_changed_ = std::forward<F>(handler);
  }
  // Called for each dead letter after it is counted; while it runs, an ask
  // among them is still the message being handled, so the hook may reply.
  void on_dead_letter(DeadLetterHook hook) { dead_letter_hook_ = std::move(hook); }

  void receive(Context& context, const Delivery& message) final {
    Ctx ctx(context, message);
    try {
      switch (message.kind) {
        case DeliveryKind::tell:
        case DeliveryKind::ask:
          route(ctx, message, messages_);
          break;
        case DeliveryKind::reply:
          route(ctx, message, replies_);
          break;
        case DeliveryKind::ask_timeout:
        case DeliveryKind::ask_target_down:
        case DeliveryKind::ask_rejected:
          if (ask_failed_) ask_failed_(ctx, AskId{message.correlation_id}, message.kind);
          break;
        case DeliveryKind::timer:
          if (timer_) timer_(ctx, message.type_tag);
          break;
        case DeliveryKind::members_changed:
          if (members_changed_) members_changed_(ctx);
          break;
      }
    } catch (const std::exception& e) {
      drop(ctx, DeadLetterReason::handler_threw, e.what());
    } catch (...) {
      drop(ctx, DeadLetterReason::handler_threw, "an exception not derived from std::exception");
    }
  }

  // Every reason's series, registered now so a zero shows on /metrics
  // before the first dead letter.
  void export_metrics(Metrics& metrics, std::string_view actor) override {
    for (std::size_t i = 0; i < kDeadLetterReasonCount; ++i) {
      const auto reason = static_cast<DeadLetterReason>(i);
      exported_[i] = &metrics.weft_counter(
          "weft_typed_dead_letters_total", "messages a typed actor could not handle, by actor and reason",
          {{"actor", std::string(actor)}, {"reason", std::string(to_string(reason))}});
      exported_[i]->add(dead_letters_[i]);  // any counted before the export
    }
  }

  std::uint64_t dead_letters(DeadLetterReason reason) const { return dead_letters_[static_cast<std::size_t>(reason)]; }
  std::uint64_t dead_letters() const {
    std::uint64_t total = 0;
    for (const std::uint64_t n : dead_letters_) total += n;
    return total;
  }

 private:
  struct Problem {
    DeadLetterReason reason;
    std::string detail;
  };
  // Decodes the body as T and calls the handler; a body that does not
  // decode comes back as the problem, the handler not called.
  using Thunk = std::function<std::optional<Problem>(Ctx&, std::span<const std::uint8_t>)>;
  using Table = std::array<Thunk, P::size>;

  template <class T, class Call>
  static Thunk thunk(Call call) {
    return [call = std::move(call)](Ctx& ctx, std::span<const std::uint8_t> body) mutable -> std::optional<Problem> {
      Decoded<T> decoded = detail::unpack_as<T>(body);
      if (!decoded) return Problem{decoded.reason, std::move(decoded.detail)};
      call(ctx, std::move(*decoded.value));
      return std::nullopt;
    };
  }

  void route(Ctx& ctx, const Delivery& message, Table& table) {
    const std::optional<std::size_t> index = P::index_of_tag(message.type_tag);
    if (!index) {
      drop(ctx, DeadLetterReason::unknown_tag, "tag " + std::to_string(message.type_tag) + " is not in the protocol");
      return;
    }
    Thunk& handle = table[*index];
    if (!handle) {
      drop(ctx, DeadLetterReason::unexpected_tag,
           "no handler for tag " + std::to_string(message.type_tag) + " on a " + std::string(to_string(message.kind)));
      return;
    }
    if (std::optional<Problem> problem = handle(ctx, message.body)) drop(ctx, problem->reason, std::move(problem->detail));
  }

  void drop(Ctx& ctx, DeadLetterReason reason, std::string detail) {
    count(reason);
    if (!dead_letter_hook_) return;
    try {
      dead_letter_hook_(ctx, DeadLetter{reason, ctx.kind(), ctx.type_tag(), std::move(detail)});
    } catch (...) {
      // Counted, not reported again: the hook is what would report it.
      count(DeadLetterReason::handler_threw);
    }
  }
  void count(DeadLetterReason reason) {
    const auto i = static_cast<std::size_t>(reason);
    ++dead_letters_[i];
    if (exported_[i] != nullptr) exported_[i]->add();
  }

  Table messages_{};
  Table replies_{};
  std::function<void(Ctx&, AskId, DeliveryKind)> ask_failed_;
  std::function<void(Ctx&, std::uint32_t)> timer_;
  std::function<void(Ctx&)> members_changed_;
  DeadLetterHook dead_letter_hook_;
  std::array<std::uint64_t, kDeadLetterReasonCount> dead_letters_{};
  std::array<Counter*, kDeadLetterReasonCount> exported_{};  // in the host's registry, once exported
};

}  // namespace weft::typed
