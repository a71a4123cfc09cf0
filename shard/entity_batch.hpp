// Entity batches: the tells a region sends straight to one owner's region
// in one dispatch step, as one kernel message (kEntityBatchTag).
//
// Model. A tell sent on this node to an entity another node owns is
// numbered as it is sent (Region::route_here) and, instead of a kernel
// envelope of its own, appended to this region's batch for that owner; the
// batch goes when the region next runs (a flush message the first append
// queues in its own mailbox), before any other message of this node's to
// that owner (an ask sent straight, a message the region numbers as it
// enters, a view read), or when it is full. The kernel's cost per envelope
// (its encode, the frame, the receiving node's decode, mailbox and
// dispatch: most of a direct tell's) is then paid once per batch, not per
// message. Order is kept as the single envelopes kept it: every entry
// carries its stamp's number and the batch its source (node and life: the
// stamp's, written once), so the owner's region takes each entry as the
// stamped envelope it stands for (hops 1) and hands it through the shard's
// inbox as any other (shard/shard_inbox.hpp). Asks are never batched: the
// kernel tracks an ask by its own envelope.
//
// Layout (little-endian): u8 version (1), u8 host length, host, u16 port,
// u64 life (the source), u16 the number of entries; then each entry: u32
// user tag, u64 number, u8 sender name length, u16 key length, u32 body
// length, the sender's actor name (empty: a driver's tell, no sender), the
// key, the body. Keys are 1..kMaxKeyBytes bytes, hosts
// 1..kMaxBatchHostBytes, ports not 0; a batch holds 1..kMaxBatchEntries
// entries and nothing after the last; anything else does not decode, and
// the region refuses the whole batch (malformed), one count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace weft::shard {

inline constexpr std::uint32_t kEntityBatchTag = 0xFFFF0009;  // a batch of entity tells
inline constexpr std::uint32_t kFlushTag = 0xFFFF000A;        // a region to itself: send the batches now
inline constexpr std::size_t kMaxBatchEntries = 0xFFFF;
// The longest host a batch names: the kernel's (kernel/wire/refs.hpp, the
// longest DNS name), since an entry's sender is made of it and the region
// may forward the entry as an envelope of the kernel's.
inline constexpr std::size_t kMaxBatchHostBytes = 253;
// The most bytes a batch may hold: with the kernel's envelope around it
// (two refs of 253-byte hosts and 255-byte names, its tags and lengths:
// just over 1 KiB; tests/region_batch_test.cpp encodes the largest) it
// fits the smallest frame a kernel may be set to, max_frame_bytes 4 KiB.
// An entry holds at most kMaxBatchedBytes of key, sender and body (a
// larger tell goes alone), and a batch is sent once one more entry might
// not fit. By then the kernel's cost per envelope is shared among a couple
// of dozen 64-byte tells.
inline constexpr std::size_t kBatchBytes = 2560;
inline constexpr std::size_t kMaxBatchedBytes = 1024;
inline constexpr std::size_t kBatchEntryHeaderBytes = 4 + 8 + 1 + 2 + 4;  // tag, number, three lengths

struct BatchEntry {
  std::uint32_t tag = 0;
  std::uint64_t number = 0;
  std::string_view sender;  // the sending actor's name on the source node; empty: none
  std::string_view key;
  std::span<const std::uint8_t> body;
};

// Builds one batch in a buffer it keeps (reused from batch to batch).
class BatchWriter {
 public:
  bool empty() const { return count_ == 0; }
  std::size_t entries() const { return count_; }
  std::size_t bytes() const { return bytes_.size(); }
  // Starts a batch from the source (its node, host 1..kMaxBatchHostBytes
  // bytes, and life); the current one is dropped.
  void start(std::uint64_t life, std::string_view host, std::uint16_t port);
  // Whether `entry` may go in a batch: its key and sender fit the layout,
  // and key, sender and body are at most kMaxBatchedBytes.
  static bool fits(const BatchEntry& entry);
  // Whether the next entry might not fit within kBatchBytes (or the count).
  bool full() const {
    return count_ == kMaxBatchEntries || bytes_.size() + kBatchEntryHeaderBytes + kMaxBatchedBytes > kBatchBytes;
  }
  // Appends `entry` (fits() must hold, and start() have been called).
  void append(const BatchEntry& entry);
  // The batch's bytes, valid until the next start() or append(); after
  // clear() they are the last batch's, until the next start().
  std::span<const std::uint8_t> view() const { return bytes_; }
  std::uint64_t life() const { return life_; }
  void clear() { count_ = 0; }

 private:
  std::vector<std::uint8_t> bytes_;
  std::size_t count_ = 0;
  std::size_t count_at_ = 0;
  std::uint64_t life_ = 0;
};

struct DecodedBatch {
  std::string_view host;  // the source's, a view into the decoded bytes
  std::uint16_t port = 0;
  std::uint64_t life = 0;
  std::vector<BatchEntry> entries;  // views into the decoded bytes
};
// False (and `out` unspecified) for bytes that are not a batch.
bool decode_batch(std::span<const std::uint8_t> bytes, DecodedBatch& out);

}  // namespace weft::shard
