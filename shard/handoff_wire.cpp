// Handoff messages; the layout is in handoff_wire.hpp.
#include "shard/handoff_wire.hpp"

#include "shard/envelope.hpp"

namespace weft::shard {

namespace {

constexpr std::uint8_t kEntityVersion = 2;  // 2: flags
constexpr std::uint8_t kDoneVersion = 4;    // 2: the serving list; 3: flags; 4: to_life
constexpr std::uint8_t kAgain = 1;          // flags: sent again on a query
constexpr std::uint8_t kQueryVersion = 1;  // before 1: an empty body

// A u32 count and that many u32 shards, strictly ascending.
void put_shards(std::vector<std::uint8_t>& out, const std::set<ShardId>& shards) {
  wire_detail::put(out, shards.size(), 4);
  for (const ShardId shard : shards) wire_detail::put(out, shard, 4);
}
bool get_shards(wire_detail::Reader& in, std::set<ShardId>& shards) {
  const std::uint64_t count = in.get(4);
  for (std::uint64_t i = 0; i < count && in.ok(); ++i) {
    const auto shard = static_cast<ShardId>(in.get(4));
    if (!shards.empty() && shard <= *shards.rbegin()) return false;
    shards.insert(shards.end(), shard);
  }
  return in.ok();
}

}  // namespace

std::vector<std::uint8_t> encode_entity(const HandoffEntity& entity) {
  std::vector<std::uint8_t> out;
  out.push_back(kEntityVersion);
  out.push_back(entity.again ? kAgain : 0);
  wire_detail::put(out, entity.shard, 4);
  wire_detail::put_text(out, entity.key, 2);
  out.insert(out.end(), entity.state.begin(), entity.state.end());
  return out;
}

std::optional<HandoffEntity> decode_entity(std::span<const std::uint8_t> bytes) {
  wire_detail::Reader in(bytes);
  const std::uint64_t version = in.get(1);
  if (version != 1 && version != kEntityVersion) return std::nullopt;
  HandoffEntity entity;
  if (version == kEntityVersion) {
    const std::uint64_t flags = in.get(1);
    if ((flags & ~std::uint64_t{kAgain}) != 0) return std::nullopt;
    entity.again = flags == kAgain;
  }
  entity.shard = static_cast<ShardId>(in.get(4));
  entity.key = in.text(2);
  entity.state = in.rest();
  if (!in.ok() || !valid_key(entity.key)) return std::nullopt;
  return entity;
}

std::vector<std::uint8_t> encode_done(const HandoffDone& done) {
  std::vector<std::uint8_t> out;
  out.push_back(kDoneVersion);
  out.push_back(done.again ? kAgain : 0);
  wire_detail::put(out, done.to_life, 8);
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
  put_shards(out, done.serving);
  return out;
}

std::optional<HandoffDone> decode_done(std::span<const std::uint8_t> bytes) {
  wire_detail::Reader in(bytes);
  const std::uint64_t version = in.get(1);
  if (version < 2 || version > kDoneVersion) return std::nullopt;
  HandoffDone done;
  if (version >= 3) {
    const std::uint64_t flags = in.get(1);
    if ((flags & ~std::uint64_t{kAgain}) != 0) return std::nullopt;
    done.again = flags == kAgain;
  }
  if (version >= 4) done.to_life = in.get(8);
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
  if (!get_shards(in, done.serving) || !in.done()) return std::nullopt;
  for (const ShardId shard : done.serving) {
    if (done.shards.contains(shard)) return std::nullopt;
  }
  return done;
}

std::vector<std::uint8_t> encode_query(const HandoffQuery& query) {
  std::vector<std::uint8_t> out;
  out.push_back(kQueryVersion);
  put_shards(out, query.awaited);
  return out;
}

std::optional<HandoffQuery> decode_query(std::span<const std::uint8_t> bytes) {
  HandoffQuery query;
  if (bytes.empty()) return query;
  wire_detail::Reader in(bytes);
  if (in.get(1) != kQueryVersion || !get_shards(in, query.awaited) || !in.done()) return std::nullopt;
  return query;
}

}  // namespace weft::shard
