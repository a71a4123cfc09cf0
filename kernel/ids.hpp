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
  NodeAddress node;
  std::string name;

  friend auto operator<=>(const ActorRef&, const ActorRef&) = default;
  friend bool operator==(const ActorRef&, const ActorRef&) = default;

  // "host:port/name"
  std::string to_string() const;
};

}  // namespace weft
