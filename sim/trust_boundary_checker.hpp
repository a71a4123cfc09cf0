// W3 at the trust boundary (docs/properties.md): a rogue peer (garbage, a
// wrong cluster, a stale or implausible incarnation; on authenticated links
// a proof made with another key, a proof replayed from another link, no
// proof at all, or the node's own proof reflected back) has its link
// closed with the counted reason and no other; a forged gossip row is
// refused (the ingest guard) and the link stays; either way the victim's
// record in the target's view does not move. A corrupted stream is closed
// by its reader with a wire error.
// (Views are otherwise judged by the other checkers, which excuse none of
// these faults: a truncated or corrupted link must not cost a suspicion.)
//
// W4: an insider's claim about a live node that only that node may make (a
// newer life, a leave it never asked for) is taken by its target, which
// cannot tell it from the node's own word; the node refutes it with a life
// above the claim, so by T_refute every node holds it live above the claim.
//
// W4, downs: an insider's gossip claiming a live node down, with no row
// behind it, is held by its target for the node to refute
// (kernel/membership/down_claims.hpp): through T_refute no node holds that
// life down without a row marking it unreachable.
//
// W4, the clock: with incarnations that are start times (a scenario's
// `wall-clock`), no node ever holds a life above the clock plus
// incarnation_clock_skew (kernel/membership/life_ceiling.hpp), whatever a
// rogue claims (`far-claim`).
//
// W5: an insider's gossip inventing members (records of addresses no
// process holds) stalls nothing: the inventions are vouched for by no
// member (kernel/membership/vouched_lives.hpp), so no node moves one up,
// and the leader downs them all, so by T_vouch every node holds them down.
// A join meanwhile is judged by M6 as if they were not there (the rogue is
// no fault to it).
//
// Judged: "W3 rogue peers" (rogues whose target handled them), "W3 corrupt
// streams" (damaged writes whose reader ran and closed the link), "W4
// refutations" (claims due with every node running through T_refute), "W5
// invented members" (inventions due with no disturbance in the wait).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernel/membership/member.hpp"
#include "kernel/time.hpp"
#include "sim/checkers.hpp"

namespace weft::sim {

class TrustBoundary {
 public:
  explicit TrustBoundary(Judged* judged = nullptr) : judged_(judged) {}
  // Plays a rogue fault on `sim` now and judges what the target did.
  void rogue(Simulator& sim, const Fault& fault, std::uint64_t seed, std::vector<std::string>& failures);
  // Arms a corrupt fault; check() judges it once its write was damaged.
  void corrupt(Simulator& sim, const Fault& fault);
  void check(const Simulator& sim, std::vector<std::string>& failures);
  // Every fault as it is applied: W4's bound holds for a network that
  // carries gossip, so a claim is not judged if a cut, partition, flap,
  // spike, pause, crash or restart was in force during its wait.
  void on_fault(const Fault& fault, Instant now);

 private:
  struct Pending {
    std::size_t reader = 0;
    std::uint64_t closes_before = 0;
    Instant due;
  };
  // What every judged wait holds: what the rogue sent, when the wait is
  // due, the bound it is judged by.
  struct Wait {
    std::string who;
    Instant due;
    Duration bound;
    bool excused = false;  // a fault that disturbs gossip fell in the wait (on_fault)
  };
  // W4: a claim the target took, to be refuted by `victim` by `due`.
  struct Claim : Wait {
    std::size_t victim = 0;
    Member claim;
  };
  // W4: a row forged under `observer`'s life, to be gone from every table,
  // and `victim` not downed, by `due`.
  struct RowClaim : Wait {
    std::size_t observer = 0;
    std::size_t victim = 0;
    ReachabilityRow row;
  };
  // W4: a down forged of `victim`'s live `life`, held by every node until
  // `due` unless a row marks the life unreachable there.
  struct DownClaim : Wait {
    std::size_t victim = 0;
    MemberId life;
  };
  // W5: members a rogue invented, to be down everywhere by `due`.
  struct Invention : Wait {
    std::vector<Member> fakes;  // in address order, as sent
    // The most the cluster may take in: the target's max_new_members_per_peer
    // for each of the two windows the rogue's state and delta may fall in.
    std::size_t may_take = 0;
  };
  void check_claims(const Simulator& sim, std::vector<std::string>& failures);
  void check_row_claims(const Simulator& sim, std::vector<std::string>& failures);
  void check_inventions(const Simulator& sim, std::vector<std::string>& failures);
  void check_down_claims(const Simulator& sim, std::vector<std::string>& failures);
  void check_clock(const Simulator& sim, std::vector<std::string>& failures);
  bool disturbed(Instant now) const { return cut_ || now < disturbed_until_; }
  Judged* judged_;
  bool cut_ = false;          // a cut or partition not yet healed
  Instant disturbed_until_;   // the end of the last flap, spike or pause
  std::vector<Pending> pending_;
  std::vector<Claim> claims_;
  std::vector<RowClaim> row_claims_;
  std::vector<Invention> inventions_;
  std::vector<DownClaim> down_claims_;
  std::vector<Instant> far_claims_due_;  // W4: far claims, judged against the clock until then
  std::uint64_t rogues_ = 0;
};

}  // namespace weft::sim
