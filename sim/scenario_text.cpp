// The text form of a scenario: what a failure prints, what --scenario FILE
// reads. Line-oriented so a shrunk schedule diffs well and a user can edit
// one fault by hand:
//
//   seed 42 nodes 5 chaos 30.000s heal 40.000s
//   network floor 700us tail 1200us chunks 4 bandwidth 100000000 window 4194304
//   mutation throttle_off
//   require suspicion_refuted
//   at 5.250s crash n3
//   at 7.000s flood n1 -> n2 2000/s 1024B for 10000ms
//
// Times are virtual, from the start of the run; "#" starts a comment.
#include <cstdio>

#include "sim/scenario.hpp"

namespace weft::sim {
namespace {

constexpr std::string_view kMutationNames[] = {
    "throttle_off",       "indirect_probes_off",  "refutation_off",        "replies_complete_twice",
    "mailbox_unbounded",  "control_behind_user",  "merge_order_dependent",
};

bool* mutation_flag(Mutations& m, std::string_view name) {
  if (name == "throttle_off") return &m.throttle_off;
  if (name == "indirect_probes_off") return &m.indirect_probes_off;
  if (name == "refutation_off") return &m.refutation_off;
  if (name == "replies_complete_twice") return &m.replies_complete_twice;
  if (name == "mailbox_unbounded") return &m.mailbox_unbounded;
  if (name == "control_behind_user") return &m.control_behind_user;
  if (name == "merge_order_dependent") return &m.merge_order_dependent;
  return nullptr;
}

std::string seconds_text(Duration d) {
  char text[40];
  std::snprintf(text, sizeof text, "%lld.%03llds", static_cast<long long>(d.ms() / 1000),
                static_cast<long long>(d.ms() % 1000));
  return text;
}

std::string ms_text(Duration d) { return std::to_string(d.ms()) + "ms"; }
std::string node_text(std::size_t n) { return "n" + std::to_string(n); }

std::string side_text(const std::vector<std::size_t>& nodes) {
  std::string text = "{";
  for (std::size_t n : nodes) text += " " + node_text(n);
  return text + " }";
}

}  // namespace

std::span<const std::string_view> mutation_names() { return kMutationNames; }

bool set_mutation(Mutations& mutations, std::string_view name) {
  bool* flag = mutation_flag(mutations, name);
  if (flag == nullptr) return false;
  *flag = true;
  return true;
}

std::string Scenario::to_text() const {
  std::string text = "seed " + std::to_string(seed) + " nodes " + std::to_string(nodes) + " chaos " +
                     seconds_text(chaos) + " heal " + seconds_text(heal) + "\n";
  text += "network floor " + std::to_string(network.latency_floor.us()) + "us tail " +
          std::to_string(network.latency_tail_mean.us()) + "us chunks " + std::to_string(network.max_chunks) +
          " bandwidth " + std::to_string(network.bandwidth) + " window " + std::to_string(network.window) + "\n";
  Mutations copy = mutations;
  for (std::string_view name : kMutationNames) {
    if (*mutation_flag(copy, name)) text += "mutation " + std::string(name) + "\n";
  }
  for (Mark mark : required_marks) text += "require " + std::string(to_string(mark)) + "\n";
  for (const Fault& f : faults) {
    text += "at " + seconds_text(f.at) + " ";
    switch (f.kind) {
      case Fault::Kind::crash: text += "crash " + node_text(f.nodes[0]); break;
      case Fault::Kind::restart: text += "restart " + node_text(f.nodes[0]); break;
      case Fault::Kind::pause: text += "pause " + node_text(f.nodes[0]) + " for " + ms_text(f.length); break;
      case Fault::Kind::cut: text += "cut " + node_text(f.nodes[0]) + " " + node_text(f.nodes[1]); break;
      case Fault::Kind::cut_one_way:
        text += "cut " + node_text(f.nodes[0]) + " -> " + node_text(f.nodes[1]);
        break;
      case Fault::Kind::partition: text += "partition " + side_text(f.nodes); break;
      case Fault::Kind::flap:
        text += "flap " + side_text(f.nodes) + " every " + ms_text(f.period) + " for " + ms_text(f.length);
        break;
      case Fault::Kind::heal: text += "heal"; break;
      case Fault::Kind::spike: text += "spike +" + ms_text(f.extra) + " for " + ms_text(f.length); break;
      case Fault::Kind::flood:
        text += "flood " + node_text(f.nodes[0]) + " -> " + node_text(f.nodes[1]) + " " + std::to_string(f.rate) +
                "/s " + std::to_string(f.bytes) + "B for " + ms_text(f.length);
        break;
      case Fault::Kind::asks:
        text += "asks " + node_text(f.nodes[0]) + " -> " + node_text(f.nodes[1]) + " " + std::to_string(f.rate) +
                "/s timeout " + ms_text(f.extra) + " for " + ms_text(f.length);
        break;
    }
    text += "\n";
  }
  return text;
}

ParsedScenario parse_scenario(std::string_view text) {
  (void)text;
  return ParsedScenario{std::nullopt, "scenario files are not read yet"};
}

}  // namespace weft::sim
