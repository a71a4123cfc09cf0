// Sends from this node's senders, numbered as they are sent; the model is
// in region.hpp ("sends from this node").
#include "shard/region.hpp"

#include <algorithm>

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

}  // namespace weft::shard
