// Goal: the handshake codec (hello and hello_proof) round-trips, checks
// every field's shape, and rejects malformed frames with named reasons.
#include "kernel/wire/handshake.hpp"

#include <gtest/gtest.h>

#include "wire_test_support.hpp"

namespace weft::wire {
namespace {

using testing::ByteVector;
using testing::Pack;

Pack& hello_fields(Pack& p, std::uint32_t entries = 7) {
  p.map(entries);
  p.uint(0).uint(0x01);
  p.uint(1).uint(1);
  p.uint(2).str("weft-test");
  p.uint(3).array(2).str("10.0.0.17").uint(7000);
  p.uint(4).uint(5);
  p.uint(5).bin(ByteVector(16, 7));
  return p;
}

ByteVector hello_with_proof(const ByteVector& proof) {
  Pack p;
  hello_fields(p).uint(6).bin(proof);
  return p.bytes();
}

TEST(Hello, RoundTripsWithAndWithoutProof) {
  Hello hello = testing::sample_hello();
  for (bool with_proof : {true, false}) {
    if (!with_proof) hello.proof = {};
    const ByteVector payload = testing::encode_payload(hello);
    EXPECT_EQ(payload.size(), encoded_size(hello));
    const Decoded<Hello> decoded = decode_hello(payload);
    ASSERT_TRUE(decoded.ok()) << to_string(decoded.error);
    EXPECT_EQ(decoded.value, hello);
  }
}

TEST(Hello, TheLargestHelloFitsTheHandshakeLimit) {
  // Every field at its widest: what a link reads before its handshake is
  // done (kMaxHandshakeFrameBytes) must take any valid hello.
  const std::string cluster(kMaxClusterNameBytes, 'c');
  const std::string host(kMaxHostBytes, 'h');
  Hello hello = testing::sample_hello();
  hello.protocol_version = UINT16_MAX;
  hello.cluster_name = cluster;
  hello.address = {host, UINT16_MAX};
  hello.incarnation = UINT64_MAX;
  ASSERT_EQ(hello.proof.size(), kProofBytes);
  EXPECT_LE(encoded_size(hello), kMaxHandshakeFrameBytes);
  EXPECT_GT(encoded_size(hello), kMaxHandshakeFrameBytes - 128);  // the limit is not far above it
  const ByteVector proof(kProofBytes, 1);
  EXPECT_LE(encoded_size(HelloProof{proof}), kMaxHandshakeFrameBytes);
}

TEST(Hello, ReadsMsgpackCOutput) {
  const ByteVector payload = hello_with_proof({});
  const Decoded<Hello> decoded = decode_hello(payload);
  ASSERT_TRUE(decoded.ok()) << to_string(decoded.error);
  EXPECT_EQ(decoded.value.cluster_name, "weft-test");
  EXPECT_EQ(decoded.value.address.port, 7000);
  EXPECT_EQ(decoded.value.incarnation, 5u);
  EXPECT_EQ(decoded.value.nonce[15], 7);
}

TEST(Hello, MalformedHellosAreRejectedWithTheirReason) {
  struct Case {
    const char* name;
    ByteVector payload;
    WireError expected;
  };
  const auto replace = [](unsigned key, auto value) {
    Pack p;
    p.map(7);
    const auto put = [&](unsigned k, auto original) {
      p.uint(k);
      if (k == key) value(p); else original(p);
    };
    put(0, [](Pack& q) { q.uint(0x01); });
    put(1, [](Pack& q) { q.uint(1); });
    put(2, [](Pack& q) { q.str("weft-test"); });
    put(3, [](Pack& q) { q.array(2).str("10.0.0.17").uint(7000); });
    put(4, [](Pack& q) { q.uint(5); });
    put(5, [](Pack& q) { q.bin(ByteVector(16, 7)); });
    put(6, [](Pack& q) { q.bin({}); });
    return p.bytes();
  };
  const std::vector<Case> cases = {
      {"proof missing", [] { Pack p; hello_fields(p, 6); return p.bytes(); }(), WireError::missing_field},
      {"proof of 31 bytes", hello_with_proof(ByteVector(31, 1)), WireError::invalid_value},
      {"version zero", replace(1, [](Pack& p) { p.uint(0); }), WireError::invalid_value},
      {"version above 16 bits", replace(1, [](Pack& p) { p.uint(70000); }), WireError::invalid_value},
      {"cluster name empty", replace(2, [](Pack& p) { p.str(""); }), WireError::invalid_value},
      {"cluster name too long", replace(2, [](Pack& p) { p.str(std::string(65, 'c')); }),
       WireError::string_too_long},
      {"cluster name as bin", replace(2, [](Pack& p) { p.bin({1}); }), WireError::wrong_type},
      {"address as actor ref", replace(3, [](Pack& p) { p.ref("h", 1, "n"); }), WireError::wrong_type},
      {"address port zero", replace(3, [](Pack& p) { p.array(2).str("h").uint(0); }),
       WireError::invalid_value},
      {"incarnation negative", replace(4, [](Pack& p) { p.sint(-1); }), WireError::wrong_type},
      {"nonce of 15 bytes", replace(5, [](Pack& p) { p.bin(ByteVector(15, 1)); }), WireError::invalid_value},
      {"nonce as string", replace(5, [](Pack& p) { p.str(std::string(16, 'x')); }), WireError::wrong_type},
      {"kind tell", replace(0, [](Pack& p) { p.uint(0x40); }), WireError::unexpected_kind},
      {"kind unknown", replace(0, [](Pack& p) { p.uint(0x0f); }), WireError::unknown_kind},
      {"extra field", [] { Pack p; hello_fields(p, 8).uint(6).bin({}).uint(8).uint(1); return p.bytes(); }(),
       WireError::unknown_field},
      // held_incarnation (key 7) is optional, and present only when nonzero.
      {"held incarnation zero", [] { Pack p; hello_fields(p, 8).uint(6).bin({}).uint(7).uint(0); return p.bytes(); }(),
       WireError::invalid_value},
      {"held incarnation as string", [] { Pack p; hello_fields(p, 8).uint(6).bin({}).uint(7).str("1"); return p.bytes(); }(),
       WireError::wrong_type},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(decode_hello(c.payload).error, c.expected)
        << c.name << ": got " << to_string(decode_hello(c.payload).error);
  }
  EXPECT_TRUE(decode_hello(replace(6, [](Pack& p) { p.bin(ByteVector(32, 1)); })).ok());
  Pack held;
  hello_fields(held, 8).uint(6).bin({}).uint(7).uint(42);
  const Decoded<Hello> with_held = decode_hello(held.bytes());
  ASSERT_TRUE(with_held.ok()) << to_string(with_held.error);
  EXPECT_EQ(with_held.value.held_incarnation, 42U);
}

// A hello with held_incarnation round-trips, and one without it encodes as
// before (seven fields), so every hello has one encoding.
TEST(Hello, HeldIncarnationIsOptionalAndRoundTrips) {
  Hello hello;
  hello.cluster_name = "weft-test";
  hello.address = AddressView{"10.0.0.17", 7000};
  hello.incarnation = 5;
  ByteVector without;
  ASSERT_EQ(append_frame(without, hello), WireError::none);
  hello.held_incarnation = 811802;
  ByteVector with;
  ASSERT_EQ(append_frame(with, hello), WireError::none);
  EXPECT_GT(with.size(), without.size());
  const Decoded<Hello> decoded = decode_hello(Bytes(with).subspan(kFrameHeaderBytes));
  ASSERT_TRUE(decoded.ok()) << to_string(decoded.error);
  EXPECT_EQ(decoded.value, hello);
  EXPECT_EQ(without[kFrameHeaderBytes], 0x87) << "a fixmap of seven";
}

TEST(Hello, EveryTruncationIsTruncated) {
  const ByteVector payload = testing::encode_payload(testing::sample_hello());
  for (std::size_t cut = 0; cut < payload.size(); ++cut) {
    const ByteVector prefix(payload.begin(), payload.begin() + static_cast<std::ptrdiff_t>(cut));
    EXPECT_EQ(decode_hello(prefix).error, WireError::truncated) << "cut at " << cut;
  }
}

TEST(HelloProof, RoundTripsAndReadsMsgpackCOutput) {
  const ByteVector proof(kProofBytes, 0xab);
  const HelloProof message{proof};
  const ByteVector payload = testing::encode_payload(message);
  EXPECT_EQ(payload.size(), encoded_size(message));
  const Decoded<HelloProof> decoded = decode_hello_proof(payload);
  ASSERT_TRUE(decoded.ok()) << to_string(decoded.error);
  EXPECT_EQ(decoded.value, message);
  Pack p;
  p.map(2).uint(0).uint(0x02).uint(1).bin(proof);
  EXPECT_EQ(p.bytes(), payload) << "the shortest encoding, as msgpack-c writes it";
}

TEST(HelloProof, MalformedProofsAreRejectedWithTheirReason) {
  const auto decode = [](Pack& p) { return decode_hello_proof(p.bytes()).error; };
  Pack short_proof;
  short_proof.map(2).uint(0).uint(0x02).uint(1).bin(ByteVector(31, 1));
  EXPECT_EQ(decode(short_proof), WireError::invalid_value);
  Pack empty_proof;
  empty_proof.map(2).uint(0).uint(0x02).uint(1).bin({});
  EXPECT_EQ(decode(empty_proof), WireError::invalid_value) << "a hello_proof always carries a proof";
  Pack missing;
  missing.map(1).uint(0).uint(0x02);
  EXPECT_EQ(decode(missing), WireError::missing_field);
  Pack extra;
  extra.map(3).uint(0).uint(0x02).uint(1).bin(ByteVector(32, 1)).uint(2).uint(0);
  EXPECT_EQ(decode(extra), WireError::unknown_field);
  Pack as_string;
  as_string.map(2).uint(0).uint(0x02).uint(1).str(std::string(32, 'x'));
  EXPECT_EQ(decode(as_string), WireError::wrong_type);
  Pack other_kind;
  other_kind.map(2).uint(0).uint(0x01).uint(1).bin(ByteVector(32, 1));
  EXPECT_EQ(decode(other_kind), WireError::unexpected_kind) << "kind hello is not a hello_proof";
}

}  // namespace
}  // namespace weft::wire
