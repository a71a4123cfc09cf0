// W3 at the trust boundary (docs/properties.md): a rogue peer (garbage, a
// wrong cluster, a stale or implausible incarnation; on authenticated links
// a proof made with another key, a proof replayed from another link, or no
// proof at all) has its link closed with the counted reason and no other; a
// forged gossip row is refused (the ingest guard) and the link stays;
// either way the victim's record in the target's view does not move. A
// corrupted stream is closed by its reader with a wire error.
// (Views are otherwise judged by the other checkers, which excuse none of
// these faults: a truncated or corrupted link must not cost a suspicion.)
//
// Judged: "W3 rogue peers" (rogues whose target handled them), "W3 corrupt
// streams" (damaged writes whose reader ran and closed the link).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

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

 private:
  struct Pending {
    std::size_t reader = 0;
    std::uint64_t closes_before = 0;
    Instant due;
  };
  Judged* judged_;
  std::vector<Pending> pending_;
  std::uint64_t rogues_ = 0;
};

}  // namespace weft::sim
