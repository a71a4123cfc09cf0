// Goal: the link table moves its records only along the state diagrams
// (every legal move through the table's own entry points lands in its
// state; every illegal one stops the process), and keeps its bookkeeping
// with them: the link-id index follows a record's link, the dial list and
// the handshake deadlines hold exactly the records waiting on them, the
// transmit queues hand records out in key order, and a sweep erases what
// was closed and nothing that was revived.
#include "kernel/links/link_table.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace weft {
namespace {

using O = OutboundState;
using I = InboundState;
using OutboundIt = LinkTable::OutboundIt;
using InboundIt = LinkTable::InboundIt;

constexpr std::uint32_t kMaxFrame = 1U << 16;
const RedialBackoff::Options kBackoff{Duration::milliseconds(100), Duration::seconds(5)};

Instant at_ms(std::int64_t ms) { return Instant::epoch() + Duration::milliseconds(ms); }
NodeAddress address(std::uint16_t port) { return NodeAddress{"10.0.0.2", port}; }
MemberId member(std::uint16_t port) { return MemberId{address(port), Incarnation{1}}; }

// A record for `peer` brought to `state` by legal moves.
OutboundIt outbound_in(LinkTable& table, O state, std::uint16_t port = 7000) {
  const OutboundIt it = table.add_outbound(address(port), kMaxFrame, RedialBackoff(kBackoff, at_ms(0)));
  if (state == O::idle) return it;
  if (state == O::retired) {
    table.retire(it);
    return it;
  }
  (void)table.take_due_dials(at_ms(0));
  (void)table.dial(it);
  if (state == O::dialing) return it;
  table.link_up(it);
  if (state == O::handshaking) return it;
  table.establish(it, member(port));
  return it;
}

// The table's entry point that moves an outbound record to `to`.
void move_outbound(LinkTable& table, OutboundIt it, O to) {
  switch (to) {
    case O::idle:
      if (it->second.retired()) {
        table.revive(it);
      } else {
        table.lose_link(it);
      }
      return;
    case O::dialing:
      (void)table.take_due_dials(at_ms(1000));  // a dial is taken off the waiting list first
      (void)table.dial(it);
      return;
    case O::handshaking: table.link_up(it); return;
    case O::established: table.establish(it, member(it->first.port)); return;
    case O::retired: table.retire(it); return;
  }
}

InboundIt inbound_in(LinkTable& table, I state) {
  const LinkId link = table.accept(kMaxFrame, at_ms(5000));
  const InboundIt it = table.find_inbound(link);
  if (state == I::awaiting_hello) return it;
  if (state == I::closed) {
    table.close(it);
    return it;
  }
  table.claim(it, member(7000));
  if (state == I::awaiting_proof) return it;
  table.establish(it, member(7000));
  return it;
}

void move_inbound(LinkTable& table, InboundIt it, I to) {
  switch (to) {
    case I::awaiting_hello: FAIL() << "no move leads to awaiting_hello: only accept() makes one"; return;
    case I::awaiting_proof: table.claim(it, member(7000)); return;
    case I::established: table.establish(it, member(7000)); return;
    case I::closed: table.close(it); return;
  }
}

// Calls fn(from, to) for every pair of states whose move is legal (or,
// with `legal` false, illegal).
template <class State, class Fn>
void for_each_move(std::size_t count, bool legal, Fn fn) {
  for (std::size_t from = 0; from < count; ++from) {
    for (std::size_t to = 0; to < count; ++to) {
      const auto f = static_cast<State>(from);
      const auto t = static_cast<State>(to);
      if (legal_move(f, t) == legal) fn(f, t);
    }
  }
}

template <class State>
std::string name(State from, State to) {
  return std::string(to_string(from)) + " -> " + std::string(to_string(to));
}

// Every legal move through the table's entry point for its target state
// lands there; every illegal one stops the process. in_state(table, s)
// makes a record in state s by legal moves; move(table, it, to) calls the
// entry point that leads to `to` (targets with none are skipped).
template <class State, class InState, class Move, class HasEntry>
void expect_moves_follow_the_diagram(std::size_t count, InState in_state, Move move, HasEntry has_entry) {
  for_each_move<State>(count, true, [&](State from, State to) {
    LinkTable table;
    const auto it = in_state(table, from);
    move(table, it, to);
    EXPECT_EQ(it->second.state(), to) << name(from, to);
  });
  for_each_move<State>(count, false, [&](State from, State to) {
    if (!has_entry(to)) return;
    EXPECT_DEATH(
        {
          LinkTable table;
          move(table, in_state(table, from), to);
        },
        "assertion failed")
        << name(from, to);
  });
}

TEST(LinkTable, OutboundMovesFollowTheDiagram) {
  expect_moves_follow_the_diagram<O>(
      kOutboundStateCount, [](LinkTable& table, O state) { return outbound_in(table, state); }, move_outbound,
      [](O) { return true; });
}

TEST(LinkTable, InboundMovesFollowTheDiagram) {
  expect_moves_follow_the_diagram<I>(kInboundStateCount, inbound_in, move_inbound,
                                     [](I to) { return to != I::awaiting_hello; });  // only accept() makes one
}

TEST(LinkTable, TheLinkIndexFollowsTheRecordsLink) {
  LinkTable table;
  const OutboundIt it = outbound_in(table, O::idle);
  EXPECT_EQ(table.find_outbound(address(7000)), it);
  (void)table.take_due_dials(at_ms(0));
  const LinkId first = table.dial(it);
  EXPECT_EQ(table.outbound_of(first), it);
  table.link_up(it);
  table.establish(it, member(7000));
  EXPECT_EQ(it->second.peer, member(7000));
  table.lose_link(it);  // back to idle: no link, no peer, waiting to dial
  EXPECT_FALSE(table.found(table.outbound_of(first)));
  EXPECT_FALSE(it->second.link.has_value());
  EXPECT_FALSE(it->second.peer.has_value());
  EXPECT_TRUE(it->second.dial_queued);
  (void)table.take_due_dials(at_ms(0));
  const LinkId second = table.dial(it);
  EXPECT_NE(second, first);
  EXPECT_EQ(table.outbound_of(second), it);
  table.retire(it);
  EXPECT_FALSE(table.found(table.outbound_of(second)));
}

TEST(LinkTable, DueDialsComeInAddressOrderAndOnlyWhenDue) {
  LinkTable table;
  const OutboundIt late = table.add_outbound(address(7003), kMaxFrame, RedialBackoff(kBackoff, at_ms(50)));
  const OutboundIt b = table.add_outbound(address(7002), kMaxFrame, RedialBackoff(kBackoff, at_ms(10)));
  const OutboundIt a = table.add_outbound(address(7001), kMaxFrame, RedialBackoff(kBackoff, at_ms(10)));
  const OutboundIt gone = table.add_outbound(address(7000), kMaxFrame, RedialBackoff(kBackoff, at_ms(0)));
  table.retire(gone);
  EXPECT_EQ(table.earliest_dial(), at_ms(10));  // a retired record is not waiting
  const std::vector<OutboundIt> due = table.take_due_dials(at_ms(10));
  EXPECT_EQ(due, (std::vector<OutboundIt>{a, b}));
  EXPECT_FALSE(a->second.dial_queued);
  EXPECT_FALSE(gone->second.dial_queued);  // left the list too
  EXPECT_TRUE(late->second.dial_queued);
  EXPECT_EQ(table.earliest_dial(), at_ms(50));
  EXPECT_TRUE(table.take_due_dials(at_ms(49)).empty());
}

TEST(LinkTable, TransmitQueuesHandOutLeastKeyFirst) {
  LinkTable table;
  const OutboundIt high = outbound_in(table, O::handshaking, 7002);
  const OutboundIt low = outbound_in(table, O::handshaking, 7001);  // link_up queued both
  const InboundIt in_a = inbound_in(table, I::awaiting_hello);
  const InboundIt in_b = inbound_in(table, I::awaiting_hello);
  table.queue_transmit(in_b);
  table.queue_transmit(in_a);
  table.queue_transmit(in_a);  // queued already: no second entry
  OutboundIt out;
  ASSERT_TRUE(table.next_transmit(out));
  EXPECT_EQ(out, low);
  EXPECT_FALSE(low->second.transmit_queued);
  ASSERT_TRUE(table.next_transmit(out));
  EXPECT_EQ(out, high);
  EXPECT_FALSE(table.next_transmit(out));
  InboundIt in;
  ASSERT_TRUE(table.next_transmit(in));
  EXPECT_EQ(in, in_a);
  ASSERT_TRUE(table.next_transmit(in));
  EXPECT_EQ(in, in_b);
  EXPECT_FALSE(table.next_transmit(in));
}

TEST(LinkTable, HandshakeDeadlinesHoldOnlyLinksNotYetEstablished) {
  LinkTable table;
  const LinkId first = table.accept(kMaxFrame, at_ms(100));
  const LinkId second = table.accept(kMaxFrame, at_ms(200));
  const LinkId third = table.accept(kMaxFrame, at_ms(300));
  EXPECT_EQ(table.next_handshake_deadline(), at_ms(100));
  table.claim(table.find_inbound(first), member(7000));  // awaiting its proof: still due
  EXPECT_EQ(table.next_handshake_deadline(), at_ms(100));
  table.establish(table.find_inbound(first), member(7000));
  EXPECT_EQ(table.next_handshake_deadline(), at_ms(200));
  table.erase_inbound(table.find_inbound(second));  // went down
  EXPECT_EQ(table.next_handshake_deadline(), at_ms(300));
  EXPECT_FALSE(table.pop_overdue_handshake(at_ms(299)).has_value());
  EXPECT_EQ(table.pop_overdue_handshake(at_ms(300)), third);
  EXPECT_EQ(table.next_handshake_deadline(), Instant::never());
}

TEST(LinkTable, SweepErasesTheClosedAndKeepsTheRevived) {
  LinkTable table;
  const OutboundIt kept = outbound_in(table, O::established, 7001);
  const OutboundIt revived = outbound_in(table, O::established, 7002);
  (void)outbound_in(table, O::dialing, 7003);
  const InboundIt open = inbound_in(table, I::established);
  const InboundIt closed = inbound_in(table, I::awaiting_hello);
  const LinkId closed_link = closed->first;
  table.queue_transmit(closed);
  table.retire(revived);
  table.retire(table.find_outbound(address(7003)));
  table.revive(revived);
  table.close(closed);
  table.sweep();
  EXPECT_EQ(table.outbound().size(), 2U);
  EXPECT_EQ(table.find_outbound(address(7001)), kept);
  EXPECT_EQ(table.find_outbound(address(7002)), revived);
  EXPECT_EQ(revived->second.state(), O::idle);
  EXPECT_EQ(static_cast<const LinkTable&>(table).find_outbound(address(7003)), nullptr);
  EXPECT_EQ(table.inbound().size(), 1U);
  EXPECT_EQ(table.find_inbound(open->first), open);
  EXPECT_FALSE(table.found(table.find_inbound(closed_link)));
  InboundIt in;
  EXPECT_FALSE(table.next_transmit(in));  // the closed link left the queue before its record went
}

TEST(LinkTable, RetiringDropsWhatWasQueued) {
  LinkTable table;
  const OutboundIt it = outbound_in(table, O::established);
  it->second.control = {1, 2, 3};
  it->second.user = {4, 5};
  it->second.user_frames = 1;
  table.retire(it);
  EXPECT_TRUE(it->second.control.empty());
  EXPECT_EQ(it->second.user_queued(), 0U);
  EXPECT_EQ(it->second.user_frames, 0U);
  EXPECT_FALSE(it->second.peer.has_value());
}

}  // namespace
}  // namespace weft
