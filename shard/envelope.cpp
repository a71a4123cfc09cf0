// Entity envelopes; the layout is in envelope.hpp.
#include "shard/envelope.hpp"

#include <bit>
#include <cstring>

#include "kernel/assert.hpp"
#include "shard/little_endian.hpp"

namespace weft::shard {

namespace wire_detail {

void put_text(std::vector<std::uint8_t>& out, std::string_view text, int length_bytes) {
  WEFT_ASSERT(text.size() < (std::uint64_t{1} << (8 * length_bytes)));
  put(out, text.size(), length_bytes);
  out.insert(out.end(), text.begin(), text.end());
}

}  // namespace wire_detail

namespace {

constexpr std::uint8_t kVersion = 1;
constexpr std::uint8_t kStamped = 1;

}  // namespace

std::string region_name(std::string_view kind) { return "shard." + std::string(kind); }

ActorRef region_of(const NodeAddress& node, std::string_view kind) { return ActorRef{node, region_name(kind)}; }

bool valid_key(std::string_view key) { return !key.empty() && key.size() <= kMaxKeyBytes; }

std::size_t encoded_size(const EntityMessage& message) {
  const std::size_t stamp = message.stamp ? 1 + message.stamp->host.size() + 2 + 8 + 8 : 0;
  return 9 + stamp + message.key.size() + message.body.size();
}

namespace {

// Fixed-width little-endian fields, one copy each on a little-endian
// machine (every entity message is encoded once and decoded once or twice).
template <class Int>
std::uint8_t* store(std::uint8_t* at, Int value) {
  return store_le(at, value);
}

std::uint8_t* store(std::uint8_t* at, std::span<const std::uint8_t> bytes) {
  return store_bytes(at, bytes.data(), bytes.size());
}

std::span<const std::uint8_t> as_bytes(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

}  // namespace

void encode_to(const EntityMessage& message, std::span<std::uint8_t> out) {
  WEFT_ASSERT(valid_key(message.key));
  WEFT_ASSERT(out.size() == encoded_size(message));
  std::uint8_t* at = out.data();
  *at++ = kVersion;
  *at++ = message.hops;
  *at++ = message.stamp ? kStamped : 0;
  at = store(at, std::uint32_t{message.tag});
  at = store(at, static_cast<std::uint16_t>(message.key.size()));
  if (message.stamp) {
    WEFT_ASSERT(!message.stamp->host.empty() && message.stamp->host.size() <= 255);
    *at++ = static_cast<std::uint8_t>(message.stamp->host.size());
    at = store(at, as_bytes(message.stamp->host));
    at = store(at, std::uint16_t{message.stamp->port});
    at = store(at, std::uint64_t{message.stamp->life});
    at = store(at, std::uint64_t{message.stamp->number});
  }
  at = store(at, as_bytes(message.key));
  at = store(at, message.body);
  WEFT_ASSERT(at == out.data() + out.size());
}

void encode(const EntityMessage& message, std::vector<std::uint8_t>& out) {
  out.resize(encoded_size(message));
  encode_to(message, out);
}

std::vector<std::uint8_t> encode(const EntityMessage& message) {
  std::vector<std::uint8_t> out;
  encode(message, out);
  return out;
}

std::string_view to_string(DecodeError error) {
  switch (error) {
    case DecodeError::truncated: return "truncated";
    case DecodeError::bad_version: return "bad_version";
    case DecodeError::bad_key: return "bad_key";
    case DecodeError::bad_stamp: return "bad_stamp";
  }
  return "invalid";
}

Decoded decode(std::span<const std::uint8_t> bytes) {
  // Read in place with each field's width checked against what is left,
  // in the order of the layout: the first field that does not fit names
  // the error (truncated), as does the first that does not read.
  const std::uint8_t* const p = bytes.data();
  const std::size_t size = bytes.size();
  constexpr std::size_t kHeader = 9;  // version, hops, flags, tag, key length
  if (size < kHeader) return {std::nullopt, DecodeError::truncated};
  EntityMessage message;
  const std::uint8_t version = p[0];
  message.hops = p[1];
  const std::uint8_t flags = p[2];
  message.tag = load_le<std::uint32_t>(p + 3);
  const std::size_t key_bytes = load_le<std::uint16_t>(p + 7);
  if (version != kVersion || (flags & ~kStamped) != 0) return {std::nullopt, DecodeError::bad_version};
  if (key_bytes == 0 || key_bytes > kMaxKeyBytes) return {std::nullopt, DecodeError::bad_key};
  std::size_t at = kHeader;
  if ((flags & kStamped) != 0) {
    if (size - at < 1) return {std::nullopt, DecodeError::truncated};
    const std::size_t host_bytes = p[at++];
    if (size - at < host_bytes + 2 + 8 + 8) return {std::nullopt, DecodeError::truncated};
    Stamp stamp;
    stamp.host = std::string_view(reinterpret_cast<const char*>(p + at), host_bytes);
    at += host_bytes;
    stamp.port = load_le<std::uint16_t>(p + at);
    stamp.life = load_le<std::uint64_t>(p + at + 2);
    stamp.number = load_le<std::uint64_t>(p + at + 10);
    at += 18;
    if (stamp.host.empty() || stamp.port == 0) return {std::nullopt, DecodeError::bad_stamp};
    message.stamp = stamp;
  }
  if (size - at < key_bytes) return {std::nullopt, DecodeError::truncated};
  message.key = std::string_view(reinterpret_cast<const char*>(p + at), key_bytes);
  message.body = bytes.subspan(at + key_bytes);
  return {message, DecodeError::truncated};
}

}  // namespace weft::shard
