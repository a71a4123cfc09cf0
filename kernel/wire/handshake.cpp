#include "kernel/wire/handshake.hpp"

#include <algorithm>

namespace weft::wire {
namespace {

constexpr unsigned key(HelloField field) { return static_cast<unsigned>(field); }

constexpr std::uint32_t kRequired =
    field_bit(key(HelloField::kind)) | field_bit(key(HelloField::protocol_version)) |
    field_bit(key(HelloField::cluster_name)) | field_bit(key(HelloField::address)) |
    field_bit(key(HelloField::incarnation)) | field_bit(key(HelloField::nonce)) |
    field_bit(key(HelloField::proof));

}  // namespace

bool operator==(const Hello& a, const Hello& b) {
  return a.protocol_version == b.protocol_version && a.cluster_name == b.cluster_name &&
         a.address == b.address && a.incarnation == b.incarnation && a.nonce == b.nonce &&
         std::equal(a.proof.begin(), a.proof.end(), b.proof.begin(), b.proof.end());
}

WireError validate(const Hello& hello) {
  if (hello.protocol_version == 0) return WireError::invalid_value;
  if (hello.cluster_name.empty()) return WireError::invalid_value;
  if (hello.cluster_name.size() > kMaxClusterNameBytes) return WireError::string_too_long;
  if (hello.address.host.empty() || hello.address.port == 0) return WireError::invalid_value;
  if (hello.address.host.size() > kMaxHostBytes) return WireError::string_too_long;
  if (!hello.proof.empty() && hello.proof.size() != kProofBytes) return WireError::invalid_value;
  return WireError::none;
}

std::size_t encoded_size(const Hello& hello) {
  return 1                                                           // fixmap of seven
         + 1 + Writer::size_of_uint(static_cast<std::uint8_t>(MessageKind::hello))
         + 1 + Writer::size_of_uint(hello.protocol_version)
         + 1 + Writer::size_of_str(hello.cluster_name.size())
         + 1 + size_of_address(hello.address)
         + 1 + Writer::size_of_uint(hello.incarnation)
         + 1 + Writer::size_of_bin(kNonceBytes)
         + 1 + Writer::size_of_bin(hello.proof.size());
}

void encode(const Hello& hello, Writer& writer) {
  WEFT_ASSERT(validate(hello) == WireError::none);
  writer.write_map_header(7);
  writer.write_uint(key(HelloField::kind));
  writer.write_uint(static_cast<std::uint8_t>(MessageKind::hello));
  writer.write_uint(key(HelloField::protocol_version));
  writer.write_uint(hello.protocol_version);
  writer.write_uint(key(HelloField::cluster_name));
  writer.write_str(hello.cluster_name);
  writer.write_uint(key(HelloField::address));
  write_address(writer, hello.address);
  writer.write_uint(key(HelloField::incarnation));
  writer.write_uint(hello.incarnation);
  writer.write_uint(key(HelloField::nonce));
  writer.write_bin(hello.nonce);
  writer.write_uint(key(HelloField::proof));
  writer.write_bin(hello.proof);
}

Decoded<Hello> decode_hello(Bytes payload) {
  Reader reader(payload);
  FieldWalk walk;
  if (WireError e = walk.begin(reader); e != WireError::none) return {.error = e};
  Hello hello;
  std::uint64_t kind = 0;
  std::uint64_t version = 0;
  Bytes nonce;
  unsigned key = 0;
  WireError e = WireError::none;
  while (walk.next(reader, key, e)) {
    switch (static_cast<HelloField>(key)) {
      case HelloField::kind: e = reader.read_uint(kind); break;
      case HelloField::protocol_version: e = reader.read_uint(version); break;
      case HelloField::cluster_name:
        e = read_bounded_str(reader, kMaxClusterNameBytes, hello.cluster_name);
        break;
      case HelloField::address: e = read_address(reader, hello.address); break;
      case HelloField::incarnation: e = reader.read_uint(hello.incarnation); break;
      case HelloField::nonce: e = reader.read_bin(nonce); break;
      case HelloField::proof: e = reader.read_bin(hello.proof); break;
      default: e = WireError::unknown_field; break;
    }
    if (e != WireError::none) return {.error = e};
  }
  if (e != WireError::none) return {.error = e};
  if (e = walk.finish(reader, kRequired); e != WireError::none) return {.error = e};
  MessageKind parsed{};
  if (e = parse_kind(kind, parsed); e != WireError::none) return {.error = e};
  if (parsed != MessageKind::hello) return {.error = WireError::unexpected_kind};
  if (version == 0 || version > 0xffff) return {.error = WireError::invalid_value};
  hello.protocol_version = static_cast<std::uint16_t>(version);
  if (nonce.size() != kNonceBytes) return {.error = WireError::invalid_value};
  std::copy(nonce.begin(), nonce.end(), hello.nonce.begin());
  if (e = validate(hello); e != WireError::none) return {.error = e};
  return {.value = hello};
}

}  // namespace weft::wire
