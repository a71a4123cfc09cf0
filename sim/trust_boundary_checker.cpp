// W3: see trust_boundary_checker.hpp.
#include "sim/trust_boundary_checker.hpp"

#include <array>
#include <optional>
#include <span>

#include "auth/hmac_sha256.hpp"
#include "kernel/wire/control.hpp"
#include "kernel/wire/frame.hpp"
#include "kernel/wire/handshake.hpp"
#include "sim/scenario.hpp"
#include "sim/text.hpp"

namespace weft::sim {
namespace {

// The hello a node wrote back to a rogue's hello, if it wrote one.
std::optional<wire::Hello> reply_hello(std::span<const std::uint8_t> written, std::string& host_storage) {
  wire::FrameDecoder decoder(wire::kDefaultMaxFrameBytes);
  std::optional<wire::Hello> hello;
  (void)decoder.feed(written, [&](wire::Bytes payload) {
    wire::Decoded<wire::Hello> decoded = wire::decode_hello(payload);
    if (hello || !decoded.ok()) return;
    // The decoded views point into `written`; keep the host past it anyway.
    host_storage = std::string(decoded.value.address.host);
    decoded.value.address.host = host_storage;
    hello = decoded.value;
  });
  return hello;
}

}  // namespace

void TrustBoundary::rogue(Simulator& sim, const Fault& f, std::uint64_t seed, std::vector<std::string>& failures) {
  const std::size_t target = f.nodes[0];
  const Kernel* k = sim.kernel(target);
  if (k == nullptr) return;
  const NodeAddress stranger{"192.0.2.1", 7000};  // TEST-NET-1: never a node
  const std::optional<NodeAddress> victim =
      f.nodes.size() > 1 ? std::optional<NodeAddress>(sim.address(f.nodes[1])) : std::nullopt;
  const Member* known = victim ? k->members().find(*victim) : nullptr;
  const std::optional<Member> before = known ? std::optional<Member>(*known) : std::nullopt;
  const std::uint64_t known_incarnation = before ? before->incarnation().value : 1;
  const std::uint64_t far_ahead = known_incarnation + (std::uint64_t{1} << 41);

  std::vector<std::uint8_t> bytes;
  wire::Hello hello;
  hello.cluster_name = k->config().cluster_name;
  hello.address = wire::AddressView::of(victim ? *victim : stranger);
  hello.incarnation = 1;
  std::optional<CloseReason> expected;
  const char* what = "";
  Simulator::RogueAnswer answer;
  const bool authenticated = k->config().auth.enabled();
  Prng draw = Prng::derive(seed, 100 + ++rogues_);
  // On authenticated links the handshake rogues claim to be the victim at
  // its known incarnation, which is neither stale nor implausible: only the
  // proof can refuse them. Unauthenticated, nothing could refuse that claim
  // (the hello is the identity), and a link taken as the victim's would be
  // evidence of its life, so there they are strangers.
  const auto impersonate = [&] {
    const bool as_victim = before.has_value() && authenticated;
    hello.address = wire::AddressView::of(as_victim ? *victim : stranger);
    hello.incarnation = as_victim ? known_incarnation : 1;
    for (auto& b : hello.nonce) b = static_cast<std::uint8_t>(draw.next_u64());
  };
  // The rogue's proof over the real transcript, keyed by `key`, with the
  // node's nonce replaced by `nonce` when given (a proof from another link).
  std::string reply_host;
  const auto prove = [&](AuthKey key, std::optional<std::array<std::uint8_t, wire::kNonceBytes>> nonce) {
    return [&, key, nonce](std::span<const std::uint8_t> written) {
      std::vector<std::uint8_t> out;
      std::optional<wire::Hello> reply = reply_hello(written, reply_host);
      if (!reply) return out;
      HelloSide acceptor = HelloSide::of(*reply);
      if (nonce) acceptor.nonce = *nonce;
      const std::vector<std::uint8_t> transcript = handshake_transcript(
          HandshakeRole::dialer, k->config().cluster_name, HelloSide::of(hello), acceptor);
      const Proof proof = auth::hmac_sha256(key, transcript);
      (void)wire::append_frame(out, wire::HelloProof{proof});
      return out;
    };
  };
  const auto random_bytes = [&](auto& into) {
    for (auto& b : into) b = static_cast<std::uint8_t>(draw.next_u64());
  };
  switch (f.rogue) {
    case Fault::Rogue::garbage: {
      bytes.resize(64);
      random_bytes(bytes);
      bytes[0] = 0xff;  // a length no frame may have: a wire error, never a hello by chance
      expected = CloseReason::wire_error;
      what = "random bytes";
      break;
    }
    case Fault::Rogue::wrong_cluster:
      hello.cluster_name = k->config().cluster_name == "rogue-cluster" ? "rogue-cluster-2" : "rogue-cluster";
      hello.address = wire::AddressView::of(stranger);
      expected = CloseReason::wrong_cluster;
      what = "a hello naming another cluster";
      break;
    case Fault::Rogue::stale_incarnation:
      if (!before) return;  // the target does not know the victim yet: nothing to be stale against
      hello.incarnation = known_incarnation - 1;
      expected = CloseReason::stale_incarnation;
      what = "a hello with an older incarnation";
      break;
    case Fault::Rogue::implausible_incarnation:
      if (!before) return;
      hello.incarnation = far_ahead;
      expected = CloseReason::implausible_incarnation;
      what = "a hello 2^41 incarnations ahead";
      break;
    case Fault::Rogue::forged_row:
      if (!before) return;
      hello.address = wire::AddressView::of(stranger);
      // An insider: on authenticated links it holds the key and proves
      // itself, so its gossip meets the ingest guard, not the handshake.
      if (authenticated) answer = prove(k->config().auth.keys.front(), std::nullopt);
      what = "gossip claiming the victim down 2^41 lives on";
      break;
    case Fault::Rogue::wrong_key: {
      impersonate();
      AuthKey wrong{};
      random_bytes(wrong);
      answer = prove(wrong, std::nullopt);
      // Unauthenticated, the node expects no proof at all.
      expected = authenticated ? CloseReason::bad_proof : CloseReason::unexpected_frame;
      what = "a handshake proven with another key";
      break;
    }
    case Fault::Rogue::replayed_proof: {
      impersonate();
      AuthKey key{};
      if (authenticated) {
        key = k->config().auth.keys.front();
      } else {
        random_bytes(key);
      }
      std::array<std::uint8_t, wire::kNonceBytes> old_nonce{};
      random_bytes(old_nonce);
      answer = prove(key, old_nonce);
      expected = authenticated ? CloseReason::bad_proof : CloseReason::unexpected_frame;
      what = "a proof recorded from another link";
      break;
    }
    case Fault::Rogue::unproven:
      impersonate();
      answer = [](std::span<const std::uint8_t>) {
        std::vector<std::uint8_t> out;
        (void)wire::append_frame(out, wire::GossipDigest{1});
        return out;
      };
      if (authenticated) expected = CloseReason::unauthenticated;
      what = "a hello and then gossip without a proof";
      break;
  }
  if (f.rogue != Fault::Rogue::garbage) (void)wire::append_frame(bytes, hello);
  if (f.rogue == Fault::Rogue::forged_row) {
    wire::GossipState forged;
    forged.members.push_back(Member{MemberId{*victim, Incarnation{far_ahead}}, MemberStatus::down});
    if (answer) {
      answer = [&, proven = std::move(answer), forged](std::span<const std::uint8_t> written) {
        std::vector<std::uint8_t> out = proven(written);
        (void)wire::append_frame(out, forged);
        return out;
      };
    } else {
      (void)wire::append_frame(bytes, forged);
    }
  }
  const Simulator::RogueOutcome outcome = sim.rogue(target, bytes, answer);
  if (!outcome.handled) return;
  count(judged_, Check::w3_rogues);
  const std::string who = node_name(target) + " (sent " + what + ")";
  if (expected) {
    if (outcome.rogue_link_closed.size() != 1 || outcome.rogue_link_closed[0] != *expected) {
      failures.push_back("W3: " + who + " did not close the rogue's link with " + std::string(to_string(*expected)) +
                         (outcome.rogue_link_closed.empty()
                              ? std::string(" (kept it open)")
                              : " (closed it " + std::string(to_string(outcome.rogue_link_closed[0])) + ")"));
    }
  } else if (!outcome.rogue_link_closed.empty()) {
    failures.push_back("W3: " + who + " closed the rogue's link (" +
                       std::string(to_string(outcome.rogue_link_closed[0])) + ") instead of refusing the record");
  }
  for (CloseReason reason : outcome.other_links_closed) {
    switch (reason) {
      case CloseReason::peer_gone:
      case CloseReason::rejoining:
      case CloseReason::shutting_down:
      case CloseReason::handshake_timeout:
        continue;  // the node's own membership moved in the same input (a timer fell due)
      case CloseReason::bad_proof:
      case CloseReason::unauthenticated:
      case CloseReason::wrong_peer:
      case CloseReason::wire_error:
      case CloseReason::handshake_required:
      case CloseReason::wrong_cluster:
      case CloseReason::wrong_version:
      case CloseReason::self_connection:
      case CloseReason::stale_incarnation:
      case CloseReason::implausible_incarnation:
      case CloseReason::unexpected_frame:
      case CloseReason::control_overflow:
        failures.push_back("W3: " + who + " also closed an honest link (" + std::string(to_string(reason)) + ")");
        break;
    }
  }
  if (before) {
    const Member* after = sim.kernel(target) ? sim.kernel(target)->members().find(*victim) : nullptr;
    if (after == nullptr || after->incarnation() != before->incarnation() ||
        (after->status == MemberStatus::down && before->status != MemberStatus::down)) {
      failures.push_back("W3: " + who + " let the rogue move " + victim->to_string() + " from " +
                         before->id.to_string() + " " + std::string(to_string(before->status)) + " to " +
                         (after ? after->id.to_string() + " " + std::string(to_string(after->status)) : "nothing"));
    }
  }
}

void TrustBoundary::corrupt(Simulator& sim, const Fault& f) {
  sim.damage_stream(f.nodes[0], f.nodes[1], Simulator::Damage::corrupt);
  pending_.push_back(Pending{f.nodes[1], sim.damaged_link_closes(f.nodes[1], CloseReason::wire_error),
                             sim.now() + Duration::seconds(2)});
}

void TrustBoundary::check(const Simulator& sim, std::vector<std::string>& failures) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (sim.now() < it->due) {
      ++it;
      continue;
    }
    // Judged only when the damaged write reached a reader that ran: a
    // crashed or paused reader, or a stream nobody wrote to, proves nothing.
    const std::uint64_t closes = sim.damaged_link_closes(it->reader, CloseReason::wire_error);
    if (closes > it->closes_before) {
      count(judged_, Check::w3_corrupt);
    } else if (sim.corrupted_unclosed(it->reader)) {
      failures.push_back("W3: " + node_name(it->reader) +
                         " read a stream whose frame claimed 4 GiB and did not close it with wire_error");
    }
    it = pending_.erase(it);
  }
}

}  // namespace weft::sim
