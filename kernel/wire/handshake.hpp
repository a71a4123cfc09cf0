// The handshake: the first frame each side sends on a new link.
//
//   { 0: kind              uint  hello (0x01)
//     1: protocol_version  uint  1..65535; this build speaks kProtocolVersion
//     2: cluster_name      str   1..64 bytes; a link between clusters closes
//     3: address           address  where the sender listens
//     4: incarnation       uint  the sender's incarnation
//     5: nonce             bin   exactly 16 bytes, fresh per link
//     6: proof             bin   empty (no shared secret) or 32 bytes: an
//                                HMAC-SHA256 over the peer's nonce and this
//                                hello's fields, keyed by the cluster secret }
//
// All seven fields are required. The codec checks shape only; whether the
// version, cluster name and proof are acceptable is the link's decision.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "kernel/wire/errors.hpp"
#include "kernel/wire/fields.hpp"
#include "kernel/wire/msgpack.hpp"
#include "kernel/wire/refs.hpp"

namespace weft::wire {

inline constexpr std::uint16_t kProtocolVersion = 1;
inline constexpr std::size_t kMaxClusterNameBytes = 64;
inline constexpr std::size_t kNonceBytes = 16;
inline constexpr std::size_t kProofBytes = 32;

struct Hello {
  std::uint16_t protocol_version = kProtocolVersion;
  std::string_view cluster_name;
  AddressView address;
  std::uint64_t incarnation = 0;
  std::array<std::uint8_t, kNonceBytes> nonce{};
  Bytes proof;  // empty, or kProofBytes long

  friend bool operator==(const Hello& a, const Hello& b);
};

enum class HelloField : unsigned {
  kind = kKindKey,
  protocol_version = 1,
  cluster_name = 2,
  address = 3,
  incarnation = 4,
  nonce = 5,
  proof = 6,
};

WireError validate(const Hello& hello);

std::size_t encoded_size(const Hello& hello);
void encode(const Hello& hello, Writer& writer);

// Decodes a frame payload that must hold a hello, in one pass.
Decoded<Hello> decode_hello(Bytes payload);

}  // namespace weft::wire
