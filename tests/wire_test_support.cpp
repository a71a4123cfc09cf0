#include "wire_test_support.hpp"

namespace weft::wire::testing {
namespace {

const ByteVector& sample_body() {
  static const ByteVector body = [] {
    ByteVector b(64);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::uint8_t>(i * 7 + 1);
    return b;
  }();
  return body;
}

const ByteVector& sample_proof() {
  static const ByteVector proof(kProofBytes, 0xAB);
  return proof;
}

}  // namespace

Envelope sample_envelope(MessageKind kind) {
  Envelope envelope;
  envelope.kind = kind;
  envelope.target = {{"10.0.0.17", 7000}, "counter-shard-3"};
  envelope.sender = {{"10.0.0.4", 7001}, "client"};
  envelope.correlation_id = kind == MessageKind::tell ? 0 : 0x1234'5678'9abcULL;
  envelope.type_tag = 42;
  envelope.body = sample_body();
  return envelope;
}

Hello sample_hello() {
  Hello hello;
  hello.protocol_version = kProtocolVersion;
  hello.cluster_name = "weft-test";
  hello.address = {"10.0.0.17", 7000};
  hello.incarnation = 1'700'000'000'123ULL;
  for (std::size_t i = 0; i < hello.nonce.size(); ++i) hello.nonce[i] = static_cast<std::uint8_t>(i);
  hello.proof = sample_proof();
  return hello;
}

Hello hello_from(std::string_view cluster_name, const MemberId& peer) {
  Hello hello;
  hello.cluster_name = cluster_name;
  hello.address = AddressView::of(peer.address);
  hello.incarnation = peer.incarnation.value;
  return hello;
}

std::string hex(const ByteVector& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (std::uint8_t b : bytes) {
    text += kDigits[b >> 4];
    text += kDigits[b & 15];
  }
  return text;
}

}  // namespace weft::wire::testing
