// Which faults are still in force. FaultLog (sim/checkers.hpp) knows when
// each fault was applied, but a cut lasts until its heal and a flood, pause
// or spike for its length, so a window with no fault applied in it can still
// sit inside one. The timed checkers that judge only an undisturbed cluster
// (boot_checker.hpp, partition_checker.hpp) ask this as well.
#pragma once

#include <algorithm>
#include <limits>

#include "sim/scenario.hpp"

namespace weft::sim {

class OngoingFaults {
 public:
  // Every fault as it is applied, the heal at the end of the chaos phase too.
  void add(const Fault& fault, Instant now) {
    switch (fault.kind) {
      case Fault::Kind::cut:
      case Fault::Kind::cut_one_way:
      case Fault::Kind::partition: cut_ = true; break;
      case Fault::Kind::heal:
        if (cut_) cut_ended_ = now;
        cut_ = false;
        break;
      // A flap heals itself when its time is up; a flood can hold a slow
      // link's window full for all of its length.
      case Fault::Kind::flap:
      case Fault::Kind::spike:
      case Fault::Kind::pause:
      case Fault::Kind::flood: until_ = std::max(until_, now + fault.length); break;
      // A crash lasts until its restart, but a crashed node is no longer
      // judged and its downing is over T_down later: the checkers' windows
      // reach back that far (FaultLog). The rest are instants; asks are
      // too light to disturb anything.
      case Fault::Kind::crash:
      case Fault::Kind::lose:
      case Fault::Kind::leave:
      case Fault::Kind::restart:
      case Fault::Kind::asks:
      case Fault::Kind::truncate:
      case Fault::Kind::corrupt:
      case Fault::Kind::rogue: break;
    }
  }
  // Nothing that lasts was in force at any time from `from` until now.
  bool quiet_since(Instant from) const { return !cut_ && cut_ended_ < from && until_ < from; }

 private:
  // Before any window a checker asks about (they may reach back before the start).
  static constexpr Instant kLongAgo = Instant::from_ns(std::numeric_limits<std::int64_t>::min());
  bool cut_ = false;
  Instant cut_ended_ = kLongAgo;
  Instant until_ = kLongAgo;
};

}  // namespace weft::sim
