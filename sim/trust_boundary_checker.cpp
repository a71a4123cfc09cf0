// W3: see trust_boundary_checker.hpp.
#include "sim/trust_boundary_checker.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <span>

#include "auth/hmac_sha256.hpp"
#include "kernel/wire/control.hpp"
#include "kernel/wire/frame.hpp"
#include "kernel/wire/handshake.hpp"
#include "kernel/wire/msgpack.hpp"
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

using Nonce = std::array<std::uint8_t, wire::kNonceBytes>;

// What a rogue peer sends a target and how the target must answer, per kind
// of rogue. It lives while the simulator plays it: the answers read it.
class RogueScript {
 public:
  RogueScript(const Simulator& sim, const Kernel& target, const Fault& f, Prng draw);
  RogueScript(const RogueScript&) = delete;
  RogueScript& operator=(const RogueScript&) = delete;
  // Writes the script of `kind`; false when it needs a victim the target
  // does not know yet (nothing to be stale against, nothing to forge).
  bool write(Fault::Rogue kind);

  std::optional<NodeAddress> victim;  // the node a rogue claims to be or forges
  std::optional<Member> before;       // the target's record of the victim, before
  std::vector<std::uint8_t> bytes;    // sent when the rogue dials
  Simulator::RogueAnswer answer;      // sent after the target's hello, if any
  std::optional<CloseReason> expected;  // how the target must close the link; none: kept
  std::optional<Member> claim;          // W4: a claim the target takes and the victim must refute
  std::optional<ReachabilityRow> row;   // W4: a row forged under `observer`, who must refute it
  std::optional<NodeAddress> observer;
  std::optional<NodeAddress> named;     // an address the rogue's hello named that must not join
  std::optional<Member> down;           // W4: a down forged of the victim's live life
  std::optional<Member> far;            // W4: a life claimed of the victim far above the clock
  std::vector<Member> fakes;            // W5: members invented, in address order
  const char* what = "";

 private:
  void garbage();
  void wrong_cluster();
  void stale_incarnation();
  void implausible_incarnation();
  void forged_row();
  void wrong_key();
  void replayed_proof();
  void reflected_proof();
  void unproven();
  void forged_incarnation();
  void forged_leaving();
  void keyless_join();
  void squat();
  void fake_members();
  void forged_unreachable();
  void forged_down();
  void far_claim();
  // A stranger's hello, then `records` (in address order) as a whole state
  // with no seen bits and again as a delta (both paths in meet the same
  // guards); on authenticated links an insider, who proves itself first.
  void gossip_as_insider(std::vector<Member> records, std::vector<ReachabilityRow> rows = {});
  // On authenticated links the handshake rogues claim to be the victim at
  // its known incarnation, which is neither stale nor implausible: only the
  // proof can refuse them. Unauthenticated, nothing could refuse that claim
  // (the hello is the identity), and a link taken as the victim's would be
  // evidence of its life, so there they are strangers.
  void impersonate();
  // The rogue's proof over the real transcript, keyed by `key`, with the
  // node's nonce replaced by `nonce` when given (a proof from another link).
  Simulator::RogueAnswer prove(AuthKey key, std::optional<Nonce> nonce);
  // Plays back the victim's hello and proof from the last link it dialed
  // to the target (Simulator::tapped_opening) if that hello names the life
  // the target knows; false if there is no such recording.
  bool replay_recording();
  template <class Bytes>
  void random_bytes(Bytes& into) {
    for (auto& b : into) b = static_cast<std::uint8_t>(draw_.next_u64());
  }

  const Kernel& target_;
  const NodeAddress stranger_{"192.0.2.1", 7000};  // TEST-NET-1: never a node
  std::uint64_t known_incarnation_;
  std::uint64_t far_ahead_;  // 2^41 lives past the known one
  bool authenticated_;
  Prng draw_;
  std::vector<std::uint8_t> recording_;  // the tap's copy: hello_ may view into it
  wire::Hello hello_;
  std::string reply_host_;  // holds the host of the target's hello for prove()
  MemberId insider_;        // whom an unauthenticated insider's hello names (hello_ views it)
  std::vector<NodeAddress> nodes_;  // every simulated node's address, by number - 1
};

RogueScript::RogueScript(const Simulator& sim, const Kernel& target, const Fault& f, Prng draw)
    : victim(f.nodes.size() > 1 ? std::optional<NodeAddress>(sim.address(f.nodes[1])) : std::nullopt),
      target_(target),
      authenticated_(target.config().auth.enabled()),
      draw_(draw) {
  for (std::size_t n = 1; n <= sim.size(); ++n) nodes_.push_back(sim.address(n));
  if (const std::vector<std::uint8_t>* tapped = victim ? sim.tapped_opening(f.nodes[1], f.nodes[0]) : nullptr) {
    recording_ = *tapped;
  }
  const Member* known = victim ? target.members().find(*victim) : nullptr;
  if (known != nullptr) before = *known;
  known_incarnation_ = before ? before->incarnation().value : 1;
  far_ahead_ = known_incarnation_ + (std::uint64_t{1} << 41);
  hello_.cluster_name = target.config().cluster_name;
  hello_.address = wire::AddressView::of(victim ? *victim : stranger_);
  hello_.incarnation = 1;
}

bool RogueScript::write(Fault::Rogue kind) {
  switch (kind) {
    case Fault::Rogue::garbage: garbage(); break;
    case Fault::Rogue::wrong_cluster: wrong_cluster(); break;
    case Fault::Rogue::stale_incarnation:
      // Stale against a life the target heard first-hand: older only than
      // hearsay, a hello is taken (it may be the member that must refute it).
      if (!before || !target_.proven(before->id)) return false;
      stale_incarnation();
      break;
    case Fault::Rogue::implausible_incarnation:
      if (!before) return false;
      implausible_incarnation();
      break;
    case Fault::Rogue::forged_row:
      if (!before) return false;
      forged_row();
      return true;  // its frames are written there
    case Fault::Rogue::wrong_key: wrong_key(); break;
    case Fault::Rogue::replayed_proof: replayed_proof(); break;
    case Fault::Rogue::reflected_proof: reflected_proof(); break;
    case Fault::Rogue::unproven: unproven(); break;
    case Fault::Rogue::keyless_join: keyless_join(); break;
    case Fault::Rogue::squat:
      if (before) return false;  // a member already: nothing to squat
      squat();
      return true;  // its frames are written there
    case Fault::Rogue::forged_incarnation:
    case Fault::Rogue::forged_leaving:
      // A claim about a live life: one already down or leaving has
      // nothing left to refute.
      if (!before || (before->status != MemberStatus::up && before->status != MemberStatus::joining)) return false;
      if (kind == Fault::Rogue::forged_incarnation) {
        forged_incarnation();
      } else {
        forged_leaving();
      }
      return true;  // its frames are written there
    case Fault::Rogue::fake_members: fake_members(); return true;
    case Fault::Rogue::forged_unreachable:
      // A live victim, and a third member to forge the row under.
      if (!before || !is_live_status(before->status)) return false;
      forged_unreachable();
      return row.has_value();
    case Fault::Rogue::forged_down:
      // A live victim the target has no row against: a down with a row
      // behind it is the leader's to take (down_claims.hpp).
      if (!before || (before->status != MemberStatus::up && before->status != MemberStatus::joining)) return false;
      if (target_.reachability().is_unreachable(before->id)) return false;
      forged_down();
      return true;  // its frames are written there
    case Fault::Rogue::far_claim:
      if (!before || (before->status != MemberStatus::up && before->status != MemberStatus::joining)) return false;
      far_claim();
      return true;  // its frames are written there
  }
  if (kind != Fault::Rogue::garbage) (void)wire::append_frame(bytes, hello_);
  return true;
}

void RogueScript::garbage() {
  bytes.resize(64);
  random_bytes(bytes);
  bytes[0] = 0xff;  // a length no frame may have: a wire error, never a hello by chance
  expected = CloseReason::wire_error;
  what = "random bytes";
}

void RogueScript::wrong_cluster() {
  hello_.cluster_name = target_.config().cluster_name == "rogue-cluster" ? "rogue-cluster-2" : "rogue-cluster";
  hello_.address = wire::AddressView::of(stranger_);
  expected = CloseReason::wrong_cluster;
  what = "a hello naming another cluster";
}

void RogueScript::stale_incarnation() {
  hello_.incarnation = known_incarnation_ - 1;
  expected = CloseReason::stale_incarnation;
  what = "a hello with an older incarnation";
}

void RogueScript::implausible_incarnation() {
  hello_.incarnation = far_ahead_;
  expected = CloseReason::implausible_incarnation;
  what = "a hello 2^41 incarnations ahead";
}

// A stranger's hello, then gossip claiming the victim down 2^41 lives on.
void RogueScript::forged_row() {
  what = "gossip claiming the victim down 2^41 lives on";
  gossip_as_insider({Member{MemberId{*victim, Incarnation{far_ahead_}}, MemberStatus::down}});
}

void RogueScript::forged_incarnation() {
  // Under a clock ceiling (life_ceiling.hpp), a claim the target takes: at
  // most up to it.
  std::uint64_t range = std::uint64_t{1} << 20;
  if (const std::optional<std::uint64_t> ceiling = target_.life_ceiling()) {
    range = std::min(range, *ceiling > known_incarnation_ ? *ceiling - known_incarnation_ : 1);
  }
  const std::uint64_t lives_on = 1 + draw_.below(range);
  claim = Member{MemberId{*victim, Incarnation{known_incarnation_ + lives_on}}, before->status};
  what = "gossip claiming the victim live in a newer life";
  gossip_as_insider({*claim});
}

void RogueScript::forged_leaving() {
  claim = Member{before->id, MemberStatus::leaving};
  what = "gossip claiming the victim leaving";
  gossip_as_insider({*claim});
}

// Addresses no node has: half in 1.0.0.0/16, which sorts below the nodes'
// 10.0.0.N (the lowest live address is the leader), half in TEST-NET-2.
void RogueScript::fake_members() {
  // Up to three times the default max_new_members_per_peer: most of a large
  // flood must be deferred (new_member_budget.hpp).
  const std::size_t count = 50 + static_cast<std::size_t>(draw_.below(2951));
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t n = i / 2;
    const std::string host = i % 2 == 0 ? cat("1.0.", std::to_string(n / 250), ".", std::to_string(n % 250 + 1))
                                        : cat("198.51.", std::to_string(100 + n / 250), ".", std::to_string(n % 250 + 1));
    const MemberStatus status = draw_.below(2) == 0 ? MemberStatus::joining : MemberStatus::up;
    fakes.push_back(Member{MemberId{NodeAddress{host, 7000}, Incarnation{1 + draw_.below(std::uint64_t{1} << 20)}}, status});
  }
  std::sort(fakes.begin(), fakes.end(), [](const Member& a, const Member& b) { return a.address() < b.address(); });
  what = "gossip inventing members";
  gossip_as_insider(fakes);
}

// A row under the first live node the target holds that is neither it nor
// the victim (a node, not an invented member: it must be able to refute),
// claiming the victim unreachable a few versions past the row the target
// holds of that observer.
void RogueScript::forged_unreachable() {
  for (const Member& m : target_.members().members()) {
    if (m.address() == target_.self().address || m.address() == *victim || !is_live_status(m.status)) continue;
    if (std::find(nodes_.begin(), nodes_.end(), m.address()) == nodes_.end()) continue;
    const ReachabilityRow* held = target_.reachability().row(m.id);
    row = ReachabilityRow{m.id, (held != nullptr ? held->version : 0) + 1 + draw_.below(1024), {before->id}};
    observer = m.address();
    break;
  }
  if (!row) return;  // no third member: nobody to forge the row under
  what = "gossip holding a row that claims the victim unreachable";
  gossip_as_insider({}, {*row});
}

void RogueScript::forged_down() {
  down = Member{before->id, MemberStatus::down};
  what = "gossip claiming the victim down";
  gossip_as_insider({*down});
}

// 2^30 lives above the target's clock ceiling (life_ceiling.hpp), within
// max_incarnation_jump of the known life, so only the clock refuses it.
void RogueScript::far_claim() {
  const std::optional<std::uint64_t> ceiling = target_.life_ceiling();
  far = Member{MemberId{*victim, Incarnation{ceiling.value_or(known_incarnation_) + (std::uint64_t{1} << 30)}},
               before->status};
  what = "gossip claiming the victim live 2^30 lives above the clock";
  gossip_as_insider({*far});
}

void RogueScript::gossip_as_insider(std::vector<Member> records, std::vector<ReachabilityRow> rows) {
  // Without a key a stranger's frames wait for a dial to its address
  // (membership/dial_backs.hpp), so the insider names a member there: the
  // victim, in the life the target holds (the hello is the identity).
  if (!authenticated_) {
    // The victim when the target holds it, else another member it holds.
    const Member* insider = before ? &*before : nullptr;
    for (const Member& m : target_.members().members()) {
      if (insider == nullptr && m.address() != target_.self().address) insider = &m;
    }
    insider_ = insider != nullptr ? insider->id : MemberId{stranger_, Incarnation{1}};
    hello_.address = wire::AddressView::of(insider_.address);
    hello_.incarnation = insider_.incarnation.value;
  } else {
    hello_.address = wire::AddressView::of(stranger_);
  }
  (void)wire::append_frame(bytes, hello_);
  wire::GossipState forged;
  forged.members = std::move(records);
  forged.rows = std::move(rows);
  forged.seen.assign(seen_bytes_for(forged.members.size()), 0);
  const wire::GossipDelta forged_delta{1, forged.members, forged.rows, {}};
  if (!authenticated_) {
    (void)wire::append_frame(bytes, forged);
    (void)wire::append_frame(bytes, forged_delta);
    return;
  }
  // An insider: on authenticated links it holds the key and proves
  // itself, so its gossip meets the ingest guard, not the handshake.
  answer = [proven = prove(target_.config().auth.keys.front(), std::nullopt), forged,
            forged_delta](std::span<const std::uint8_t> written) {
    std::vector<std::uint8_t> out = proven(written);
    (void)wire::append_frame(out, forged);
    (void)wire::append_frame(out, forged_delta);
    return out;
  };
}

void RogueScript::wrong_key() {
  impersonate();
  AuthKey wrong{};
  random_bytes(wrong);
  answer = prove(wrong, std::nullopt);
  // Unauthenticated, the node expects no proof at all.
  expected = authenticated_ ? CloseReason::bad_proof : CloseReason::unexpected_frame;
  what = "a handshake proven with another key";
}

// A real replay where the tap recorded the victim dialing the target in the
// lives both hold now: the victim's own hello (its nonce, its incarnation)
// and proof, byte for byte. The proof names the nonce the target sent on
// that link, so it holds only if the target sends that nonce again. With no
// such recording the rogue signs the transcript over a nonce of its own,
// standing for a recording made before the run.
void RogueScript::replayed_proof() {
  expected = authenticated_ ? CloseReason::bad_proof : CloseReason::unexpected_frame;
  what = "a proof recorded from another link";
  impersonate();
  if (authenticated_ && before && replay_recording()) return;
  AuthKey key{};
  if (authenticated_) {
    key = target_.config().auth.keys.front();
  } else {
    random_bytes(key);
  }
  Nonce old_nonce{};
  random_bytes(old_nonce);
  answer = prove(key, old_nonce);
}

bool RogueScript::replay_recording() {
  // The tap holds two whole frames: the hello, then (authenticated) the proof.
  if (recording_.size() < wire::kFrameHeaderBytes) return false;
  const std::size_t hello_end = wire::kFrameHeaderBytes + wire::load_be32(recording_.data());
  const std::span<const std::uint8_t> tapped(recording_);
  if (hello_end + wire::kFrameHeaderBytes > tapped.size()) return false;
  const wire::Decoded<wire::Hello> hello =
      wire::decode_hello(tapped.subspan(wire::kFrameHeaderBytes, hello_end - wire::kFrameHeaderBytes));
  const wire::Decoded<wire::HelloProof> proof =
      wire::decode_hello_proof(tapped.subspan(hello_end + wire::kFrameHeaderBytes));
  if (!hello.ok() || !proof.ok() || hello.value.address.to_owned() != *victim ||
      hello.value.incarnation != known_incarnation_) {
    return false;  // a life the target no longer holds: the hello alone would be refused
  }
  hello_ = hello.value;  // its views point into recording_
  answer = [proof_frame = std::vector<std::uint8_t>(tapped.begin() + static_cast<std::ptrdiff_t>(hello_end),
                                                    tapped.end()),
            this](std::span<const std::uint8_t> written) {
    return reply_hello(written, reply_host_) ? proof_frame : std::vector<std::uint8_t>{};
  };
  return true;
}

// The node's own proof, from its hello to the rogue, sent back as the
// rogue's: the same key and nonces, only the prover's role differs.
void RogueScript::reflected_proof() {
  impersonate();
  answer = [this](std::span<const std::uint8_t> written) {
    std::vector<std::uint8_t> out;
    const std::optional<wire::Hello> reply = reply_hello(written, reply_host_);
    if (!reply) return out;
    Proof reflected{};  // unauthenticated, the hello carries none: zeros
    std::copy_n(reply->proof.begin(), std::min(reply->proof.size(), reflected.size()), reflected.begin());
    (void)wire::append_frame(out, wire::HelloProof{reflected});
    return out;
  };
  expected = authenticated_ ? CloseReason::bad_proof : CloseReason::unexpected_frame;
  what = "the node's own proof back";
}

void RogueScript::unproven() {
  impersonate();
  answer = [](std::span<const std::uint8_t>) {
    std::vector<std::uint8_t> out;
    (void)wire::append_frame(out, wire::GossipDigest{1});
    return out;
  };
  if (authenticated_) expected = CloseReason::unauthenticated;
  what = "a hello and then gossip without a proof";
}

// A hello naming an address where nothing listens, and a Join. Without a
// key the target dials that address back before it takes the joiner
// (membership/dial_backs.hpp), and the dial is never answered; with a key
// the Join comes before any proof.
void RogueScript::keyless_join() {
  hello_.address = wire::AddressView::of(stranger_);
  random_bytes(hello_.nonce);
  named = stranger_;
  answer = [](std::span<const std::uint8_t>) {
    std::vector<std::uint8_t> out;
    (void)wire::append_frame(out, wire::Join{});
    return out;
  };
  if (authenticated_) expected = CloseReason::unauthenticated;
  what = "a stranger's hello and a Join";
}

// An address the target holds nothing of, claimed live 2^62 lives on: the
// ingest guard judges it against the newest life the target knows.
void RogueScript::squat() {
  named = victim;
  what = "gossip squatting an address no member holds at 2^62";
  gossip_as_insider({Member{MemberId{*victim, Incarnation{std::uint64_t{1} << 62}}, MemberStatus::up}});
}

void RogueScript::impersonate() {
  const bool as_victim = before.has_value() && authenticated_;
  hello_.address = wire::AddressView::of(as_victim ? *victim : stranger_);
  hello_.incarnation = as_victim ? known_incarnation_ : 1;
  random_bytes(hello_.nonce);
}

Simulator::RogueAnswer RogueScript::prove(AuthKey key, std::optional<Nonce> nonce) {
  return [this, key, nonce](std::span<const std::uint8_t> written) {
    std::vector<std::uint8_t> out;
    std::optional<wire::Hello> reply = reply_hello(written, reply_host_);
    if (!reply) return out;
    HelloSide acceptor = HelloSide::of(*reply);
    if (nonce) acceptor.nonce = *nonce;
    const std::vector<std::uint8_t> transcript = handshake_transcript(
        HandshakeRole::dialer, target_.config().cluster_name, HelloSide::of(hello_), acceptor);
    const Proof proof = auth::hmac_sha256(key, transcript);
    (void)wire::append_frame(out, wire::HelloProof{proof});
    return out;
  };
}

// The rogue's link closed as the script expects: with its reason, or not at all.
void judge_rogue_link(const std::string& who, const RogueScript& script, const Simulator::RogueOutcome& outcome,
                      std::vector<std::string>& failures) {
  const std::vector<CloseReason>& closed = outcome.rogue_link_closed;
  if (script.expected) {
    if (closed.size() != 1 || closed[0] != *script.expected) {
      failures.push_back("W3: " + who + " did not close the rogue's link with " +
                         std::string(to_string(*script.expected)) +
                         (closed.empty() ? std::string(" (kept it open)")
                                         : " (closed it " + std::string(to_string(closed[0])) + ")"));
    }
  } else if (!closed.empty()) {
    failures.push_back("W3: " + who + " closed the rogue's link (" + std::string(to_string(closed[0])) +
                       ") instead of refusing the record");
  }
}

// No honest link closed for the rogue's sake.
void judge_honest_links(const std::string& who, const Simulator::RogueOutcome& outcome,
                        std::vector<std::string>& failures) {
  for (CloseReason reason : outcome.other_links_closed) {
    switch (reason) {
      case CloseReason::peer_gone:
      case CloseReason::rejoining:
      case CloseReason::shutting_down:
      case CloseReason::handshake_timeout:
      case CloseReason::idle:
        continue;  // the node's own membership or housekeeping moved in the same input (a timer fell due)
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
      case CloseReason::handshake_capacity:
      case CloseReason::wrong_name:
        failures.push_back("W3: " + who + " also closed an honest link (" + std::string(to_string(reason)) + ")");
        break;
    }
  }
}

// The victim's record in the target's view did not move.
void judge_victim(const Simulator& sim, std::size_t target, const std::string& who, const RogueScript& script,
                  std::vector<std::string>& failures) {
  // A claim the target may take, or a down it holds for the victim to
  // refute (who may then rejoin in a new life): W4 judges them.
  // A life far above the clock: W4 judges every table against the clock.
  if (!script.before || script.claim || script.down || script.far) return;
  const std::optional<Member>& before = script.before;
  const Member* after = sim.kernel(target) ? sim.kernel(target)->members().find(*script.victim) : nullptr;
  if (after == nullptr || after->incarnation() != before->incarnation() ||
      (after->status == MemberStatus::down && before->status != MemberStatus::down)) {
    failures.push_back("W3: " + who + " let the rogue move " + script.victim->to_string() + " from " +
                       before->id.to_string() + " " + std::string(to_string(before->status)) + " to " +
                       (after ? after->id.to_string() + " " + std::string(to_string(after->status)) : "nothing"));
  }
}

// The address a stranger's hello named is no member of the target's.
void judge_named(const Simulator& sim, std::size_t target, const std::string& who, const RogueScript& script,
                 std::vector<std::string>& failures) {
  if (!script.named) return;
  const Member* taken = sim.kernel(target) ? sim.kernel(target)->members().find(*script.named) : nullptr;
  if (taken != nullptr) {
    failures.push_back("W3: " + who + " took the address it named into its table (" + taken->id.to_string() + " " +
                       std::string(to_string(taken->status)) + ")");
  }
}

}  // namespace

void TrustBoundary::rogue(Simulator& sim, const Fault& f, std::uint64_t seed, std::vector<std::string>& failures) {
  const std::size_t target = f.nodes[0];
  const Kernel* k = sim.kernel(target);
  if (k == nullptr) return;
  RogueScript script(sim, *k, f, Prng::derive(seed, 100 + ++rogues_));
  if (!script.write(f.rogue)) return;
  const Simulator::RogueOutcome outcome = sim.rogue(target, script.bytes, script.answer);
  if (!outcome.handled) return;
  count(judged_, Check::w3_rogues);
  const std::string who = node_name(target) + " (sent " + script.what + ")";
  judge_rogue_link(who, script, outcome, failures);
  judge_honest_links(who, outcome, failures);
  judge_victim(sim, target, who, script, failures);
  judge_named(sim, target, who, script, failures);
  if (script.claim) {
    const Duration bound = compute_bounds(k->config(), sim.size()).refute;
    const Instant due = sim.now() + bound;
    // A newer claim about the same node restarts the wait for the older
    // ones: until it is refuted, the tables may rightly hold it.
    for (Claim& earlier : claims_) {
      if (earlier.victim == f.nodes[1]) earlier.due = due;
    }
    claims_.push_back(Claim{{who, due, bound, disturbed(sim.now())}, f.nodes[1], *script.claim});
  }
  if (script.row) {
    const Duration bound = compute_bounds(k->config(), sim.size()).refute;
    std::size_t observer = 0;
    for (std::size_t n = 1; n <= sim.size(); ++n) {
      if (sim.address(n) == *script.observer) observer = n;
    }
    WEFT_ASSERT(observer != 0);  // forged_unreachable() picks a node
    row_claims_.push_back(
        RowClaim{{who, sim.now() + bound, bound, disturbed(sim.now())}, observer, f.nodes[1], *script.row});
  }
  // A victim that is not running (crashed, lost, paused) cannot refute: a
  // real down of it may come in the wait.
  if (script.down && sim.kernel(f.nodes[1]) != nullptr && !sim.kernel(f.nodes[1])->is_shut_down() &&
      !sim.paused(f.nodes[1]) && sim.kernel(f.nodes[1])->self() == script.down->id) {
    const Duration bound = compute_bounds(k->config(), sim.size()).refute;
    down_claims_.push_back(
        DownClaim{{who, sim.now() + bound, bound, disturbed(sim.now())}, f.nodes[1], script.down->id});
    check_down_claims(sim, failures);  // the target judged it as it took the frames
  }
  if (script.far) {
    far_claims_due_.push_back(sim.now() + compute_bounds(k->config(), sim.size()).refute);
    check_clock(sim, failures);
  }
  if (!script.fakes.empty()) {
    const Duration bound = compute_bounds(k->config(), sim.size()).vouch;
    const std::size_t may_take = std::size_t{2} * k->config().max_new_members_per_peer;
    inventions_.push_back(
        Invention{{who, sim.now() + bound, bound, disturbed(sim.now())}, std::move(script.fakes), may_take});
  }
}

void TrustBoundary::corrupt(Simulator& sim, const Fault& f) {
  sim.damage_stream(f.nodes[0], f.nodes[1], Simulator::Damage::corrupt);
  pending_.push_back(Pending{f.nodes[1], sim.damaged_link_closes(f.nodes[1], CloseReason::wire_error),
                             sim.now() + Duration::seconds(2)});
}

void TrustBoundary::check(const Simulator& sim, std::vector<std::string>& failures) {
  check_claims(sim, failures);
  check_row_claims(sim, failures);
  check_inventions(sim, failures);
  check_down_claims(sim, failures);
  check_clock(sim, failures);
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

void TrustBoundary::on_fault(const Fault& f, Instant now) {
  switch (f.kind) {
    case Fault::Kind::cut:
    case Fault::Kind::cut_one_way:
    case Fault::Kind::partition: cut_ = true; break;
    case Fault::Kind::heal: cut_ = false; return;  // the cut's claims stay excused
    case Fault::Kind::flap:
    case Fault::Kind::spike:
    case Fault::Kind::pause: disturbed_until_ = std::max(disturbed_until_, now + f.length); break;
    case Fault::Kind::crash:
    case Fault::Kind::lose:
    case Fault::Kind::leave:
    case Fault::Kind::restart: break;  // an instant, but the survivors' views move with it
    case Fault::Kind::flood:
    case Fault::Kind::asks:
    case Fault::Kind::truncate:
    case Fault::Kind::corrupt:
    case Fault::Kind::rogue: return;  // traffic and single links: the bound holds through them
  }
  for (Claim& c : claims_) c.excused = true;
  for (RowClaim& c : row_claims_) c.excused = true;
  for (Invention& i : inventions_) i.excused = true;
  for (DownClaim& c : down_claims_) c.excused = true;
}

// W4: by its due time every running node holds the victim in its own
// current life, joining or up, and that life is above the claim. Not
// judged if a fault that disturbs gossip fell in the wait (on_fault): a
// crashed, paused or cut-off node may hold the claim until it runs.
void TrustBoundary::check_claims(const Simulator& sim, std::vector<std::string>& failures) {
  for (const Claim& c : claims_) {
    if (c.due > sim.now()) continue;
    const Kernel* victim = sim.kernel(c.victim);
    if (!c.excused && victim != nullptr && !victim->is_shut_down()) {
      const MemberId& own = victim->self();
      std::string held;
      for (std::size_t n = 1; n <= sim.size(); ++n) {
        const Kernel* k = sim.kernel(n);
        if (k == nullptr || k->is_shut_down()) continue;
        const Member* m = k->members().find(c.claim.address());
        const bool refuted = m != nullptr && m->id == own && own.incarnation > c.claim.incarnation() &&
                             (m->status == MemberStatus::joining || m->status == MemberStatus::up);
        if (!refuted) {
          held += cat(" ", node_name(n), ":", m ? cat(m->id.to_string(), " ", to_string(m->status)) : "nothing");
        }
      }
      if (held.empty()) {
        count(judged_, Check::w4_refutations);
      } else {
        failures.push_back(cat("W4: ", c.who, ": ", c.claim.id.to_string(), " ", to_string(c.claim.status),
                               " not refuted ", std::to_string(c.bound.ms()), " ms later (T_refute); held as", held));
      }
    }
  }
  std::erase_if(claims_, [&](const Claim& c) { return c.due <= sim.now(); });
}

// W4, rows: by its due time no running node holds the forged row (its
// observer rewrote its own above it, row_claims.hpp), and no node holds
// the victim's life down. Judged only while the observer runs in the life
// the row was forged under, and not if a fault that disturbs gossip fell
// in the wait.
void TrustBoundary::check_row_claims(const Simulator& sim, std::vector<std::string>& failures) {
  for (const RowClaim& c : row_claims_) {
    if (c.due > sim.now() || c.excused) continue;
    const Kernel* observer = sim.kernel(c.observer);
    const Kernel* victim = sim.kernel(c.victim);
    if (observer == nullptr || observer->is_shut_down() || observer->self() != c.row.observer) continue;
    std::string held;
    for (std::size_t n = 1; n <= sim.size(); ++n) {
      const Kernel* k = sim.kernel(n);
      if (k == nullptr || k->is_shut_down()) continue;
      const ReachabilityRow* r = k->reachability().row(c.row.observer);
      if (r != nullptr && *r == c.row) held += cat(" ", node_name(n));
      if (victim == nullptr || victim->is_shut_down()) continue;
      const Member* m = k->members().find(victim->self().address);
      if (m != nullptr && m->id == victim->self() && m->status == MemberStatus::down) {
        held += cat(" ", node_name(n), " (holds the victim down)");
      }
    }
    if (held.empty()) {
      count(judged_, Check::w4_refutations);
    } else {
      failures.push_back(cat("W4: ", c.who, ": forged row of ", c.row.observer.to_string(), " v",
                             std::to_string(c.row.version), " not refuted ", std::to_string(c.bound.ms()),
                             " ms later (T_refute):", held));
    }
  }
  std::erase_if(row_claims_, [&](const RowClaim& c) { return c.due <= sim.now(); });
}

// W5: no node ever moves an invented joiner up (nothing vouches for it),
// the cluster takes in no more inventions than one peer may bring (both
// judged throughout), and by its due time every running node holds every
// invented member down, removed or not at all. The last is not judged if a
// fault that disturbs gossip fell in the wait: a leader cut off from the
// rest downs them late.
void TrustBoundary::check_inventions(const Simulator& sim, std::vector<std::string>& failures) {
  for (const Invention& inv : inventions_) {
    const bool due = inv.due <= sim.now();
    std::string live;
    std::size_t held = 0;
    std::vector<bool> taken(inv.fakes.size(), false);  // by some node, at any status
    for (std::size_t n = 1; n <= sim.size(); ++n) {
      const Kernel* k = sim.kernel(n);
      if (k == nullptr || k->is_shut_down()) continue;
      for (std::size_t i = 0; i < inv.fakes.size(); ++i) {
        const Member& fake = inv.fakes[i];
        // This invention's life: a later rogue may invent the address again.
        const Member* m = k->members().find(fake.address());
        if (m != nullptr && m->id == fake.id) taken[i] = true;
        if (m == nullptr || m->id != fake.id || !is_live_status(m->status)) continue;
        if (fake.status == MemberStatus::joining && m->status == MemberStatus::up) {
          failures.push_back(cat("W5: ", inv.who, ": ", node_name(n), " moved invented member ", fake.id.to_string(),
                                 " up"));
          return;
        }
        if (due && held++ == 0) live = cat(node_name(n), " holds ", m->id.to_string(), " ", to_string(m->status));
      }
    }
    if (const auto in = static_cast<std::size_t>(std::count(taken.begin(), taken.end(), true)); in > inv.may_take) {
      failures.push_back(cat("W5: ", inv.who, ": ", std::to_string(in), " of ", std::to_string(inv.fakes.size()),
                             " invented members taken in, new from one peer (at most ", std::to_string(inv.may_take),
                             ": max_new_members_per_peer in each of two gossip intervals)"));
      return;
    }
    if (!due || inv.excused) continue;
    if (held == 0) {
      count(judged_, Check::w5_fakes);
    } else {
      failures.push_back(cat("W5: ", inv.who, ": ", std::to_string(held), " invented member record(s) of ",
                             std::to_string(inv.fakes.size()), " still live ", std::to_string(inv.bound.ms()),
                             " ms later (T_vouch); first: ", live));
    }
  }
  std::erase_if(inventions_, [&](const Invention& i) { return i.due <= sim.now(); });
}

// W4, downs: from the forge to its due time, no running node holds the
// victim's life down with no row marking that life unreachable: it held
// the claim for the victim to refute (down_claims.hpp). Judged throughout,
// since the victim's new life supersedes a down taken, and so hides it by
// the due time. Not judged if a fault that disturbs gossip fell in the
// wait: a real down of the victim may come of it; nor once the victim has
// stopped or left the life (it took the next one, refuting the claim).
void TrustBoundary::check_down_claims(const Simulator& sim, std::vector<std::string>& failures) {
  for (const DownClaim& c : down_claims_) {
    const Kernel* victim = sim.kernel(c.victim);
    if (c.excused || victim == nullptr || victim->is_shut_down() || victim->self() != c.life) continue;
    for (std::size_t n = 1; n <= sim.size(); ++n) {
      const Kernel* k = sim.kernel(n);
      // The victim's own record: it takes a down of itself only when it was
      // cut off, and then must rejoin or stop at once (M3 judges that).
      if (n == c.victim || k == nullptr || k->is_shut_down()) continue;
      const Member* m = k->members().find(c.life.address);
      if (m == nullptr || m->id != c.life || m->status != MemberStatus::down) continue;
      if (k->reachability().is_unreachable(c.life)) continue;  // a row behind it: the leader's to decide
      failures.push_back(cat("W4: ", c.who, ": ", node_name(n), " holds ", c.life.to_string(),
                             " down on a forged down, with no row marking it unreachable, ",
                             std::to_string((sim.now() - (c.due - c.bound)).ms()), " ms after the forge"));
      return;
    }
    if (c.due <= sim.now()) count(judged_, Check::w4_refutations);
  }
  std::erase_if(down_claims_, [&](const DownClaim& c) { return c.due <= sim.now(); });
}

// W4, the clock: with incarnations that are start times
// (kernel/membership/life_ceiling.hpp), no running node holds a life above
// the highest clock ceiling of any running node, plus one (a refutation
// goes one above a claim the ceiling allowed). Judged throughout; a far
// claim counts once it is T_refute old.
void TrustBoundary::check_clock(const Simulator& sim, std::vector<std::string>& failures) {
  std::optional<std::uint64_t> top;
  for (std::size_t n = 1; n <= sim.size(); ++n) {
    const Kernel* k = sim.kernel(n);
    if (k == nullptr || k->is_shut_down()) continue;
    if (const std::optional<std::uint64_t> ceiling = k->life_ceiling()) top = std::max(top.value_or(0), *ceiling);
  }
  if (!top) return;
  for (std::size_t n = 1; n <= sim.size(); ++n) {
    const Kernel* k = sim.kernel(n);
    if (k == nullptr || k->is_shut_down()) continue;
    for (const Member& m : k->members().members()) {
      if (m.incarnation().value <= *top + 1) continue;
      failures.push_back(cat("W4: ", node_name(n), " holds ", m.id.to_string(), " ", to_string(m.status), ", ",
                             std::to_string(m.incarnation().value - *top), " above every node's clock ceiling "
                             "(the clock plus incarnation_clock_skew)"));
      return;
    }
  }
  for (const Instant due : far_claims_due_) {
    if (due <= sim.now()) count(judged_, Check::w4_refutations);
  }
  std::erase_if(far_claims_due_, [&](Instant due) { return due <= sim.now(); });
}

}  // namespace weft::sim
