// Entity envelopes; the layout is in envelope.hpp.
#include "shard/envelope.hpp"

#include <cstring>

#include "kernel/assert.hpp"

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

std::uint8_t* store(std::uint8_t* at, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) *at++ = static_cast<std::uint8_t>(value >> (8 * i));
  return at;
}

std::uint8_t* store(std::uint8_t* at, std::span<const std::uint8_t> bytes) {
  if (!bytes.empty()) std::memcpy(at, bytes.data(), bytes.size());
  return at + bytes.size();
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
  at = store(at, message.tag, 4);
  at = store(at, message.key.size(), 2);
  if (message.stamp) {
    WEFT_ASSERT(!message.stamp->host.empty() && message.stamp->host.size() <= 255);
    at = store(at, message.stamp->host.size(), 1);
    at = store(at, as_bytes(message.stamp->host));
    at = store(at, message.stamp->port, 2);
    at = store(at, message.stamp->life, 8);
    at = store(at, message.stamp->number, 8);
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
  wire_detail::Reader in(bytes);
  const auto version = in.get(1);
  EntityMessage message;
  message.hops = static_cast<std::uint8_t>(in.get(1));
  const auto flags = in.get(1);
  message.tag = static_cast<std::uint32_t>(in.get(4));
  const auto key_bytes = static_cast<std::size_t>(in.get(2));
  if (!in.ok()) return {std::nullopt, DecodeError::truncated};
  if (version != kVersion || (flags & ~std::uint64_t{kStamped}) != 0) return {std::nullopt, DecodeError::bad_version};
  if (key_bytes == 0 || key_bytes > kMaxKeyBytes) return {std::nullopt, DecodeError::bad_key};
  if ((flags & kStamped) != 0) {
    Stamp stamp;
    stamp.host = in.text(1);
    stamp.port = static_cast<std::uint16_t>(in.get(2));
    stamp.life = in.get(8);
    stamp.number = in.get(8);
    if (!in.ok()) return {std::nullopt, DecodeError::truncated};
    if (stamp.host.empty() || stamp.port == 0) return {std::nullopt, DecodeError::bad_stamp};
    message.stamp = stamp;
  }
  const std::span<const std::uint8_t> key = in.take(key_bytes);
  if (!in.ok()) return {std::nullopt, DecodeError::truncated};
  message.key = std::string_view(reinterpret_cast<const char*>(key.data()), key.size());
  message.body = in.rest();
  return {message, DecodeError::truncated};
}

}  // namespace weft::shard
