// The handshake's transcript, its proofs (signed with the first key, checked
// against every key) and nonce whitening; the protocol is in authentication.hpp.
#include "kernel/authentication.hpp"

#include <algorithm>

#include "kernel/assert.hpp"

namespace weft {
namespace {

constexpr std::string_view kHandshakeLabel = "weft handshake v1";
constexpr std::string_view kNonceLabel = "weft nonce v1";

void put_u64(std::vector<std::uint8_t>& out, std::uint64_t value) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(value >> shift));
}

void put_bytes(std::vector<std::uint8_t>& out, std::span<const std::uint8_t> bytes) {
  put_u64(out, bytes.size());
  out.insert(out.end(), bytes.begin(), bytes.end());
}

void put_text(std::vector<std::uint8_t>& out, std::string_view text) {
  put_bytes(out, {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

void put_side(std::vector<std::uint8_t>& out, const HelloSide& side) {
  put_text(out, side.host);
  put_u64(out, side.port);
  put_u64(out, side.incarnation);
  put_bytes(out, side.nonce);
}

bool equal_in_constant_time(std::span<const std::uint8_t> a, const Proof& b) {
  if (a.size() != b.size()) return false;
  std::uint8_t difference = 0;
  for (std::size_t i = 0; i < b.size(); ++i) difference = static_cast<std::uint8_t>(difference | (a[i] ^ b[i]));
  return difference == 0;
}

}  // namespace

std::vector<std::uint8_t> handshake_transcript(HandshakeRole prover, std::string_view cluster_name,
                                               const HelloSide& dialer, const HelloSide& acceptor) {
  std::vector<std::uint8_t> out;
  out.reserve(160 + cluster_name.size() + dialer.host.size() + acceptor.host.size());
  put_text(out, kHandshakeLabel);
  put_u64(out, wire::kProtocolVersion);
  put_u64(out, static_cast<std::uint64_t>(prover));
  put_text(out, cluster_name);
  put_side(out, dialer);
  put_side(out, acceptor);
  return out;
}

Proof sign_handshake(const Authentication& auth, HandshakeRole prover, std::string_view cluster_name,
                     const HelloSide& dialer, const HelloSide& acceptor) {
  WEFT_ASSERT(auth.enabled());
  WEFT_ASSERT(auth.mac != nullptr);
  return auth.mac(auth.keys.front(), handshake_transcript(prover, cluster_name, dialer, acceptor));
}

bool verify_handshake(const Authentication& auth, std::span<const std::uint8_t> proof, HandshakeRole prover,
                      std::string_view cluster_name, const HelloSide& dialer, const HelloSide& acceptor) {
  WEFT_ASSERT(auth.enabled());
  WEFT_ASSERT(auth.mac != nullptr);
  const std::vector<std::uint8_t> transcript = handshake_transcript(prover, cluster_name, dialer, acceptor);
  bool matched = false;
  // Every key is tried, matched or not, so the time taken does not say which.
  for (const AuthKey& key : auth.keys) matched = equal_in_constant_time(proof, auth.mac(key, transcript)) || matched;
  return matched;
}

std::array<std::uint8_t, wire::kNonceBytes> whiten_nonce(const Authentication& auth,
                                                         std::span<const std::uint8_t> drawn,
                                                         std::uint64_t counter) {
  WEFT_ASSERT(auth.enabled());
  WEFT_ASSERT(auth.mac != nullptr);
  std::vector<std::uint8_t> input;
  put_text(input, kNonceLabel);
  put_u64(input, counter);
  put_bytes(input, drawn);
  const Proof mac = auth.mac(auth.keys.front(), input);
  static_assert(wire::kNonceBytes <= std::tuple_size_v<Proof>, "a nonce is cut from one MAC");
  std::array<std::uint8_t, wire::kNonceBytes> nonce{};
  std::copy_n(mac.begin(), nonce.size(), nonce.begin());
  return nonce;
}

}  // namespace weft
