// Shared-secret authentication of links: a mutual challenge-response inside
// the hello exchange (docs/protocol.md, "Links and the handshake").
//
//   dialer   -> acceptor  hello(nonce_d)                  no proof: it has not
//                                                         seen nonce_a yet
//   acceptor -> dialer    hello(nonce_a, proof_a)         proof_a = MAC(key,
//                                                         transcript(acceptor))
//   dialer   -> acceptor  hello_proof(proof_d)            proof_d = MAC(key,
//                                                         transcript(dialer))
//
// Each proof covers a protocol label, the prover's role, the cluster name,
// and both hellos' addresses, incarnations and nonces. Each side's nonce is
// fresh per link, so a proof recorded from one link proves nothing on the
// next (no replay), and neither side proves itself before it has seen the
// other's nonce. The role keeps the acceptor's proof from being reflected
// back as a dialer's. Until its peer has proven itself, a side acts on
// nothing the peer sends and the dialer sends nothing behind its hello.
//
// The MAC is injected (Config::auth.mac): the kernel stays free of any
// crypto library, and the simulator runs the same function as the real
// driver (auth/hmac_sha256.hpp, HMAC-SHA256), so the handshake is simulated
// too. What the secret does not give: confidentiality or integrity of the
// bytes after the handshake against an on-path attacker; that is TLS's job
// (docs/deploy.md).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "kernel/wire/handshake.hpp"

namespace weft {

inline constexpr std::size_t kAuthKeyBytes = 32;
using AuthKey = std::array<std::uint8_t, kAuthKeyBytes>;
using Proof = std::array<std::uint8_t, wire::kProofBytes>;

// A keyed MAC: a pure function of its arguments.
using MacFunction = Proof (*)(std::span<const std::uint8_t> key, std::span<const std::uint8_t> message);

struct Authentication {
  // Every key this node accepts; the first signs. Rotation: add the new key
  // second everywhere, then move it first everywhere, then drop the old one.
  // Empty: links are not authenticated (any proof is ignored, none is sent).
  std::vector<AuthKey> keys;
  MacFunction mac = nullptr;

  bool enabled() const { return !keys.empty(); }
};

enum class HandshakeRole : std::uint8_t { dialer = 1, acceptor = 2 };

// What one side's hello contributed to the handshake.
struct HelloSide {
  std::string_view host;
  std::uint16_t port = 0;
  std::uint64_t incarnation = 0;
  std::array<std::uint8_t, wire::kNonceBytes> nonce{};

  static HelloSide of(const wire::Hello& hello) {
    return {hello.address.host, hello.address.port, hello.incarnation, hello.nonce};
  }
};

// The bytes a proof covers: every field length-prefixed, so no two
// different handshakes share a transcript.
std::vector<std::uint8_t> handshake_transcript(HandshakeRole prover, std::string_view cluster_name,
                                               const HelloSide& dialer, const HelloSide& acceptor);

// The proof `prover` sends: the transcript signed with the first key.
Proof sign_handshake(const Authentication& auth, HandshakeRole prover, std::string_view cluster_name,
                     const HelloSide& dialer, const HelloSide& acceptor);

// True if `proof` is what some accepted key gives for the transcript. Each
// comparison takes the same time wherever the bytes first differ.
bool verify_handshake(const Authentication& auth, std::span<const std::uint8_t> proof, HandshakeRole prover,
                      std::string_view cluster_name, const HelloSide& dialer, const HelloSide& acceptor);

// A nonce outsiders cannot predict even when they can predict the kernel's
// PRNG: the PRNG's bytes and a per-node counter, MACed under the first key.
std::array<std::uint8_t, wire::kNonceBytes> whiten_nonce(const Authentication& auth,
                                                         std::span<const std::uint8_t> drawn,
                                                         std::uint64_t counter);

}  // namespace weft
