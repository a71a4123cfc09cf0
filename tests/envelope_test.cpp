// Goal: the envelope codec round-trips every user kind, is wire-compatible
// with msgpack-c in both directions, ignores field order, and rejects each
// kind of malformed input in the table below with its own named reason.
#include "kernel/wire/envelope.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "wire_test_support.hpp"

namespace weft::wire {
namespace {

using testing::ByteVector;
using testing::Pack;

// One field of a hand-built envelope: its key and how to pack its value.
struct Field {
  std::uint64_t key;
  std::function<void(Pack&)> value;
};

std::vector<Field> valid_fields(std::uint64_t kind = 0x41) {
  return {
      {0, [=](Pack& p) { p.uint(kind); }},
      {1, [](Pack& p) { p.ref("10.0.0.17", 7000, "counter-shard-3"); }},
      {2, [](Pack& p) { p.ref("10.0.0.4", 7001, "client"); }},
      {3, [=](Pack& p) { p.uint(kind == 0x40 ? 0 : 99); }},
      {4, [](Pack& p) { p.uint(42); }},
      {5, [](Pack& p) { p.bin(ByteVector{1, 2, 3}); }},
  };
}

ByteVector build(const std::vector<Field>& fields) {
  Pack pack;
  pack.map(static_cast<std::uint32_t>(fields.size()));
  for (const Field& f : fields) {
    pack.uint(f.key);
    f.value(pack);
  }
  return pack.bytes();
}

std::vector<Field> without(std::uint64_t key, std::vector<Field> fields = valid_fields()) {
  std::erase_if(fields, [&](const Field& f) { return f.key == key; });
  return fields;
}

std::vector<Field> with(std::uint64_t key, std::function<void(Pack&)> value,
                        std::vector<Field> fields = valid_fields()) {
  for (Field& f : fields) {
    if (f.key == key) f.value = std::move(value);
  }
  return fields;
}

std::vector<Field> duplicated(std::uint64_t key) {
  std::vector<Field> fields = valid_fields();
  fields.push_back(fields[key]);
  return fields;
}

std::vector<Field> plus(std::uint64_t key, std::function<void(Pack&)> value) {
  std::vector<Field> fields = valid_fields();
  fields.push_back({key, std::move(value)});
  return fields;
}

TEST(Envelope, RoundTripsEveryUserKind) {
  for (MessageKind kind : {MessageKind::tell, MessageKind::ask, MessageKind::reply}) {
    const Envelope original = testing::sample_envelope(kind);
    const ByteVector payload = testing::encode_payload(original);
    EXPECT_EQ(payload.size(), encoded_size(original));
    const Decoded<Envelope> decoded = decode_envelope(payload);
    ASSERT_TRUE(decoded.ok()) << to_string(decoded.error);
    EXPECT_EQ(decoded.value, original);
  }
}

TEST(Envelope, SenderlessTellRoundTrips) {
  Envelope tell = testing::sample_envelope(MessageKind::tell);
  tell.sender = {};
  const ByteVector payload = testing::encode_payload(tell);
  const Decoded<Envelope> decoded = decode_envelope(payload);
  ASSERT_TRUE(decoded.ok()) << to_string(decoded.error);
  EXPECT_TRUE(decoded.value.sender.empty());
  EXPECT_EQ(decoded.value, tell);
}

TEST(Envelope, DecodeReturnsViewsIntoThePayload) {
  const ByteVector payload = testing::encode_payload(testing::sample_envelope());
  const Decoded<Envelope> decoded = decode_envelope(payload);
  ASSERT_TRUE(decoded.ok());
  const auto inside = [&](const void* p) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    return b >= payload.data() && b < payload.data() + payload.size();
  };
  EXPECT_TRUE(inside(decoded.value.body.data()));
  EXPECT_TRUE(inside(decoded.value.target.name.data()));
  EXPECT_TRUE(inside(decoded.value.sender.node.host.data()));
}

TEST(Envelope, MsgpackCReadsWhatWeWrite) {
  const Envelope envelope = testing::sample_envelope();
  const ByteVector payload = testing::encode_payload(envelope);
  const msgpack::object_handle handle =
      msgpack::unpack(reinterpret_cast<const char*>(payload.data()), payload.size());
  const msgpack::object& map = handle.get();
  ASSERT_EQ(map.type, msgpack::type::MAP);
  ASSERT_EQ(map.via.map.size, 6u);
  std::map<std::uint64_t, msgpack::object> by_key;
  for (std::uint32_t i = 0; i < map.via.map.size; ++i) {
    by_key[map.via.map.ptr[i].key.as<std::uint64_t>()] = map.via.map.ptr[i].val;
  }
  EXPECT_EQ(by_key.at(0).as<std::uint64_t>(), 0x41u);
  const auto target = by_key.at(1).as<std::tuple<std::string, std::uint16_t, std::string>>();
  EXPECT_EQ(target, std::make_tuple(std::string("10.0.0.17"), std::uint16_t{7000},
                                    std::string("counter-shard-3")));
  EXPECT_EQ(by_key.at(3).as<std::uint64_t>(), envelope.correlation_id);
  EXPECT_EQ(by_key.at(4).as<std::uint32_t>(), 42u);
  ASSERT_EQ(by_key.at(5).type, msgpack::type::BIN);
  EXPECT_EQ(by_key.at(5).via.bin.size, envelope.body.size());
}

TEST(Envelope, WeReadWhatMsgpackCWritesInAnyFieldOrder) {
  std::vector<Field> fields = valid_fields();
  std::reverse(fields.begin(), fields.end());
  const ByteVector payload = build(fields);  // the decoded views point into it
  const Decoded<Envelope> decoded = decode_envelope(payload);
  ASSERT_TRUE(decoded.ok()) << to_string(decoded.error);
  EXPECT_EQ(decoded.value.kind, MessageKind::ask);
  EXPECT_EQ(decoded.value.target.name, "counter-shard-3");
  EXPECT_EQ(decoded.value.sender.node.port, 7001);
  EXPECT_EQ(decoded.value.correlation_id, 99u);
  EXPECT_EQ(decoded.value.type_tag, 42u);
  EXPECT_EQ(decoded.value.body.size(), 3u);
  // Non-minimal encodings are valid MessagePack and accepted: map16 header,
  // uint64 for a small key.
  Pack wide;
  wide.raw({0xde, 0x00, 0x06});
  for (const Field& f : valid_fields()) {
    wide.raw({0xcf, 0, 0, 0, 0, 0, 0, 0, static_cast<std::uint8_t>(f.key)});
    f.value(wide);
  }
  EXPECT_TRUE(decode_envelope(wide.bytes()).ok());
}

struct MalformedCase {
  std::string name;
  ByteVector payload;
  WireError expected;
};

std::vector<MalformedCase> malformed_cases() {
  const std::string long_host(kMaxHostBytes + 1, 'h');
  const std::string long_name(kMaxActorNameBytes + 1, 'n');
  ByteVector deep(2000, 0x91);
  deep.push_back(0x01);
  std::vector<MalformedCase> cases = {
      {"empty input", {}, WireError::truncated},
      {"array instead of map", Pack().array(0).bytes(), WireError::wrong_type},
      {"str instead of map", Pack().str("hi").bytes(), WireError::wrong_type},
      {"trailing byte", [] { auto b = build(valid_fields()); b.push_back(0); return b; }(),
       WireError::trailing_bytes},
      {"seventeen fields", [] { Pack p; p.map(17); for (int i = 0; i < 17; ++i) p.uint(static_cast<std::uint64_t>(i)).uint(0); return p.bytes(); }(),
       WireError::too_many_fields},
      {"map32 claiming 4 billion entries", Pack().raw({0xdf, 0xff, 0xff, 0xff, 0xff, 0x00}).bytes(),
       WireError::truncated},
      {"map claims more entries than present", [] { auto b = build(valid_fields()); b[0] = 0x87; return b; }(),
       WireError::truncated},
      {"string key", [] { Pack p; p.map(1).str("kind").uint(0x41); return p.bytes(); }(),
       WireError::wrong_type},
      {"negative key", [] { Pack p; p.map(1).sint(-1).uint(0x41); return p.bytes(); }(),
       WireError::wrong_type},
      {"unknown key 6", build(plus(6, [](Pack& p) { p.uint(1); })), WireError::unknown_field},
      {"unknown key 31", build(plus(31, [](Pack& p) { p.uint(1); })), WireError::unknown_field},
      {"key beyond the key space", build(plus(1000, [](Pack& p) { p.uint(1); })),
       WireError::unknown_field},
      {"unknown key with deeply nested value", build(plus(7, [deep](Pack& p) { p.raw({}); for (auto b : deep) p.raw({b}); })),
       WireError::unknown_field},
      {"kind missing", build(without(0)), WireError::missing_field},
      {"target missing", build(without(1)), WireError::missing_field},
      {"sender missing", build(without(2)), WireError::missing_field},
      {"correlation id missing", build(without(3)), WireError::missing_field},
      {"type tag missing", build(without(4)), WireError::missing_field},
      {"body missing", build(without(5)), WireError::missing_field},
      {"kind twice", build(duplicated(0)), WireError::duplicate_field},
      {"target twice", build(duplicated(1)), WireError::duplicate_field},
      {"sender twice", build(duplicated(2)), WireError::duplicate_field},
      {"correlation id twice", build(duplicated(3)), WireError::duplicate_field},
      {"type tag twice", build(duplicated(4)), WireError::duplicate_field},
      {"body twice", build(duplicated(5)), WireError::duplicate_field},
      {"kind as string", build(with(0, [](Pack& p) { p.str("ask"); })), WireError::wrong_type},
      {"kind unknown", build(with(0, [](Pack& p) { p.uint(0x99); })), WireError::unknown_kind},
      {"kind hello in an envelope", build(with(0, [](Pack& p) { p.uint(0x01); })),
       WireError::unexpected_kind},
      {"target as string", build(with(1, [](Pack& p) { p.str("10.0.0.17:7000/x"); })),
       WireError::wrong_type},
      {"target with two elements", build(with(1, [](Pack& p) { p.array(2).str("h").uint(1); })),
       WireError::wrong_type},
      {"target with four elements", build(with(1, [](Pack& p) { p.array(4).str("h").uint(1).str("n").uint(0); })),
       WireError::wrong_type},
      {"target host not a string", build(with(1, [](Pack& p) { p.array(3).uint(1).uint(1).str("n"); })),
       WireError::wrong_type},
      {"target port as string", build(with(1, [](Pack& p) { p.array(3).str("h").str("7000").str("n"); })),
       WireError::wrong_type},
      {"target port zero", build(with(1, [](Pack& p) { p.ref("h", 0, "n"); })), WireError::invalid_value},
      {"target port above 65535", build(with(1, [](Pack& p) { p.ref("h", 65536, "n"); })),
       WireError::invalid_value},
      {"target empty host", build(with(1, [](Pack& p) { p.ref("", 1, "n"); })), WireError::invalid_value},
      {"target empty name", build(with(1, [](Pack& p) { p.ref("h", 1, ""); })), WireError::invalid_value},
      {"target nil", build(with(1, [](Pack& p) { p.nil(); })), WireError::wrong_type},
      {"target host too long", build(with(1, [=](Pack& p) { p.ref(long_host, 1, "n"); })),
       WireError::string_too_long},
      {"target name too long", build(with(1, [=](Pack& p) { p.ref("h", 1, long_name); })),
       WireError::string_too_long},
      {"target deeply nested", build(with(1, [deep](Pack& p) { for (auto b : deep) p.raw({b}); })),
       WireError::wrong_type},
      {"target array32 claiming 4 billion", build(with(1, [](Pack& p) { p.raw({0xdd, 0xff, 0xff, 0xff, 0xff}); })),
       WireError::truncated},
      {"sender as bool", build(with(2, [](Pack& p) { p.boolean(true); })), WireError::wrong_type},
      {"ask without sender", build(with(2, [](Pack& p) { p.nil(); })), WireError::invalid_value},
      {"correlation id negative", build(with(3, [](Pack& p) { p.sint(-5); })), WireError::wrong_type},
      {"correlation id float", build(with(3, [](Pack& p) { p.real(1.5); })), WireError::wrong_type},
      {"ask with correlation id zero", build(with(3, [](Pack& p) { p.uint(0); })),
       WireError::invalid_value},
      {"tell with a correlation id", build(with(3, [](Pack& p) { p.uint(7); }, valid_fields(0x40))),
       WireError::invalid_value},
      {"type tag above 32 bits", build(with(4, [](Pack& p) { p.uint(0x100000000ULL); })),
       WireError::invalid_value},
      {"body as string", build(with(5, [](Pack& p) { p.str("abc"); })), WireError::wrong_type},
      {"body nil", build(with(5, [](Pack& p) { p.nil(); })), WireError::wrong_type},
      {"body bin32 claiming 4 GiB", build(with(5, [](Pack& p) { p.raw({0xc6, 0xff, 0xff, 0xff, 0xff, 1}); })),
       WireError::truncated},
  };
  return cases;
}

TEST(Envelope, MalformedInputsAreRejectedWithTheirReason) {
  for (const MalformedCase& c : malformed_cases()) {
    const Decoded<Envelope> decoded = decode_envelope(c.payload);
    EXPECT_EQ(decoded.error, c.expected)
        << c.name << ": got " << to_string(decoded.error) << " for " << testing::hex(c.payload);
  }
}

TEST(Envelope, EveryTruncationIsTruncated) {
  for (MessageKind kind : {MessageKind::tell, MessageKind::ask, MessageKind::reply}) {
    const ByteVector payload = testing::encode_payload(testing::sample_envelope(kind));
    for (std::size_t cut = 0; cut < payload.size(); ++cut) {
      const ByteVector prefix(payload.begin(), payload.begin() + static_cast<std::ptrdiff_t>(cut));
      EXPECT_EQ(decode_envelope(prefix).error, WireError::truncated) << "cut at " << cut;
    }
  }
}

// Any single corrupted byte yields an error or a valid envelope that
// re-encodes to a payload decoding to the same envelope: never a crash.
TEST(Envelope, SingleByteCorruptionsAreContained) {
  const ByteVector payload = testing::encode_payload(testing::sample_envelope());
  int accepted = 0;
  for (std::size_t at = 0; at < payload.size(); ++at) {
    for (unsigned value = 0; value < 256; ++value) {
      ByteVector corrupt = payload;
      corrupt[at] = static_cast<std::uint8_t>(value);
      const Decoded<Envelope> decoded = decode_envelope(corrupt);
      if (!decoded.ok()) continue;
      ++accepted;
      const ByteVector again = testing::encode_payload(decoded.value);
      const Decoded<Envelope> redecoded = decode_envelope(again);
      ASSERT_TRUE(redecoded.ok());
      EXPECT_EQ(redecoded.value, decoded.value);
    }
  }
  EXPECT_GT(accepted, 0);  // body bytes may change freely
}

TEST(Envelope, ValidateNamesSenderSideMistakes) {
  Envelope e = testing::sample_envelope(MessageKind::ask);
  e.correlation_id = 0;
  EXPECT_EQ(validate(e), WireError::invalid_value);
  e = testing::sample_envelope(MessageKind::tell);
  e.correlation_id = 1;
  EXPECT_EQ(validate(e), WireError::invalid_value);
  e = testing::sample_envelope();
  e.kind = MessageKind::hello;
  EXPECT_EQ(validate(e), WireError::unexpected_kind);
  e = testing::sample_envelope();
  e.target.node.port = 0;
  EXPECT_EQ(validate(e), WireError::invalid_value);
  EXPECT_EQ(validate(testing::sample_envelope()), WireError::none);
}

}  // namespace
}  // namespace weft::wire
