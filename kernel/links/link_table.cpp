// The link table's moves and bookkeeping; the model is in link_table.hpp and
// the states in link_state.hpp.
#include "kernel/links/link_table.hpp"

#include <algorithm>

#include "kernel/membership/member_table.hpp"

namespace weft {

std::size_t AddressHash::operator()(const NodeAddress& address) const {
  return static_cast<std::size_t>(fingerprint_address(0, address));
}

// --- Records

void OutboundLink::check() const {
  const bool has_link = state_ == OutboundState::dialing || connected();
  WEFT_ASSERT(link.has_value() == has_link);
  WEFT_ASSERT(peer.has_value() == (state_ == OutboundState::established));
  WEFT_ASSERT(!writing || connected());
  WEFT_ASSERT(dial_queued || state_ != OutboundState::idle);
  WEFT_ASSERT(!dial_queued || state_ == OutboundState::idle || state_ == OutboundState::retired);
  WEFT_ASSERT(user_head <= user.size());
  if (state_ == OutboundState::retired) {
    WEFT_ASSERT(control.empty() && user.empty() && user_frames == 0 && handshake.empty());
  }
}

void OutboundLink::take_user_write(std::size_t max_write_bytes) {
  WEFT_ASSERT(user_queued() > 0 && user_frames > 0);
  if (user_head == 0 && user.size() <= max_write_bytes) {
    in_flight.clear();
    in_flight.swap(user);
    user_frames = 0;
    return;
  }
  std::size_t end = user_head;
  std::uint64_t frames = 0;
  while (end < user.size() && (frames == 0 || end - user_head < max_write_bytes)) {
    const std::size_t length = wire::load_be32(user.data() + end);
    if (frames > 0 && end - user_head + wire::kFrameHeaderBytes + length > max_write_bytes) break;
    end += wire::kFrameHeaderBytes + length;
    ++frames;
  }
  WEFT_ASSERT(end <= user.size() && frames > 0 && frames <= user_frames);
  in_flight.assign(user.begin() + static_cast<std::ptrdiff_t>(user_head), user.begin() + static_cast<std::ptrdiff_t>(end));
  user_head = end;
  user_frames -= frames;
  if (user_head == user.size()) {
    user.clear();
    user_head = 0;
  } else if (user_head * 2 >= user.size()) {
    user.erase(user.begin(), user.begin() + static_cast<std::ptrdiff_t>(user_head));
    user_head = 0;
  }
}

void InboundLink::check() const {
  switch (state_) {
    case InboundState::awaiting_hello:
      WEFT_ASSERT(!peer.has_value() && !claimed.has_value());
      return;
    case InboundState::awaiting_proof:
      WEFT_ASSERT(!peer.has_value() && claimed.has_value());
      return;
    case InboundState::established:
      WEFT_ASSERT(peer.has_value());
      return;
    case InboundState::closed:
      return;  // closed from any state: peer and claimed stay as they were
  }
  WEFT_ASSERT(false);
}

// --- Outbound moves

LinkTable::OutboundIt LinkTable::add_outbound(const NodeAddress& peer, std::uint32_t max_frame_bytes,
                                              RedialBackoff backoff) {
  const auto [it, added] = outbound_.emplace(peer, OutboundLink(max_frame_bytes, backoff));
  WEFT_ASSERT(added);
  const bool indexed = outbound_index_.insert(peer, it);
  WEFT_ASSERT(indexed);
  queue_dial(it);
  it->second.check();
  return it;
}

void LinkTable::revive(OutboundIt it) {
  OutboundLink& out = it->second;
  WEFT_ASSERT(out.retired());  // idle is reachable from elsewhere too
  out.move_to(OutboundState::idle);
  queue_dial(it);
  out.check();
}

LinkId LinkTable::dial(OutboundIt it) {
  OutboundLink& out = it->second;
  WEFT_ASSERT(!out.dial_queued);  // taken off the waiting list first
  out.move_to(OutboundState::dialing);
  const LinkId id = fresh_id();
  out.link = id;
  const bool indexed = outbound_by_link_.insert(id, it);
  WEFT_ASSERT(indexed);
  out.check();
  return id;
}

void LinkTable::link_up(OutboundIt it) {
  OutboundLink& out = it->second;
  out.move_to(OutboundState::handshaking);
  queue_transmit(it);
  out.check();
}

void LinkTable::establish(OutboundIt it, const MemberId& peer) {
  OutboundLink& out = it->second;
  out.move_to(OutboundState::established);
  out.peer = peer;
  out.check();
}

void LinkTable::lose_link(OutboundIt it) {
  OutboundLink& out = it->second;
  WEFT_ASSERT(out.link.has_value());
  const bool erased = outbound_by_link_.erase(*out.link);
  WEFT_ASSERT(erased);
  out.drop_link();
  out.move_to(OutboundState::idle);
  queue_dial(it);
  out.check();
}

void LinkTable::retire(OutboundIt it) {
  OutboundLink& out = it->second;
  if (out.link) {
    const bool erased = outbound_by_link_.erase(*out.link);
    WEFT_ASSERT(erased);
  }
  out.drop_link();
  out.move_to(OutboundState::retired);
  // The record (and the decoder that may be running) stays until sweep().
  retired_out_.push_back(it->first);
  needs_sweep_ = true;
  out.control.clear();
  out.user.clear();
  out.user_head = 0;
  out.user_frames = 0;
  out.check();
}

// --- Inbound moves

LinkId LinkTable::accept(std::uint32_t max_frame_bytes, Instant hello_due) {
  // A fresh id is the largest either table has seen, and hello_due (now
  // plus a fixed timeout) never decreases: both go in at the end, so the
  // hint saves a descent through a thousand cold tree nodes per accept.
  const LinkId id = fresh_id();
  const std::size_t before = inbound_.size();
  const auto it = inbound_.emplace_hint(inbound_.end(), id, InboundLink(max_frame_bytes));
  WEFT_ASSERT(inbound_.size() == before + 1 && it->first == id);
  const bool indexed = inbound_index_.insert(id, it);
  WEFT_ASSERT(indexed);
  it->second.hello_due = hello_due;
  const std::size_t waiting = awaiting_hello_.size();
  awaiting_hello_.emplace_hint(awaiting_hello_.end(), hello_due, id);
  WEFT_ASSERT(awaiting_hello_.size() == waiting + 1);
  it->second.check();
  return id;
}

void LinkTable::claim(InboundIt it, const MemberId& claimed) {
  InboundLink& in = it->second;
  in.move_to(InboundState::awaiting_proof);
  in.claimed = claimed;
  in.check();
}

void LinkTable::establish(InboundIt it, const MemberId& peer) {
  InboundLink& in = it->second;
  in.move_to(InboundState::established);
  in.peer = peer;
  const std::size_t unlisted = awaiting_hello_.erase({in.hello_due, it->first});
  WEFT_ASSERT(unlisted == 1);
  in.check();
}

void LinkTable::close(InboundIt it) {
  InboundLink& in = it->second;
  if (in.state() != InboundState::established) awaiting_hello_.erase({in.hello_due, it->first});
  in.move_to(InboundState::closed);
  closed_in_.push_back(it->first);
  needs_sweep_ = true;
  in.check();
}

void LinkTable::erase_inbound(InboundIt it) {
  const LinkId link = it->first;
  InboundLink& in = it->second;
  if (in.transmit_queued) transmit_in_.drop_if([&](const InboundIt& queued) { return queued == it; });
  if (in.state() == InboundState::awaiting_hello || in.state() == InboundState::awaiting_proof) {
    awaiting_hello_.erase({in.hello_due, link});
  }
  const bool unindexed = inbound_index_.erase(link);
  WEFT_ASSERT(unindexed);
  inbound_.erase(it);
  WEFT_ASSERT(inbound_index_.size() == inbound_.size());
}

std::optional<LinkId> LinkTable::pop_overdue_handshake(Instant now) {
  if (awaiting_hello_.empty() || awaiting_hello_.begin()->first > now) return std::nullopt;
  const LinkId link = awaiting_hello_.begin()->second;
  awaiting_hello_.erase(awaiting_hello_.begin());
  WEFT_ASSERT(inbound_index_.contains(link));  // a record leaves the list before it is erased
  return link;
}

// --- Dials

void LinkTable::queue_dial(OutboundIt it) {
  OutboundLink& out = it->second;
  WEFT_ASSERT(out.state() == OutboundState::idle);
  if (out.dial_queued) return;
  out.dial_queued = true;
  dial_waiting_.push_back(it);
}

const std::vector<LinkTable::OutboundIt>& LinkTable::take_due_dials(Instant now) {
  dial_due_.clear();
  std::erase_if(dial_waiting_, [&](OutboundIt it) {
    OutboundLink& out = it->second;
    WEFT_ASSERT(out.dial_queued && (out.state() == OutboundState::idle || out.retired()));
    if (out.state() == OutboundState::idle && out.redial.next_attempt() > now) return false;
    out.dial_queued = false;
    if (out.state() == OutboundState::idle) dial_due_.push_back(it);
    return true;
  });
  // Dialled in address order, as a walk of the records would.
  std::sort(dial_due_.begin(), dial_due_.end(),
            [](const OutboundIt& a, const OutboundIt& b) { return a->first < b->first; });
  return dial_due_;
}

Instant LinkTable::earliest_dial() const {
  Instant earliest = Instant::never();
  for (const OutboundIt& it : dial_waiting_) {
    if (it->second.state() == OutboundState::idle) earliest = std::min(earliest, it->second.redial.next_attempt());
  }
  return earliest;
}

// --- Sweep

void LinkTable::sweep() {
  if (!needs_sweep_) return;
  needs_sweep_ = false;
  transmit_in_.drop_if([](const InboundIt& it) { return it->second.closed(); });
  transmit_out_.drop_if([](const OutboundIt& it) { return it->second.retired(); });
  std::erase_if(dial_waiting_, [](const OutboundIt& it) { return it->second.retired(); });
  for (const LinkId link : closed_in_) {
    const InboundIt* found = inbound_index_.find(link);
    if (found == nullptr) continue;  // gone with its link
    const InboundIt it = *found;
    WEFT_ASSERT(it->second.closed());  // a closed record never reopens
    inbound_index_.erase(link);
    inbound_.erase(it);
  }
  closed_in_.clear();
  for (const NodeAddress& peer : retired_out_) {
    const OutboundIt* found = outbound_index_.find(peer);
    if (found == nullptr || !(*found)->second.retired()) continue;  // revived meanwhile
    const OutboundIt it = *found;
    WEFT_ASSERT(!it->second.link.has_value());
    outbound_index_.erase(peer);  // while the record's key, which it compares, still exists
    outbound_.erase(it);
  }
  retired_out_.clear();
  WEFT_ASSERT(outbound_index_.size() == outbound_.size() && inbound_index_.size() == inbound_.size());
  WEFT_ASSERT(outbound_by_link_.size() <= outbound_.size());
}

}  // namespace weft
