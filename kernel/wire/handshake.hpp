// The handshake: a hello each way, and with a shared secret the dialer's
// proof after them (docs/protocol.md, "Links and the handshake").
//
// hello, the first frame each side sends on a new link:
//   { 0: kind              uint  hello (0x01)
//     1: protocol_version  uint  1..65535; this build speaks kProtocolVersion
//     2: cluster_name      str   1..64 bytes; a link between clusters closes
//     3: address           address  where the sender listens
//     4: incarnation       uint  the sender's incarnation
//     5: nonce             bin   exactly 16 bytes, fresh per link
//     6: proof             bin   empty, or 32 bytes: the acceptor's MAC over
//                                both hellos (kernel/authentication.hpp); a dialer's
//                                is always empty, as it has not yet seen the
//                                acceptor's nonce
//     7: held_incarnation  uint  optional, a dialer's only: the life it holds
//                                for the address it dialed, sent after the
//                                last answer there was older than that life
//                                (a process restarted below a life it took
//                                to refute a claim: it hears the life to
//                                pass, kernel_links.cpp) }
//
// hello_proof, the dialer's second frame when the link is authenticated:
//   { 0: kind              uint  hello_proof (0x02)
//     1: proof             bin   exactly 32 bytes: the dialer's MAC over
//                                both hellos }
//
// All fields but held_incarnation are required. The codec checks shape only; whether the version,
// cluster name and proofs are acceptable is the link's decision.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "kernel/wire/errors.hpp"
#include "kernel/wire/fields.hpp"
#include "kernel/wire/msgpack.hpp"
#include "kernel/wire/refs.hpp"

namespace weft::wire {

inline constexpr std::uint16_t kProtocolVersion = 2;  // 2: seen sets as bits (control.hpp)
inline constexpr std::size_t kMaxClusterNameBytes = 64;
inline constexpr std::size_t kNonceBytes = 16;
inline constexpr std::size_t kProofBytes = 32;
// The largest payload a handshake frame may have. A hello with the longest
// cluster name and host, every integer at its widest, and a proof, is about
// 400 bytes (Hello.TheLargestHelloFitsTheHandshakeLimit). A link reads
// nothing larger until its handshake is done, so a peer that has proven
// nothing cannot make a node hold a max_frame_bytes buffer for it (a
// half-sent 1 MiB first frame pinned about 1.26 MB a connection).
inline constexpr std::uint32_t kMaxHandshakeFrameBytes = 512;

struct Hello {
  std::uint16_t protocol_version = kProtocolVersion;
  std::string_view cluster_name;
  AddressView address;
  std::uint64_t incarnation = 0;
  std::array<std::uint8_t, kNonceBytes> nonce{};
  Bytes proof;  // empty, or kProofBytes long
  std::uint64_t held_incarnation = 0;  // 0: absent (not encoded)

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
  held_incarnation = 7,
};

// The dialer's proof, sent after the acceptor's hello proved the acceptor.
struct HelloProof {
  Bytes proof;  // kProofBytes long

  friend bool operator==(const HelloProof& a, const HelloProof& b);
};

enum class HelloProofField : unsigned {
  kind = kKindKey,
  proof = 1,
};

WireError validate(const Hello& hello);
WireError validate(const HelloProof& proof);
constexpr MessageKind kind_of(const HelloProof&) { return MessageKind::hello_proof; }

std::size_t encoded_size(const Hello& hello);
void encode(const Hello& hello, Writer& writer);

std::size_t encoded_size(const HelloProof& proof);
void encode(const HelloProof& proof, Writer& writer);

// Decode a frame payload that must hold a hello (a hello_proof), in one pass.
Decoded<Hello> decode_hello(Bytes payload);
Decoded<HelloProof> decode_hello_proof(Bytes payload);

}  // namespace weft::wire
