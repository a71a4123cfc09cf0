// Entity envelopes; the layout is in envelope.hpp.
#include "shard/envelope.hpp"

#include "kernel/assert.hpp"

namespace weft::shard {

namespace {

constexpr std::uint8_t kVersion = 1;
constexpr std::size_t kHeaderBytes = 1 + 1 + 4 + 2;

void put_le(std::vector<std::uint8_t>& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

std::uint64_t get_le(std::span<const std::uint8_t> in, std::size_t at, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= std::uint64_t{in[at + static_cast<std::size_t>(i)]} << (8 * i);
  return value;
}

}  // namespace

std::string region_name(std::string_view kind) { return "shard." + std::string(kind); }

ActorRef region_of(const NodeAddress& node, std::string_view kind) { return ActorRef{node, region_name(kind)}; }

bool valid_key(std::string_view key) { return !key.empty() && key.size() <= kMaxKeyBytes; }

void encode(const EntityMessage& message, std::vector<std::uint8_t>& out) {
  WEFT_ASSERT(valid_key(message.key));
  out.clear();
  out.reserve(kHeaderBytes + message.key.size() + message.body.size());
  out.push_back(kVersion);
  out.push_back(message.hops);
  put_le(out, message.tag, 4);
  put_le(out, message.key.size(), 2);
  out.insert(out.end(), message.key.begin(), message.key.end());
  out.insert(out.end(), message.body.begin(), message.body.end());
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
  }
  return "invalid";
}

Decoded decode(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < kHeaderBytes) return {std::nullopt, DecodeError::truncated};
  if (bytes[0] != kVersion) return {std::nullopt, DecodeError::bad_version};
  const auto key_bytes = static_cast<std::size_t>(get_le(bytes, 6, 2));
  if (key_bytes == 0 || key_bytes > kMaxKeyBytes) return {std::nullopt, DecodeError::bad_key};
  if (bytes.size() < kHeaderBytes + key_bytes) return {std::nullopt, DecodeError::truncated};
  EntityMessage message;
  message.hops = bytes[1];
  message.tag = static_cast<std::uint32_t>(get_le(bytes, 2, 4));
  message.key = std::string_view(reinterpret_cast<const char*>(bytes.data() + kHeaderBytes), key_bytes);
  message.body = bytes.subspan(kHeaderBytes + key_bytes);
  return {message, DecodeError::truncated};
}

}  // namespace weft::shard
