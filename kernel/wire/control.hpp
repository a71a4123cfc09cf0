// Control messages: membership and failure detection, kinds 0x10-0x3f.
//
// They travel on links whose hello already named the sender, so no control
// message repeats who sent it.
//
//   join          {0: 0x10}                                   ask a seed to add the sender
//   heartbeat     {0: 0x11, 1: sequence uint}                 observer -> subject
//   heartbeat_ack {0: 0x12, 1: sequence uint}                 subject -> observer
//   probe_request {0: 0x13, 1: subject member_id, 2: probe uint}  "can you reach it?"
//   probe         {0: 0x14, 1: probe uint}                    helper -> subject
//   probe_ack     {0: 0x15, 1: probe uint}                    subject -> helper
//   probe_alive   {0: 0x16, 1: subject member_id, 2: probe uint}  helper -> asker
//   gossip_digest {0: 0x20, 1: digest uint, 2: seen uint}     "my state's fingerprint, and how
//                                                             many members I know have seen it"
//   gossip_state  {0: 0x21, 1: [member...], 2: [row...], 3: seen bin}
//   gossip_delta  {0: 0x22, 1: digest uint, 2: [member...], 3: [row...], 4: seen bin}
//                 "my state is the one you sent me plus these records; its
//                 fingerprint, and who holds it" (no records: "we hold the
//                 same state, and these members hold it too")
//
//   member_id = [host str, port uint, incarnation uint]
//   member    = [host str, port uint, incarnation uint, status uint 0..5]
//   row       = [observer member_id, version uint, [member_id...] unreachable]
//   seen      = one bit per record of the sender's member table, in its
//               address order: bit i (byte i / 8, from the least significant
//               bit) set when the i-th member holds exactly this state. A
//               state's bits are over the members it carries, so exactly
//               ceil(N / 8) bytes with the unused bits clear; a delta's are
//               over the sender's whole table, which the receiver holds too
//               when the digests are equal, the only case it reads them in.
//
// Decoding these allocates (a gossip state owns its tables); they are the
// control plane, bounded by the frame size and never on the user hot path.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernel/membership/member.hpp"
#include "kernel/membership/member_table.hpp"
#include "kernel/membership/reachability.hpp"
#include "kernel/membership/seen_set.hpp"
#include "kernel/wire/errors.hpp"
#include "kernel/wire/fields.hpp"
#include "kernel/wire/msgpack.hpp"

namespace weft::wire {

// Longest list a gossip state may carry, per list: far above any cluster
// weft targets, far below what a frame could declare.
inline constexpr std::uint32_t kMaxGossipEntries = 100'000;

struct Join {
  friend bool operator==(const Join&, const Join&) = default;
};
struct Heartbeat {
  std::uint64_t sequence = 0;
  friend bool operator==(const Heartbeat&, const Heartbeat&) = default;
};
struct HeartbeatAck {
  std::uint64_t sequence = 0;
  friend bool operator==(const HeartbeatAck&, const HeartbeatAck&) = default;
};
struct ProbeRequest {
  MemberId subject;
  std::uint64_t probe = 0;
  friend bool operator==(const ProbeRequest&, const ProbeRequest&) = default;
};
struct Probe {
  std::uint64_t probe = 0;
  friend bool operator==(const Probe&, const Probe&) = default;
};
struct ProbeAck {
  std::uint64_t probe = 0;
  friend bool operator==(const ProbeAck&, const ProbeAck&) = default;
};
struct ProbeAlive {
  MemberId subject;
  std::uint64_t probe = 0;
  friend bool operator==(const ProbeAlive&, const ProbeAlive&) = default;
};
struct GossipDigest {
  std::uint64_t digest = 0;
  std::uint64_t seen = 0;  // the size of the sender's seen set for this state
  friend bool operator==(const GossipDigest&, const GossipDigest&) = default;
};
struct GossipState {
  std::vector<Member> members;          // sorted by address, unique
  std::vector<ReachabilityRow> rows;    // sorted by observer, unique
  std::vector<std::uint8_t> seen;       // over members: who holds exactly this state
  friend bool operator==(const GossipState&, const GossipState&) = default;
};
// A gossip state encoded straight from the sender's tables, the same bytes
// as the GossipState it stands for: at a thousand members, copying the
// tables into a GossipState for every send was a twentieth of a run.
struct GossipStateView {
  std::span<const Member> members;        // as GossipState's
  std::span<const ReachabilityRow> rows;
  std::span<const std::uint8_t> seen;
  static GossipStateView of(const GossipState& state) { return {state.members, state.rows, state.seen}; }
};
// The records of the sender's state that differ from a state the receiver
// sent it, and the digest and seen set of the whole: at a thousand members a
// whole state answering a whole state, or teaching only a seen set, was most
// of a cluster's boot.
struct GossipDelta {
  std::uint64_t digest = 0;              // of the sender's whole state
  std::vector<Member> members;           // sorted by address, unique
  std::vector<ReachabilityRow> rows;     // sorted by observer, unique
  std::vector<std::uint8_t> seen;        // over the sender's table: who holds the whole state
  friend bool operator==(const GossipDelta&, const GossipDelta&) = default;
};
struct GossipDeltaView {
  std::uint64_t digest = 0;  // as GossipDelta's
  std::span<const Member> members;
  std::span<const ReachabilityRow> rows;
  std::span<const std::uint8_t> seen;
  static GossipDeltaView of(const GossipDelta& delta) { return {delta.digest, delta.members, delta.rows, delta.seen}; }
};

MessageKind kind_of(const Join&);
MessageKind kind_of(const Heartbeat&);
MessageKind kind_of(const HeartbeatAck&);
MessageKind kind_of(const ProbeRequest&);
MessageKind kind_of(const Probe&);
MessageKind kind_of(const ProbeAck&);
MessageKind kind_of(const ProbeAlive&);
MessageKind kind_of(const GossipDigest&);
MessageKind kind_of(const GossipState&);
MessageKind kind_of(const GossipStateView&);
MessageKind kind_of(const GossipDelta&);
MessageKind kind_of(const GossipDeltaView&);

std::size_t encoded_size(const Join&);
std::size_t encoded_size(const Heartbeat&);
std::size_t encoded_size(const HeartbeatAck&);
std::size_t encoded_size(const ProbeRequest&);
std::size_t encoded_size(const Probe&);
std::size_t encoded_size(const ProbeAck&);
std::size_t encoded_size(const ProbeAlive&);
std::size_t encoded_size(const GossipDigest&);
std::size_t encoded_size(const GossipState&);
std::size_t encoded_size(const GossipStateView&);
std::size_t encoded_size(const GossipDelta&);
std::size_t encoded_size(const GossipDeltaView&);

void encode(const Join&, Writer&);
void encode(const Heartbeat&, Writer&);
void encode(const HeartbeatAck&, Writer&);
void encode(const ProbeRequest&, Writer&);
void encode(const Probe&, Writer&);
void encode(const ProbeAck&, Writer&);
void encode(const ProbeAlive&, Writer&);
void encode(const GossipDigest&, Writer&);
void encode(const GossipState&, Writer&);
void encode(const GossipStateView&, Writer&);
void encode(const GossipDelta&, Writer&);
void encode(const GossipDeltaView&, Writer&);

// Each decoder takes a payload whose kind is its own (decode_message checks).
Decoded<Join> decode_join(Bytes payload);
Decoded<Heartbeat> decode_heartbeat(Bytes payload);
Decoded<HeartbeatAck> decode_heartbeat_ack(Bytes payload);
Decoded<ProbeRequest> decode_probe_request(Bytes payload);
Decoded<Probe> decode_probe(Bytes payload);
Decoded<ProbeAck> decode_probe_ack(Bytes payload);
Decoded<ProbeAlive> decode_probe_alive(Bytes payload);
Decoded<GossipDigest> decode_gossip_digest(Bytes payload);
Decoded<GossipState> decode_gossip_state(Bytes payload);
Decoded<GossipDelta> decode_gossip_delta(Bytes payload);

}  // namespace weft::wire
