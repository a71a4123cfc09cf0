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

#include <bit>
#include <compare>
#include <cstring>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace weft {

namespace detail {

// Byte-wise lexicographic comparison of two strings, as std::string's own
// (char_traits<char>::compare is memcmp: unsigned bytes, then the shorter
// first), inlined eight bytes at a time. Member tables, reachability rows
// and link indexes compare host strings of a dozen bytes millions of times a run, and
// a call into the C library per comparison was an eighth of a 1000-node
// simulation.
inline std::uint64_t load_be64(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  return v;
}

inline std::strong_ordering compare_bytes(std::string_view a, std::string_view b) {
  const std::size_t n = a.size() < b.size() ? a.size() : b.size();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const std::uint64_t x = load_be64(a.data() + i);
    const std::uint64_t y = load_be64(b.data() + i);
    if (x != y) return x <=> y;
  }
  for (; i < n; ++i) {
    const auto x = static_cast<unsigned char>(a[i]);
    const auto y = static_cast<unsigned char>(b[i]);
    if (x != y) return x <=> y;
  }
  return a.size() <=> b.size();
}

inline bool equal_bytes(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  std::size_t i = 0;
  for (; i + 8 <= a.size(); i += 8) {
    if (load_be64(a.data() + i) != load_be64(b.data() + i)) return false;
  }
  for (; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

}  // namespace detail

struct NodeAddress {
  std::string host;
  std::uint16_t port = 0;

  // By host, then port: what a defaulted comparison gives, without the call
  // into memcmp (detail::compare_bytes).
  friend std::strong_ordering operator<=>(const NodeAddress& a, const NodeAddress& b) {
    if (const auto by_host = detail::compare_bytes(a.host, b.host); by_host != 0) return by_host;
    return a.port <=> b.port;
  }
  friend bool operator==(const NodeAddress& a, const NodeAddress& b) {
    return a.port == b.port && detail::equal_bytes(a.host, b.host);
  }

  // "host:port"; an IPv6 host is bracketed: "[::1]:7000".
  std::string to_string() const;
  // Appends to_string() to `out` (for a line built of several ids).
  void append_to(std::string& out) const;
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
  void append_to(std::string& out) const;
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
