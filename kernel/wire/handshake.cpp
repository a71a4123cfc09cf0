// Codecs of hello and hello_proof (fields in handshake.hpp).
#include "kernel/wire/handshake.hpp"

#include <algorithm>

namespace weft::wire {
namespace {

constexpr unsigned key(HelloField field) { return static_cast<unsigned>(field); }
constexpr unsigned key(HelloProofField field) { return static_cast<unsigned>(field); }

constexpr std::uint32_t kRequired =
    field_bit(key(HelloField::kind)) | field_bit(key(HelloField::protocol_version)) |
    field_bit(key(HelloField::cluster_name)) | field_bit(key(HelloField::address)) |
    field_bit(key(HelloField::incarnation)) | field_bit(key(HelloField::nonce)) |
    field_bit(key(HelloField::proof));
constexpr std::uint32_t kOptional = field_bit(key(HelloField::held_incarnation));
constexpr std::uint32_t kProofRequired =
    field_bit(key(HelloProofField::kind)) | field_bit(key(HelloProofField::proof));

}  // namespace

bool operator==(const HelloProof& a, const HelloProof& b) {
  return std::equal(a.proof.begin(), a.proof.end(), b.proof.begin(), b.proof.end());
}

WireError validate(const HelloProof& proof) {
  return proof.proof.size() == kProofBytes ? WireError::none : WireError::invalid_value;
}

std::size_t encoded_size(const HelloProof& proof) {
  return 1  // fixmap of two
         + 1 + Writer::size_of_uint(static_cast<std::uint8_t>(MessageKind::hello_proof))
         + 1 + Writer::size_of_bin(proof.proof.size());
}

void encode(const HelloProof& proof, Writer& writer) {
  WEFT_ASSERT(validate(proof) == WireError::none);
  writer.write_map_header(2);
  writer.write_uint(key(HelloProofField::kind));
  writer.write_uint(static_cast<std::uint8_t>(MessageKind::hello_proof));
  writer.write_uint(key(HelloProofField::proof));
  writer.write_bin(proof.proof);
}

Decoded<HelloProof> decode_hello_proof(Bytes payload) {
  HelloProof proof;
  const WireError e =
      decode_fields_of(payload, MessageKind::hello_proof, kProofRequired, [&](unsigned k, Reader& r) {
        switch (static_cast<HelloProofField>(k)) {
          case HelloProofField::proof: return r.read_bin(proof.proof);
          case HelloProofField::kind: break;
        }
        return WireError::unknown_field;
      });
  if (e != WireError::none) return {.error = e};
  if (WireError invalid = validate(proof); invalid != WireError::none) return {.error = invalid};
  return {.value = proof};
}

bool operator==(const Hello& a, const Hello& b) {
  return a.protocol_version == b.protocol_version && a.cluster_name == b.cluster_name &&
         a.address == b.address && a.incarnation == b.incarnation && a.nonce == b.nonce &&
         std::equal(a.proof.begin(), a.proof.end(), b.proof.begin(), b.proof.end()) &&
         a.held_incarnation == b.held_incarnation;
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
  return 1                                                           // fixmap of seven or eight
         + (hello.held_incarnation != 0 ? 1 + Writer::size_of_uint(hello.held_incarnation) : 0)
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
  writer.write_map_header(hello.held_incarnation != 0 ? 8 : 7);
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
  if (hello.held_incarnation != 0) {
    writer.write_uint(key(HelloField::held_incarnation));
    writer.write_uint(hello.held_incarnation);
  }
}

Decoded<Hello> decode_hello(Bytes payload) {
  Hello hello;
  std::uint64_t version = 0;
  Bytes nonce;
  const WireError e = decode_fields_of(payload, MessageKind::hello, kRequired, [&](unsigned key, Reader& r) {
    switch (static_cast<HelloField>(key)) {
      case HelloField::protocol_version: return r.read_uint(version);
      case HelloField::cluster_name: return read_bounded_str(r, kMaxClusterNameBytes, hello.cluster_name);
      case HelloField::address: return read_address(r, hello.address);
      case HelloField::incarnation: return r.read_uint(hello.incarnation);
#ifdef WEFT_PLANTED_HELLO_BUG
      // Planted defect, compiled only into tests/fuzz's fuzz_finds_planted_*
      // binaries: the nonce is copied out as it is read, before the length
      // check below. The copy goes through a local of exactly the nonce's
      // size because ASan cannot see an overrun of hello.nonce into the next
      // member of Hello.
      case HelloField::nonce: {
        if (WireError read = r.read_bin(nonce); read != WireError::none) return read;
        std::array<std::uint8_t, kNonceBytes> received{};
        std::copy(nonce.begin(), nonce.end(), received.begin());
        hello.nonce = received;
        return WireError::none;
      }
#else
      case HelloField::nonce: return r.read_bin(nonce);
#endif
      case HelloField::proof: return r.read_bin(hello.proof);
      case HelloField::held_incarnation: {
        // Present only when nonzero, so that every hello has one encoding.
        if (WireError read = r.read_uint(hello.held_incarnation); read != WireError::none) return read;
        return hello.held_incarnation == 0 ? WireError::invalid_value : WireError::none;
      }
      case HelloField::kind: break;
    }
    return WireError::unknown_field;
  }, kOptional);
  if (e != WireError::none) return {.error = e};
  if (version == 0 || version > 0xffff) return {.error = WireError::invalid_value};
  hello.protocol_version = static_cast<std::uint16_t>(version);
  if (nonce.size() != kNonceBytes) return {.error = WireError::invalid_value};
  std::copy(nonce.begin(), nonce.end(), hello.nonce.begin());
  if (WireError invalid = validate(hello); invalid != WireError::none) return {.error = invalid};
  return {.value = hello};
}

}  // namespace weft::wire
