// The life of a link, one state machine per direction (the shape of
// quinn-proto's connection State). A node sends only on links it dials
// (outbound) and reads what peers send on links they dial (inbound); see
// kernel/kernel.hpp, "Links". Each record in the link table
// (kernel/links/link_table.hpp) holds one of these states and changes it
// only through move_to(), which asserts the move is in the table below.
//
// Outbound: this node's sending side towards one peer address.
//
//           ConnectCommand          handle_link_up           the acceptor's hello
//     idle --------------> dialing --------------> handshaking -----------------> established
//     ^  ^                    |                         |                              |
//     |  '--------------------+-------------------------+------------------------------'
//     |         handle_link_down (refused, failed or lost): redial after the backoff
//     |
//     |  outbound(): something is queued for the peer before the sweep
//     |
//   retired <--- close_outbound(), from any other state
//     |
//     '--> erased by the next sweep (LinkTable::sweep)
//
//   idle         no link. Waiting for its dial at redial.next_attempt()
//                (the backoff, kernel/links/redial_backoff.hpp, once a link
//                was lost); always in the dial-waiting list.
//   dialing      a ConnectCommand is out and the link id is indexed;
//                nothing is lent and no bytes arrive before handle_link_up.
//   handshaking  connected; our hello goes first; the acceptor's hello
//                reply is not read yet, so the peer is unknown. Without a
//                secret the dialer sends behind its hello at once; with one
//                it lends nothing but the hello until the reply proves the
//                acceptor.
//   established  the peer is known (and, authenticated, proven; our proof
//                is lent ahead of everything). Any further frame from the
//                acceptor closes the link: its hello reply is all it sends.
//   retired      closed: no link, nothing queued, no peer.
//
// Inbound: a link a peer dialed; this node reads it and answers its hello.
//
//                           hello, with a secret
//          awaiting_hello ----------------------> awaiting_proof
//            |       |                                |     |
//            |       | hello, without a secret  proof |     |
//            |       '-----------> established <------'     |
//            |                         |                    |
//            |                         v                    |
//            '-----------------------> closed <-------------'
//                   close_inbound(), from any other state
//                                        |
//                                        '--> erased by the next sweep
//
//   awaiting_hello  accepted; nothing read yet. Closed at its hello_due.
//   awaiting_proof  authenticated links only: the hello named a member and
//                   our reply (with our proof) is queued; the dialer's proof
//                   must come by the same hello_due.
//   established     the peer is known (proven, if authenticated): its frames
//                   reach membership, detection and actors.
//   closed          a CloseCommand is out; what still arrives is ignored.
//
// A link that goes down (handle_link_down) leaves the inbound table at once,
// from any state: there is nothing left to close.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace weft {

enum class OutboundState : std::uint8_t { idle, dialing, handshaking, established, retired };
inline constexpr std::size_t kOutboundStateCount = 5;
static_assert(static_cast<std::size_t>(OutboundState::retired) + 1 == kOutboundStateCount);

enum class InboundState : std::uint8_t { awaiting_hello, awaiting_proof, established, closed };
inline constexpr std::size_t kInboundStateCount = 4;
static_assert(static_cast<std::size_t>(InboundState::closed) + 1 == kInboundStateCount);

namespace link_moves {

// kOutbound[from][to]: true where the diagram above has an arrow.
inline constexpr std::array<std::array<bool, kOutboundStateCount>, kOutboundStateCount> kOutbound = {{
    //  to: idle  dialing handshaking established retired
    {false, true, false, false, true},  // from idle
    {true, false, true, false, true},   // from dialing
    {true, false, false, true, true},   // from handshaking
    {true, false, false, false, true},  // from established
    {true, false, false, false, false}, // from retired
}};

// kInbound[from][to]: true where the diagram above has an arrow.
inline constexpr std::array<std::array<bool, kInboundStateCount>, kInboundStateCount> kInbound = {{
    //  to: awaiting_hello awaiting_proof established closed
    {false, true, true, true},    // from awaiting_hello
    {false, false, true, true},   // from awaiting_proof
    {false, false, false, true},  // from established
    {false, false, false, false}, // from closed
}};

}  // namespace link_moves

constexpr bool legal_move(OutboundState from, OutboundState to) {
  return link_moves::kOutbound[static_cast<std::size_t>(from)][static_cast<std::size_t>(to)];
}

constexpr bool legal_move(InboundState from, InboundState to) {
  return link_moves::kInbound[static_cast<std::size_t>(from)][static_cast<std::size_t>(to)];
}

// No state moves to itself; every state but closed has a way out.
static_assert(!legal_move(OutboundState::idle, OutboundState::idle));
static_assert(!legal_move(OutboundState::retired, OutboundState::retired));
static_assert(!legal_move(InboundState::closed, InboundState::closed));

std::string_view to_string(OutboundState state);
std::string_view to_string(InboundState state);

}  // namespace weft
