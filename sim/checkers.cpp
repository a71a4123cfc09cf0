// The names the Check counts print under: see checkers.hpp.
#include "sim/checkers.hpp"

namespace weft::sim {

std::string_view to_string(Check check) {
  switch (check) {
    case Check::m2_records: return "M2 records";
    case Check::m3_self: return "M3 own records";
    case Check::m4_one_view: return "M4 one view";
    case Check::m5_partition_heal: return "M5 partition healed";
    case Check::f1_detect: return "F1 T_detect";
    case Check::f1_down: return "F1 T_down";
    case Check::f2_flood: return "F2 pairs in a flood";
    case Check::f3_short_pause: return "F3 short pauses";
    case Check::f3_refutation: return "F3 refutations";
    case Check::f4_single_cut: return "F4 single cuts";
    case Check::f5_intervals: return "F5 intervals";
    case Check::s1_messages: return "S1 messages";
    case Check::s2_asks: return "S2 completions";
    case Check::s3_down_targets: return "S3 asks to the downed";
    case Check::s4_mailboxes: return "S4 mailbox reads";
    case Check::s4_streams: return "S4 streams";
    case Check::w3_rogues: return "W3 rogue peers";
    case Check::w3_corrupt: return "W3 corrupt streams";
    case Check::w4_refutations: return "W4 refutations";
    case Check::m8_dropped: return "M8 dropped records";
    case Check::w5_fakes: return "W5 invented members";
    case Check::m7_inputs: return "M7 inputs";
    case Check::m7_remarks: return "M7 re-marks";
    case Check::f1_down_closed: return "F1 T_down_closed";
    case Check::f3_forgiven_pause: return "F3 forgiven pauses";
    case Check::m6_boot: return "M6 T_boot starts";
    case Check::f1_partition_down: return "F1 T_down_partition";
    case Check::m5_merge: return "M5 T_merge heals";
  }
  return "?";
}

}  // namespace weft::sim
