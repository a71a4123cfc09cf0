// Entity envelopes; the layout is in envelope.hpp.
#include "shard/envelope.hpp"

#include "kernel/assert.hpp"

namespace weft::shard {

namespace wire_detail {

void put(std::vector<std::uint8_t>& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

void put_text(std::vector<std::uint8_t>& out, std::string_view text, int length_bytes) {
  WEFT_ASSERT(text.size() < (std::uint64_t{1} << (8 * length_bytes)));
  put(out, text.size(), length_bytes);
  out.insert(out.end(), text.begin(), text.end());
}

std::uint64_t Reader::get(int bytes) {
  const std::span<const std::uint8_t> field = take(static_cast<std::size_t>(bytes));
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < field.size(); ++i) value |= std::uint64_t{field[i]} << (8 * i);
  return value;
}

std::string_view Reader::text(int length_bytes) {
  const auto n = static_cast<std::size_t>(get(length_bytes));
  const std::span<const std::uint8_t> field = take(n);
  return {reinterpret_cast<const char*>(field.data()), field.size()};
}

std::span<const std::uint8_t> Reader::take(std::size_t n) {
  if (!ok_ || bytes_.size() - at_ < n) {
    ok_ = false;
    return {};
  }
  const std::span<const std::uint8_t> field = bytes_.subspan(at_, n);
  at_ += n;
  return field;
}

std::span<const std::uint8_t> Reader::rest() { return take(bytes_.size() - at_); }

}  // namespace wire_detail

namespace {

constexpr std::uint8_t kVersion = 1;
constexpr std::uint8_t kStamped = 1;

}  // namespace

std::string region_name(std::string_view kind) { return "shard." + std::string(kind); }

ActorRef region_of(const NodeAddress& node, std::string_view kind) { return ActorRef{node, region_name(kind)}; }

bool valid_key(std::string_view key) { return !key.empty() && key.size() <= kMaxKeyBytes; }

void encode(const EntityMessage& message, std::vector<std::uint8_t>& out) {
  using wire_detail::put;
  WEFT_ASSERT(valid_key(message.key));
  out.clear();
  out.reserve(9 + 28 + message.key.size() + message.body.size());
  out.push_back(kVersion);
  out.push_back(message.hops);
  out.push_back(message.stamp ? kStamped : 0);
  put(out, message.tag, 4);
  put(out, message.key.size(), 2);
  if (message.stamp) {
    WEFT_ASSERT(!message.stamp->host.empty());
    wire_detail::put_text(out, message.stamp->host, 1);
    put(out, message.stamp->port, 2);
    put(out, message.stamp->life, 8);
    put(out, message.stamp->number, 8);
  }
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
