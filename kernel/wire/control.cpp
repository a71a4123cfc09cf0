// Codecs of the control messages (shapes in control.hpp): member ids, members
// and reachability rows as arrays, and gossip lists that leave sorted and are
// refused unless they arrive sorted.
#include "kernel/wire/control.hpp"

#include <algorithm>

#include "kernel/wire/refs.hpp"

namespace weft::wire {
namespace {

constexpr std::uint32_t kKindOnly = field_bit(kKindKey);
constexpr std::uint32_t kKindAndOne = kKindOnly | field_bit(1);
constexpr std::uint32_t kKindAndTwo = kKindAndOne | field_bit(2);
constexpr std::uint32_t kKindAndThree = kKindAndTwo | field_bit(3);
constexpr std::uint32_t kKindAndFour = kKindAndThree | field_bit(4);

std::size_t size_of_kind(MessageKind kind) {
  return 1 + Writer::size_of_uint(static_cast<std::uint8_t>(kind));
}
void write_kind(Writer& w, MessageKind kind) {
  w.write_uint(kKindKey);
  w.write_uint(static_cast<std::uint8_t>(kind));
}

std::size_t size_of_member_id(const MemberId& id) {
  return 1 + Writer::size_of_str(id.address.host.size()) + Writer::size_of_uint(id.address.port) +
         Writer::size_of_uint(id.incarnation.value);
}
// The orders a gossip state's lists travel in.
constexpr auto address_less = [](const Member& a, const Member& b) { return a.address() < b.address(); };
constexpr auto observer_less = [](const ReachabilityRow& a, const ReachabilityRow& b) {
  return a.observer < b.observer;
};

// What the decoder requires of a list, asserted before one is sent: a peer
// would close the link on it.
template <class Items, class Less = std::less<>>
bool strictly_increasing(const Items& items, Less less = Less()) {
  return std::adjacent_find(items.begin(), items.end(),
                            [&](const auto& a, const auto& b) { return !less(a, b); }) == items.end();
}

// What read_host_port refuses, this node never sends.
void check_sendable(const MemberId& id) {
  WEFT_ASSERT(!id.address.host.empty());
  WEFT_ASSERT(id.address.host.size() <= kMaxHostBytes);
  WEFT_ASSERT(id.address.port != 0);
}

void write_member_id(Writer& w, const MemberId& id) {
  check_sendable(id);
  w.write_array_header(3);
  w.write_str(id.address.host);
  w.write_uint(id.address.port);
  w.write_uint(id.incarnation.value);
}
// Reads host, port and incarnation (the array header already read).
WireError read_member_id_fields(Reader& r, MemberId& id) {
  AddressView address;
  if (WireError e = read_host_port(r, address); e != WireError::none) return e;
  if (WireError e = r.read_uint(id.incarnation.value); e != WireError::none) return e;
  id.address.host.assign(address.host);
  id.address.port = address.port;
  return WireError::none;
}
WireError read_member_id(Reader& r, MemberId& id) {
  std::uint32_t n = 0;
  if (WireError e = r.read_array_header(n); e != WireError::none) return e;
  if (n != 3) return WireError::wrong_type;
  return read_member_id_fields(r, id);
}

std::size_t size_of_member(const Member& m) {
  return size_of_member_id(m.id) + Writer::size_of_uint(static_cast<std::uint8_t>(m.status));
}
void write_member(Writer& w, const Member& m) {
  check_sendable(m.id);
  MemberStatus parsed{};
  WEFT_ASSERT(parse_member_status(static_cast<std::uint8_t>(m.status), parsed));
  w.write_array_header(4);
  w.write_str(m.id.address.host);
  w.write_uint(m.id.address.port);
  w.write_uint(m.id.incarnation.value);
  w.write_uint(static_cast<std::uint8_t>(m.status));
}
WireError read_member(Reader& r, Member& m) {
  std::uint32_t n = 0;
  if (WireError e = r.read_array_header(n); e != WireError::none) return e;
  if (n != 4) return WireError::wrong_type;
  if (WireError e = read_member_id_fields(r, m.id); e != WireError::none) return e;
  std::uint64_t status = 0;
  if (WireError e = r.read_uint(status); e != WireError::none) return e;
  return parse_member_status(status, m.status) ? WireError::none : WireError::invalid_value;
}

std::size_t size_of_row(const ReachabilityRow& row) {
  std::size_t size = 1 + size_of_member_id(row.observer) + Writer::size_of_uint(row.version) +
                     Writer::size_of_container_header(row.unreachable.size());
  for (const MemberId& s : row.unreachable) size += size_of_member_id(s);
  return size;
}
void write_row(Writer& w, const ReachabilityRow& row) {
  WEFT_ASSERT(strictly_increasing(row.unreachable));
  w.write_array_header(3);
  write_member_id(w, row.observer);
  w.write_uint(row.version);
  w.write_array_header(static_cast<std::uint32_t>(row.unreachable.size()));
  for (const MemberId& s : row.unreachable) write_member_id(w, s);
}

// Reads an array of T with `read_one`, bounded by kMaxGossipEntries and
// required to be strictly increasing under `less`, so the receiver can
// merge it without sorting and no entry appears twice.
template <class T, class ReadOne, class Less>
WireError read_sorted_list(Reader& r, std::vector<T>& out, ReadOne read_one, Less less) {
  std::uint32_t n = 0;
  if (WireError e = r.read_array_header(n); e != WireError::none) return e;
  if (n > kMaxGossipEntries) return WireError::invalid_value;
  // The reader bounded the count by the bytes left (each entry takes one at
  // least), so what is reserved here is bounded by the frame, whatever the
  // peer declared.
  WEFT_ASSERT(n <= r.remaining());
  out.clear();
  out.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    T item{};
    if (WireError e = read_one(r, item); e != WireError::none) return e;
    if (!out.empty() && !less(out.back(), item)) return WireError::invalid_value;
    out.push_back(std::move(item));
  }
  return WireError::none;
}

WireError read_row(Reader& r, ReachabilityRow& row) {
  std::uint32_t n = 0;
  if (WireError e = r.read_array_header(n); e != WireError::none) return e;
  if (n != 3) return WireError::wrong_type;
  if (WireError e = read_member_id(r, row.observer); e != WireError::none) return e;
  if (WireError e = r.read_uint(row.version); e != WireError::none) return e;
  return read_sorted_list(r, row.unreachable, read_member_id, std::less<MemberId>());
}

// --- Shapes shared by several messages.

// {kind, 1: uint}
std::size_t size_of_uint_message(MessageKind kind, std::uint64_t value) {
  return 1 + size_of_kind(kind) + 1 + Writer::size_of_uint(value);
}
void write_uint_message(Writer& w, MessageKind kind, std::uint64_t value) {
  w.write_map_header(2);
  write_kind(w, kind);
  w.write_uint(1);
  w.write_uint(value);
}
// {kind, 1: member_id, 2: uint}
std::size_t size_of_subject_message(MessageKind kind, const MemberId& subject, std::uint64_t value) {
  return 1 + size_of_kind(kind) + 1 + size_of_member_id(subject) + 1 + Writer::size_of_uint(value);
}
void write_subject_message(Writer& w, MessageKind kind, const MemberId& subject, std::uint64_t value) {
  w.write_map_header(3);
  write_kind(w, kind);
  w.write_uint(1);
  write_member_id(w, subject);
  w.write_uint(2);
  w.write_uint(value);
}

// The three lists of a gossip state (and of a delta), under keys first,
// first + 1 and first + 2, as decode_gossip_state requires them.
std::size_t size_of_tables(std::span<const Member> members, std::span<const ReachabilityRow> rows,
                           std::span<const std::uint8_t> seen) {
  std::size_t size = 1 + Writer::size_of_container_header(members.size());
  for (const Member& member : members) size += size_of_member(member);
  size += 1 + Writer::size_of_container_header(rows.size());
  for (const ReachabilityRow& row : rows) size += size_of_row(row);
  size += 1 + Writer::size_of_bin(seen.size());
  return size;
}
void write_tables(Writer& w, unsigned first, std::span<const Member> members, std::span<const ReachabilityRow> rows,
                  std::span<const std::uint8_t> seen) {
  WEFT_ASSERT(members.size() <= kMaxGossipEntries);
  WEFT_ASSERT(rows.size() <= kMaxGossipEntries);
  WEFT_ASSERT(seen.size() <= seen_bytes_for(kMaxGossipEntries));
  WEFT_ASSERT(strictly_increasing(members, address_less));
  WEFT_ASSERT(strictly_increasing(rows, observer_less));
  w.write_uint(first);
  w.write_array_header(static_cast<std::uint32_t>(members.size()));
  for (const Member& member : members) write_member(w, member);
  w.write_uint(first + 1);
  w.write_array_header(static_cast<std::uint32_t>(rows.size()));
  for (const ReachabilityRow& row : rows) write_row(w, row);
  w.write_uint(first + 2);
  w.write_bin(seen);
}
// List `index` (0 members, 1 rows, 2 seen) of a gossip state or delta.
WireError read_table(Reader& r, unsigned index, std::vector<Member>& members, std::vector<ReachabilityRow>& rows,
                     std::vector<std::uint8_t>& seen) {
  switch (index) {
    case 0: return read_sorted_list(r, members, read_member, address_less);
    case 1: return read_sorted_list(r, rows, read_row, observer_less);
    default: {
      WEFT_ASSERT(index == 2);
      Bytes bits;
      if (WireError e = r.read_bin(bits); e != WireError::none) return e;
      if (bits.size() > seen_bytes_for(kMaxGossipEntries)) return WireError::invalid_value;
      seen.assign(bits.begin(), bits.end());
      return WireError::none;
    }
  }
}

template <class T>
Decoded<T> decode_uint_message(Bytes payload, MessageKind kind, std::uint64_t T::*field) {
  T message{};
  const WireError e = decode_fields_of(payload, kind, kKindAndOne, [&](unsigned key, Reader& r) {
    WEFT_ASSERT(key == 1);  // decode_fields hands over required keys only
    return r.read_uint(message.*field);
  });
  if (e != WireError::none) return {.error = e};
  return {.value = message};
}

template <class T>
Decoded<T> decode_subject_message(Bytes payload, MessageKind kind) {
  T message{};
  const WireError e = decode_fields_of(payload, kind, kKindAndTwo, [&](unsigned key, Reader& r) {
    WEFT_ASSERT(key == 1 || key == 2);  // decode_fields hands over required keys only
    return key == 1 ? read_member_id(r, message.subject) : r.read_uint(message.probe);
  });
  if (e != WireError::none) return {.error = e};
  return {.value = message};
}

}  // namespace

MessageKind kind_of(const Join&) { return MessageKind::join; }
MessageKind kind_of(const Heartbeat&) { return MessageKind::heartbeat; }
MessageKind kind_of(const HeartbeatAck&) { return MessageKind::heartbeat_ack; }
MessageKind kind_of(const ProbeRequest&) { return MessageKind::probe_request; }
MessageKind kind_of(const Probe&) { return MessageKind::probe; }
MessageKind kind_of(const ProbeAck&) { return MessageKind::probe_ack; }
MessageKind kind_of(const ProbeAlive&) { return MessageKind::probe_alive; }
MessageKind kind_of(const GossipDigest&) { return MessageKind::gossip_digest; }
MessageKind kind_of(const GossipState&) { return MessageKind::gossip_state; }
MessageKind kind_of(const GossipStateView&) { return MessageKind::gossip_state; }
MessageKind kind_of(const GossipDelta&) { return MessageKind::gossip_delta; }
MessageKind kind_of(const GossipDeltaView&) { return MessageKind::gossip_delta; }

std::size_t encoded_size(const Join& m) { return 1 + size_of_kind(kind_of(m)); }
std::size_t encoded_size(const Heartbeat& m) { return size_of_uint_message(kind_of(m), m.sequence); }
std::size_t encoded_size(const HeartbeatAck& m) { return size_of_uint_message(kind_of(m), m.sequence); }
std::size_t encoded_size(const Probe& m) { return size_of_uint_message(kind_of(m), m.probe); }
std::size_t encoded_size(const ProbeAck& m) { return size_of_uint_message(kind_of(m), m.probe); }
std::size_t encoded_size(const GossipDigest& m) {
  return 1 + size_of_kind(kind_of(m)) + 1 + Writer::size_of_uint(m.digest) + 1 + Writer::size_of_uint(m.seen);
}
std::size_t encoded_size(const ProbeRequest& m) {
  return size_of_subject_message(kind_of(m), m.subject, m.probe);
}
std::size_t encoded_size(const ProbeAlive& m) {
  return size_of_subject_message(kind_of(m), m.subject, m.probe);
}
std::size_t encoded_size(const GossipState& m) { return encoded_size(GossipStateView::of(m)); }
std::size_t encoded_size(const GossipStateView& m) {
  return 1 + size_of_kind(kind_of(m)) + size_of_tables(m.members, m.rows, m.seen);
}
std::size_t encoded_size(const GossipDelta& m) { return encoded_size(GossipDeltaView::of(m)); }
std::size_t encoded_size(const GossipDeltaView& m) {
  return 1 + size_of_kind(kind_of(m)) + 1 + Writer::size_of_uint(m.digest) +
         size_of_tables(m.members, m.rows, m.seen);
}

void encode(const Join& m, Writer& w) {
  w.write_map_header(1);
  write_kind(w, kind_of(m));
}
void encode(const Heartbeat& m, Writer& w) { write_uint_message(w, kind_of(m), m.sequence); }
void encode(const HeartbeatAck& m, Writer& w) { write_uint_message(w, kind_of(m), m.sequence); }
void encode(const Probe& m, Writer& w) { write_uint_message(w, kind_of(m), m.probe); }
void encode(const ProbeAck& m, Writer& w) { write_uint_message(w, kind_of(m), m.probe); }
void encode(const GossipDigest& m, Writer& w) {
  w.write_map_header(3);
  write_kind(w, kind_of(m));
  w.write_uint(1);
  w.write_uint(m.digest);
  w.write_uint(2);
  w.write_uint(m.seen);
}
void encode(const ProbeRequest& m, Writer& w) {
  write_subject_message(w, kind_of(m), m.subject, m.probe);
}
void encode(const ProbeAlive& m, Writer& w) {
  write_subject_message(w, kind_of(m), m.subject, m.probe);
}
void encode(const GossipState& m, Writer& w) { encode(GossipStateView::of(m), w); }
void encode(const GossipStateView& m, Writer& w) {
  WEFT_ASSERT(seen_bits_fit(m.seen, m.members.size()));  // the decoder refuses any other
  w.write_map_header(4);
  write_kind(w, kind_of(m));
  write_tables(w, 1, m.members, m.rows, m.seen);
}
void encode(const GossipDelta& m, Writer& w) { encode(GossipDeltaView::of(m), w); }
void encode(const GossipDeltaView& m, Writer& w) {
  w.write_map_header(5);
  write_kind(w, kind_of(m));
  w.write_uint(1);
  w.write_uint(m.digest);
  write_tables(w, 2, m.members, m.rows, m.seen);
}

Decoded<Join> decode_join(Bytes payload) {
  const WireError e = decode_fields_of(payload, MessageKind::join, kKindOnly,
                                   [](unsigned, Reader&) { return WireError::unknown_field; });
  if (e != WireError::none) return {.error = e};
  return {.value = Join{}};
}
Decoded<Heartbeat> decode_heartbeat(Bytes payload) {
  return decode_uint_message(payload, MessageKind::heartbeat, &Heartbeat::sequence);
}
Decoded<HeartbeatAck> decode_heartbeat_ack(Bytes payload) {
  return decode_uint_message(payload, MessageKind::heartbeat_ack, &HeartbeatAck::sequence);
}
Decoded<Probe> decode_probe(Bytes payload) {
  return decode_uint_message(payload, MessageKind::probe, &Probe::probe);
}
Decoded<ProbeAck> decode_probe_ack(Bytes payload) {
  return decode_uint_message(payload, MessageKind::probe_ack, &ProbeAck::probe);
}
Decoded<GossipDigest> decode_gossip_digest(Bytes payload) {
  GossipDigest message{};
  const WireError e = decode_fields_of(payload, MessageKind::gossip_digest, kKindAndTwo, [&](unsigned key, Reader& r) {
    WEFT_ASSERT(key == 1 || key == 2);  // decode_fields hands over required keys only
    return r.read_uint(key == 1 ? message.digest : message.seen);
  });
  if (e != WireError::none) return {.error = e};
  return {.value = message};
}
Decoded<ProbeRequest> decode_probe_request(Bytes payload) {
  return decode_subject_message<ProbeRequest>(payload, MessageKind::probe_request);
}
Decoded<ProbeAlive> decode_probe_alive(Bytes payload) {
  return decode_subject_message<ProbeAlive>(payload, MessageKind::probe_alive);
}

Decoded<GossipState> decode_gossip_state(Bytes payload) {
  GossipState state;
  const WireError e = decode_fields_of(payload, MessageKind::gossip_state, kKindAndThree,
                                   [&](unsigned key, Reader& r) {
    WEFT_ASSERT(key >= 1 && key <= 3);  // decode_fields hands over required keys only
    return read_table(r, key - 1, state.members, state.rows, state.seen);
  });
  if (e != WireError::none) return {.error = e};
  // A state's seen bits are over the members it carries.
  if (!seen_bits_fit(state.seen, state.members.size())) return {.error = WireError::invalid_value};
  return {.value = std::move(state)};
}
Decoded<GossipDelta> decode_gossip_delta(Bytes payload) {
  GossipDelta delta;
  const WireError e = decode_fields_of(payload, MessageKind::gossip_delta, kKindAndFour,
                                   [&](unsigned key, Reader& r) {
    WEFT_ASSERT(key >= 1 && key <= 4);  // decode_fields hands over required keys only
    if (key == 1) return r.read_uint(delta.digest);
    return read_table(r, key - 2, delta.members, delta.rows, delta.seen);
  });
  if (e != WireError::none) return {.error = e};
  return {.value = std::move(delta)};
}

}  // namespace weft::wire
