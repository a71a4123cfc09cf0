// Entity batches; the layout is in entity_batch.hpp.
#include "shard/entity_batch.hpp"

#include <algorithm>

#include "kernel/assert.hpp"
#include "shard/envelope.hpp"
#include "shard/little_endian.hpp"

namespace weft::shard {

namespace {

constexpr std::uint8_t kVersion = 1;
constexpr std::size_t kEntryHeader = kBatchEntryHeaderBytes;

}  // namespace

void BatchWriter::start(std::uint64_t life, std::string_view host, std::uint16_t port) {
  WEFT_ASSERT(!host.empty() && host.size() <= kMaxBatchHostBytes && port != 0);
  life_ = life;
  count_ = 0;
  count_at_ = 1 + 1 + host.size() + 2 + 8;
  bytes_.resize(count_at_ + 2);
  std::uint8_t* p = bytes_.data();
  *p++ = kVersion;
  *p++ = static_cast<std::uint8_t>(host.size());
  p = store_bytes(p, host.data(), host.size());
  p = store_le(p, std::uint16_t{port});
  p = store_le(p, std::uint64_t{life});
  (void)store_le(p, std::uint16_t{0});
}

bool BatchWriter::fits(const BatchEntry& entry) {
  return valid_key(entry.key) && entry.sender.size() <= 255 &&
         entry.key.size() + entry.sender.size() + entry.body.size() <= kMaxBatchedBytes;
}

void BatchWriter::append(const BatchEntry& entry) {
  WEFT_ASSERT(fits(entry) && count_ < kMaxBatchEntries && count_at_ != 0);
  const std::size_t at = bytes_.size();
  bytes_.resize(at + kEntryHeader + entry.sender.size() + entry.key.size() + entry.body.size());
  std::uint8_t* p = bytes_.data() + at;
  p = store_le(p, std::uint32_t{entry.tag});
  p = store_le(p, std::uint64_t{entry.number});
  *p++ = static_cast<std::uint8_t>(entry.sender.size());
  p = store_le(p, static_cast<std::uint16_t>(entry.key.size()));
  p = store_le(p, static_cast<std::uint32_t>(entry.body.size()));
  p = store_bytes(p, entry.sender.data(), entry.sender.size());
  p = store_bytes(p, entry.key.data(), entry.key.size());
  p = store_bytes(p, entry.body.data(), entry.body.size());
  WEFT_ASSERT(p == bytes_.data() + bytes_.size());
  ++count_;
  (void)store_le(bytes_.data() + count_at_, static_cast<std::uint16_t>(count_));
}

bool decode_batch(std::span<const std::uint8_t> bytes, DecodedBatch& out) {
  const std::uint8_t* const p = bytes.data();
  const std::size_t size = bytes.size();
  if (size < 2 || p[0] != kVersion) return false;
  const std::size_t host = p[1];
  std::size_t at = 2;
  if (host == 0 || host > kMaxBatchHostBytes || size - at < host + 2 + 8 + 2) return false;
  out.host = std::string_view(reinterpret_cast<const char*>(p + at), host);
  at += host;
  out.port = load_le<std::uint16_t>(p + at);
  out.life = load_le<std::uint64_t>(p + at + 2);
  const std::size_t count = load_le<std::uint16_t>(p + at + 10);
  at += 12;
  if (out.port == 0 || count == 0) return false;
  out.entries.clear();
  // No more room than the bytes could hold: a short batch claiming 65,535
  // entries reserves a few, not 65,535.
  out.entries.reserve(std::min(count, (size - at) / kEntryHeader));
  for (std::size_t i = 0; i < count; ++i) {
    if (size - at < kEntryHeader) return false;
    BatchEntry entry;
    entry.tag = load_le<std::uint32_t>(p + at);
    entry.number = load_le<std::uint64_t>(p + at + 4);
    const std::size_t sender = p[at + 12];
    const std::size_t key = load_le<std::uint16_t>(p + at + 13);
    const std::size_t body = load_le<std::uint32_t>(p + at + 15);
    at += kEntryHeader;
    if (key == 0 || key > kMaxKeyBytes) return false;
    if (size - at < sender || size - at - sender < key || size - at - sender - key < body) return false;
    entry.sender = std::string_view(reinterpret_cast<const char*>(p + at), sender);
    entry.key = std::string_view(reinterpret_cast<const char*>(p + at + sender), key);
    entry.body = bytes.subspan(at + sender + key, body);
    at += sender + key + body;
    out.entries.push_back(entry);
  }
  return at == size;
}

}  // namespace weft::shard
