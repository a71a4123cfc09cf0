// Addresses and actor refs as they travel: views into the frame buffer.
//
//   address  = [host: str (1..253 bytes), port: uint (1..65535)]
//   actor ref = [host: str (1..253 bytes), port: uint (1..65535), name: str (1..255 bytes)]
//
// The limits are the protocol's, not the deployment's: 253 is the longest DNS
// name; 255 bytes of actor name is generous and keeps a ref in one cache line
// or four.
#pragma once

#include <cstdint>
#include <string_view>

#include "kernel/ids.hpp"
#include "kernel/wire/msgpack.hpp"

namespace weft::wire {

inline constexpr std::size_t kMaxHostBytes = 253;
inline constexpr std::size_t kMaxActorNameBytes = 255;

struct AddressView {
  std::string_view host;
  std::uint16_t port = 0;

  friend bool operator==(const AddressView&, const AddressView&) = default;
  static AddressView of(const NodeAddress& address) { return {address.host, address.port}; }
  NodeAddress to_owned() const { return NodeAddress{std::string(host), port}; }
};

struct ActorRefView {
  AddressView node;
  std::string_view name;  // empty: no actor (a sender-less tell)

  bool empty() const { return name.empty(); }
  friend bool operator==(const ActorRefView&, const ActorRefView&) = default;
  static ActorRefView of(const ActorRef& ref) { return {AddressView::of(ref.node), ref.name}; }
  ActorRef to_owned() const { return ActorRef{node.to_owned(), std::string(name)}; }
};

// The host and port of an address or ref whose array header was read.
WireError read_host_port(Reader& reader, AddressView& address);

std::size_t size_of_address(const AddressView& address);
void write_address(Writer& writer, const AddressView& address);
WireError read_address(Reader& reader, AddressView& address);

std::size_t size_of_ref(const ActorRefView& ref);
void write_ref(Writer& writer, const ActorRefView& ref);
WireError read_ref(Reader& reader, ActorRefView& ref);

// A string field with a byte limit: wrong_type, truncated or string_too_long.
WireError read_bounded_str(Reader& reader, std::size_t max_bytes, std::string_view& value);

}  // namespace weft::wire
