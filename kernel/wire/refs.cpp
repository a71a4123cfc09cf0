// Codecs of addresses and actor refs, within the protocol's length limits
// (refs.hpp).
#include "kernel/wire/refs.hpp"

namespace weft::wire {

WireError read_host_port(Reader& reader, AddressView& address) {
  if (WireError e = read_bounded_str(reader, kMaxHostBytes, address.host); e != WireError::none) {
    return e;
  }
  std::uint64_t port = 0;
  if (WireError e = reader.read_uint(port); e != WireError::none) return e;
  if (address.host.empty() || port == 0 || port > 0xffff) return WireError::invalid_value;
  address.port = static_cast<std::uint16_t>(port);
  return WireError::none;
}

WireError read_bounded_str(Reader& reader, std::size_t max_bytes, std::string_view& value) {
  if (WireError e = reader.read_str(value); e != WireError::none) return e;
  return value.size() > max_bytes ? WireError::string_too_long : WireError::none;
}

std::size_t size_of_address(const AddressView& address) {
  return 1 + Writer::size_of_str(address.host.size()) + Writer::size_of_uint(address.port);
}

void write_address(Writer& writer, const AddressView& address) {
  writer.write_array_header(2);
  writer.write_str(address.host);
  writer.write_uint(address.port);
}

WireError read_address(Reader& reader, AddressView& address) {
  std::uint32_t elements = 0;
  if (WireError e = reader.read_array_header(elements); e != WireError::none) return e;
  if (elements != 2) return WireError::wrong_type;
  return read_host_port(reader, address);
}

std::size_t size_of_ref(const ActorRefView& ref) {
  return 1 + Writer::size_of_str(ref.node.host.size()) + Writer::size_of_uint(ref.node.port) +
         Writer::size_of_str(ref.name.size());
}

void write_ref(Writer& writer, const ActorRefView& ref) {
  writer.write_array_header(3);
  writer.write_str(ref.node.host);
  writer.write_uint(ref.node.port);
  writer.write_str(ref.name);
}

WireError read_ref(Reader& reader, ActorRefView& ref) {
  std::uint32_t elements = 0;
  if (WireError e = reader.read_array_header(elements); e != WireError::none) return e;
  if (elements != 3) return WireError::wrong_type;
  if (WireError e = read_host_port(reader, ref.node); e != WireError::none) return e;
  if (WireError e = read_bounded_str(reader, kMaxActorNameBytes, ref.name); e != WireError::none) {
    return e;
  }
  return ref.name.empty() ? WireError::invalid_value : WireError::none;
}

}  // namespace weft::wire
