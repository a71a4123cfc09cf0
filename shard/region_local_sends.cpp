// Sends from this node's senders, numbered as they are sent; the model is
// in region.hpp ("sends from this node").
#include "shard/region.hpp"

#include <algorithm>

#include "kernel/assert.hpp"

namespace weft::shard {

Region::LocalSend Region::route_here(const ActorRef& self_region, std::span<const Member> members, std::string_view key,
                                      std::uint32_t tag, std::span<const std::uint8_t> body) {
  const ShardId shard = shard_of_key(key);
  LocalSend send{&self_region, EntityMessage{0, tag, key, body}, shard, last_queued_[shard]};
  // Before its first view the region knows neither its node nor its life:
  // read from the sender's table (a started kernel's has its own node).
  std::uint64_t life = self_life_;
  const NodeAddress& self = read_a_view_ ? self_ : self_region.node;
  if (!read_a_view_) {
    const auto it = std::find_if(members.begin(), members.end(), [&](const Member& m) { return m.address() == self; });
    if (it == members.end()) return send;  // unnumbered: the region numbers it, as an arriving message
    life = it->incarnation().value;
  }
  send.message.stamp = Stamp{self.host, self.port, life, next_number_[shard]++};
  const bool routed = read_a_view_ && !reading_view_;
  if (routed && straight_[shard] != nullptr && last_queued_[shard] == 0) {
    send.to = straight_[shard];
    send.message.hops = 1;
  } else {
    last_queued_[shard] = send.message.stamp->number;
  }
  return send;
}

void Region::sent_here(const LocalSend& send, SendResult result) {
  const bool straight = send.message.hops == 1;
  if (result == SendResult::sent) {
    if (straight) {
      ++counters_.forwarded;
      if (exported_.forwarded != nullptr) exported_.forwarded->add();
    }
    return;
  }
  if (!send.message.stamp) return;
  --next_number_[send.shard];
  last_queued_[send.shard] = send.queued_before;
  if (straight) {
    // As the region counts a forward that failed; the sender has the
    // result, and the kernel a dead letter.
    const auto i = static_cast<std::size_t>(Refusal::forward_failed);
    ++counters_.refused[i];
    if (exported_.refused[i] != nullptr) exported_.refused[i]->add();
  }
}

bool Region::batch(Outbox& out, const ActorRef& self_region, const LocalSend& send, std::string_view sender) {
  WEFT_ASSERT(send.message.hops == 1 && send.message.stamp && send.to != nullptr);
  const auto host = static_cast<std::size_t>(send.to - host_regions_.data());
  WEFT_ASSERT(host < host_regions_.size());
  const BatchEntry entry{send.message.tag, send.message.stamp->number, sender, send.message.key, send.message.body};
  if (!kind_.batch_tells || !BatchWriter::fits(entry)) {
    send_batch(out, host);
    return false;
  }
  WEFT_ASSERT(batches_.size() == host_regions_.size());  // read_view sizes them together
  BatchWriter& writer = batches_[host];
  if (writer.empty()) {
    writer.start(send.message.stamp->life, self_.host, self_.port);
    open_batches_.push_back(host);
  }
  WEFT_ASSERT(writer.life() == send.message.stamp->life);  // one life per view read, and views send first
  writer.append(entry);
  if (writer.full()) {
    send_batch(out, host);
  } else if (!flush_queued_) {
    flush_queued_ = out.tell(self_region, kFlushTag, {}) == SendResult::sent;
    if (!flush_queued_) send_batch(out, host);  // the mailbox is full: no later run to wait for
  }
  return true;
}

void Region::send_batch_ahead(Outbox& out, const ActorRef& to) {
  if (kind_.mutations.ask_overtakes_batch) return;
  const auto host = static_cast<std::size_t>(&to - host_regions_.data());
  if (host < batches_.size()) send_batch(out, host);
}

std::size_t Region::batched() const {
  std::size_t n = 0;
  for (const BatchWriter& writer : batches_) n += writer.entries();
  return n;
}

void Region::send_batch(Outbox& out, std::size_t host) {
  if (host >= batches_.size() || batches_[host].empty()) return;
  BatchWriter& writer = batches_[host];
  const std::uint64_t entries = writer.entries();
  const SendResult result = out.tell(host_regions_[host], kEntityBatchTag, writer.view());
  writer.clear();
  std::erase(open_batches_, host);
  // As single tells count: forwarded once sent, refused (forward_failed)
  // if the kernel took none of it; the kernel has a dead letter.
  if (result == SendResult::sent) {
    counters_.forwarded += entries;
    if (exported_.forwarded != nullptr) exported_.forwarded->add(entries);
  } else {
    const auto i = static_cast<std::size_t>(Refusal::forward_failed);
    counters_.refused[i] += entries;
    if (exported_.refused[i] != nullptr) exported_.refused[i]->add(entries);
  }
}

void Region::send_batches(Context& context) {
  ContextOutbox out(context);
  while (!open_batches_.empty()) send_batch(out, open_batches_.front());
  // The region ran: a tell batched from now on asks for another run. The
  // flush tell queued before may be in the mailbox still (one more run,
  // for nothing) or gone (a drop_oldest mailbox dropped it: waiting on it
  // would hold the batches until something else came).
  flush_queued_ = false;
}

void Region::send_batch_before(Context& context, ShardId shard) {
  if (straight_[shard] == nullptr) return;
  ContextOutbox out(context);
  send_batch(out, static_cast<std::size_t>(straight_[shard] - host_regions_.data()));
}

}  // namespace weft::shard
