// Handoff messages; the layout is in handoff_wire.hpp.
#include "shard/handoff_wire.hpp"

#include "shard/envelope.hpp"

namespace weft::shard {

namespace {

constexpr std::uint8_t kVersion = 1;
constexpr std::uint8_t kDoneVersion = 2;  // 2: the serving list

}  // namespace

std::vector<std::uint8_t> encode_entity(const HandoffEntity& entity) {
  std::vector<std::uint8_t> out;
  out.push_back(kVersion);
  wire_detail::put(out, entity.shard, 4);
  wire_detail::put_text(out, entity.key, 2);
  out.insert(out.end(), entity.state.begin(), entity.state.end());
  return out;
}

std::optional<HandoffEntity> decode_entity(std::span<const std::uint8_t> bytes) {
  wire_detail::Reader in(bytes);
  if (in.get(1) != kVersion) return std::nullopt;
  HandoffEntity entity;
  entity.shard = static_cast<ShardId>(in.get(4));
  entity.key = in.text(2);
  entity.state = in.rest();
  if (!in.ok() || !valid_key(entity.key)) return std::nullopt;
  return entity;
}

std::vector<std::uint8_t> encode_done(const HandoffDone& done) {
  std::vector<std::uint8_t> out;
  out.push_back(kDoneVersion);
  wire_detail::put(out, done.shards.size(), 4);
  for (const auto& [shard, numbering] : done.shards) {
    wire_detail::put(out, shard, 4);
    wire_detail::put(out, numbering.size(), 2);
    for (const auto& [source, next] : numbering) {
      wire_detail::put_text(out, source.host, 1);
      wire_detail::put(out, source.port, 2);
      wire_detail::put(out, source.life, 8);
      wire_detail::put(out, next, 8);
    }
  }
  wire_detail::put(out, done.serving.size(), 4);
  for (const ShardId shard : done.serving) wire_detail::put(out, shard, 4);
  return out;
}

std::optional<HandoffDone> decode_done(std::span<const std::uint8_t> bytes) {
  wire_detail::Reader in(bytes);
  if (in.get(1) != kDoneVersion) return std::nullopt;
  HandoffDone done;
  const std::uint64_t shards = in.get(4);
  for (std::uint64_t i = 0; i < shards && in.ok(); ++i) {
    const auto shard = static_cast<ShardId>(in.get(4));
    ShardInbox::Numbering& numbering = done.shards[shard];
    const std::uint64_t sources = in.get(2);
    for (std::uint64_t j = 0; j < sources && in.ok(); ++j) {
      Source source;
      source.host = std::string(in.text(1));
      source.port = static_cast<std::uint16_t>(in.get(2));
      source.life = in.get(8);
      numbering[source] = in.get(8);
    }
  }
  const std::uint64_t serving = in.get(4);
  for (std::uint64_t i = 0; i < serving && in.ok(); ++i) {
    const auto shard = static_cast<ShardId>(in.get(4));
    if (done.shards.contains(shard) || (!done.serving.empty() && shard <= *done.serving.rbegin())) return std::nullopt;
    done.serving.insert(shard);
  }
  if (!in.done()) return std::nullopt;
  return done;
}

}  // namespace weft::shard
