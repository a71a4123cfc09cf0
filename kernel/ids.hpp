// Identities in the mesh.
//
// - NodeAddress: where a node listens (host, port). Stable across restarts.
// - Incarnation: which life of the process at that address. A restarted
//   process has a larger incarnation, so a member is (address, incarnation)
//   and statuses never carry over from one life to the next.
// - ActorRef: (node address, actor name). Location-transparent: the same ref
//   works whether the actor is on this node or another; it names an address,
//   not an incarnation, so a ref outlives a restart of its host.
//
// All are ordered values (never hashed by pointer), so any container of them
// iterates in the same order on every run.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace weft {

struct NodeAddress {
  std::string host;
  std::uint16_t port = 0;

  friend auto operator<=>(const NodeAddress&, const NodeAddress&) = default;
  friend bool operator==(const NodeAddress&, const NodeAddress&) = default;

  // "host:port"; an IPv6 host is bracketed: "[::1]:7000".
  std::string to_string() const;
  // Inverse of to_string(); nullopt for an empty host, a missing or zero port,
  // or a port above 65535.
  static std::optional<NodeAddress> parse(std::string_view text);
};

struct Incarnation {
  std::uint64_t value = 0;

  friend auto operator<=>(const Incarnation&, const Incarnation&) = default;
  friend bool operator==(const Incarnation&, const Incarnation&) = default;
};

struct MemberId {
  NodeAddress address;
  Incarnation incarnation;

  friend auto operator<=>(const MemberId&, const MemberId&) = default;
  friend bool operator==(const MemberId&, const MemberId&) = default;

  // "host:port#incarnation"
  std::string to_string() const;
};

struct ActorRef {
  static constexpr std::uint32_t kNoSlot = UINT32_MAX;

  NodeAddress node;
  std::string name;
  // Where the kernel that spawned the actor keeps it, so a tell through a
  // ref from spawn() (or a behaviour's self()) finds its mailbox without a
  // lookup by name. Only a hint: it is not part of the ref's identity
  // (comparisons ignore it, the wire never carries it), and a kernel uses it
  // only after checking that the actor in that slot has exactly this ref's
  // address and name. So a ref edited after spawn, or one held across a
  // restart or handed to another kernel, costs a lookup by name, never a
  // wrong delivery; and since actors are never removed and names never
  // reused, a slot that passes the check is the actor the name denotes.
  std::uint32_t local_slot = kNoSlot;

  friend std::strong_ordering operator<=>(const ActorRef& a, const ActorRef& b) {
    if (const auto by_node = a.node <=> b.node; by_node != 0) return by_node;
    return a.name <=> b.name;
  }
  friend bool operator==(const ActorRef& a, const ActorRef& b) { return a.node == b.node && a.name == b.name; }

  // "host:port/name"
  std::string to_string() const;
};

}  // namespace weft
