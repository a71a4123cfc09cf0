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
// A duration is a number and a unit: 5.250s, 3000ms, 700us or 12ns (up to
// nanosecond precision). to_text prints seconds with 3 decimals and lengths
// in ms, and only when a time is finer than that (generate() draws fault
// times in nanoseconds) 6 or 9 decimals, us or ns, so the text reads back
// exactly. On the network line, keys left out keep their defaults.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <array>
#include <limits>
#include <system_error>

#include "sim/scenario.hpp"

namespace weft::sim {
namespace {

// Every flag of Mutations: the name --mutation and scenario files use, and
// the property (and the words of its checker's report) that must catch it.
struct MutationFlag {
  MutationTarget target;
  bool Mutations::*flag;
};
constexpr MutationFlag kMutationFlags[] = {
    {{"throttle_off", "F5", "recorded observations"}, &Mutations::throttle_off},
    {{"indirect_probes_off", "F4", "never lost more than one link"}, &Mutations::indirect_probes_off},
    {{"refutation_off", "F3", "never refuted"}, &Mutations::refutation_off},
    {{"replies_complete_twice", "S2", "completed twice"}, &Mutations::replies_complete_twice},
    {{"mailbox_unbounded", "S4", "mailbox holds"}, &Mutations::mailbox_unbounded},
    {{"control_behind_user", "F4", "never lost more than one link"}, &Mutations::control_behind_user},
    {{"merge_order_dependent", "M2", "backwards"}, &Mutations::merge_order_dependent},
    {{"downing_off", "F1", "crashed"}, &Mutations::downing_off},
    {{"suspicion_delayed", "F1", "(T_detect)"}, &Mutations::suspicion_delayed},
    {{"self_down_kept", "M3", "holds itself"}, &Mutations::self_down_kept},
    {{"duplicate_delivery", "S1", "(duplicate)"}, &Mutations::duplicate_delivery},
    {{"mailbox_lifo", "S1", "(out of order)"}, &Mutations::mailbox_lifo},
    {{"misroute_user", "S1", "misdelivery"}, &Mutations::misroute_user},
    {{"reply_body_stale", "S2", "reply to another ask"}, &Mutations::reply_body_stale},
    {{"ask_timeout_late", "S2", "completed late"}, &Mutations::ask_timeout_late},
    {{"ask_timeout_off", "S2", "never completed"}, &Mutations::ask_timeout_off},
    {{"outbound_unbounded", "S4", "have not arrived"}, &Mutations::outbound_unbounded},
    {{"heal_probe_off", "M5", "no single view"}, &Mutations::heal_probe_off},
    {{"liveness_behind_user", "F2", "no crash, long pause"}, &Mutations::liveness_behind_user},
    {{"ingest_guard_off", "W3", "the rogue"}, &Mutations::ingest_guard_off},
    {{"cluster_check_off", "W3", "with wrong_cluster"}, &Mutations::cluster_check_off},
    {{"convergence_off", "M6", "(T_boot)"}, &Mutations::convergence_off},
    {{"proof_check_off", "W3", "bad_proof"}, &Mutations::proof_check_off},
    {{"down_keeps_asks", "S3", "saw its target down"}, &Mutations::down_keeps_asks},
    {{"confirmation_off", "F1", "(T_down_closed)"}, &Mutations::confirmation_off},
    {{"pause_floor_off", "F3", "no longer than the forgiven"}, &Mutations::pause_floor_off},
    {{"flap_guard_off", "M7", "unreachable"}, &Mutations::flap_guard_off},
    {{"joiners_up_late", "M6", "(T_boot)"}, &Mutations::joiners_up_late},
    {{"leader_ignores_reachability", "F1", "(T_down_partition)"}, &Mutations::leader_ignores_reachability},
    {{"downed_gossip_ignored", "M5", "(T_merge)"}, &Mutations::downed_gossip_ignored},
    {{"claim_refutation_off", "W4", "(T_refute)"}, &Mutations::claim_refutation_off},
    {{"nonce_reuse", "W3", "(sent a proof recorded from another link) did not close"}, &Mutations::nonce_reuse},
    // Generated seeds never reflect a proof: a new rogue drawn there would move
    // every hostile seed's schedule (and trace hash).
    {{"role_unbound", "W3", "(sent the node's own proof back) did not close", "trust_boundary_auth.scenario"},
     &Mutations::role_unbound},
    {{"dial_back_off", "W3", "took the address it named"}, &Mutations::dial_back_off},
    // Generated seeds never restart a node below a life it reached: only a
    // scenario file's `restart nN fresh` does.
    {{"held_life_unsaid", "M4", "no single view", "held_life.scenario"}, &Mutations::held_life_unsaid},
    // Generated seeds keep the 1 h tombstone_ttl: only a scenario file with a
    // short one (tombstone-ttl) sees a tombstone dropped.
    {{"tombstone_echo", "M8", "took back", "tombstones.scenario"}, &Mutations::tombstone_echo},
    {{"vouching_off", "W5", "(T_vouch)"}, &Mutations::vouching_off},
    {{"row_refutation_off", "W4", "forged row"}, &Mutations::row_refutation_off},
    {{"ingest_uncapped", "W5", "new from one peer"}, &Mutations::ingest_uncapped},
    {{"down_hold_off", "W4", "forged down"}, &Mutations::down_hold_off},
    // Generated seeds count lives from 1: only a scenario file's `wall-clock`
    // bounds them by a clock.
    {{"incarnation_clock_off", "W4", "above every node's clock", "far_claims.scenario"},
     &Mutations::incarnation_clock_off},
};

// Mutations holds nothing but these flags: a new flag without a name fails here.
static_assert(sizeof(Mutations) == std::size(kMutationFlags) * sizeof(bool));

constexpr auto kMutationNames = [] {
  std::array<std::string_view, std::size(kMutationFlags)> names{};
  for (std::size_t i = 0; i < names.size(); ++i) names[i] = kMutationFlags[i].target.name;
  return names;
}();

bool* mutation_flag(Mutations& m, std::string_view name) {
  for (const MutationFlag& f : kMutationFlags) {
    if (f.target.name == name) return &(m.*f.flag);
  }
  return nullptr;
}

// Seconds with 3 decimals, or 6 or 9 when the time is finer than a ms.
std::string seconds_text(Duration d) {
  const std::int64_t ns = d.ns();
  const unsigned long long magnitude =
      ns < 0 ? 0ULL - static_cast<unsigned long long>(ns) : static_cast<unsigned long long>(ns);
  const unsigned long long whole = magnitude / 1'000'000'000ULL;
  const unsigned long long fraction = magnitude % 1'000'000'000ULL;
  const char* sign = ns < 0 ? "-" : "";
  char text[48];
  if (fraction % 1'000'000ULL == 0) {
    std::snprintf(text, sizeof text, "%s%llu.%03llus", sign, whole, fraction / 1'000'000ULL);
  } else if (fraction % 1'000ULL == 0) {
    std::snprintf(text, sizeof text, "%s%llu.%06llus", sign, whole, fraction / 1'000ULL);
  } else {
    std::snprintf(text, sizeof text, "%s%llu.%09llus", sign, whole, fraction);
  }
  return text;
}

// Whole milliseconds, or us or ns when the length is finer.
std::string ms_text(Duration d) {
  if (d.ns() % 1'000'000 == 0) return std::to_string(d.ms()) + "ms";
  if (d.ns() % 1'000 == 0) return std::to_string(d.us()) + "us";
  return std::to_string(d.ns()) + "ns";
}

// Whole microseconds, or ns when finer.
std::string us_text(Duration d) {
  if (d.ns() % 1'000 == 0) return std::to_string(d.us()) + "us";
  return std::to_string(d.ns()) + "ns";
}

std::string node_text(std::size_t n) { return "n" + std::to_string(n); }

std::string side_text(const std::vector<std::size_t>& nodes) {
  std::string text = "{";
  // Appended piece by piece: `"x" + std::string` (operator+ prepending into the
  // temporary) draws a false -Wrestrict from gcc 12 at -O3 (GCC bug 105329).
  for (std::size_t n : nodes) {
    text += ' ';
    text += node_text(n);
  }
  return text + " }";
}

}  // namespace

std::span<const std::string_view> mutation_names() { return kMutationNames; }

std::string_view to_string(Fault::Rogue rogue) {
  switch (rogue) {
    case Fault::Rogue::garbage: return "garbage";
    case Fault::Rogue::wrong_cluster: return "wrong-cluster";
    case Fault::Rogue::stale_incarnation: return "stale-incarnation";
    case Fault::Rogue::implausible_incarnation: return "implausible-incarnation";
    case Fault::Rogue::forged_row: return "forged-row";
    case Fault::Rogue::wrong_key: return "wrong-key";
    case Fault::Rogue::replayed_proof: return "replayed-proof";
    case Fault::Rogue::unproven: return "unproven";
    case Fault::Rogue::forged_incarnation: return "forged-incarnation";
    case Fault::Rogue::forged_leaving: return "forged-leaving";
    case Fault::Rogue::reflected_proof: return "reflected-proof";
    case Fault::Rogue::keyless_join: return "keyless-join";
    case Fault::Rogue::squat: return "squat";
    case Fault::Rogue::fake_members: return "fake-members";
    case Fault::Rogue::forged_unreachable: return "forged-unreachable";
    case Fault::Rogue::forged_down: return "forged-down";
    case Fault::Rogue::far_claim: return "far-claim";
  }
  return "?";
}

std::string_view to_string(AuthMode mode) {
  switch (mode) {
    case AuthMode::off: return "off";
    case AuthMode::shared: return "shared";
    case AuthMode::rotating: return "rotating";
  }
  return "?";
}

constexpr auto kMutationTargets = [] {
  std::array<MutationTarget, std::size(kMutationFlags)> targets{};
  for (std::size_t i = 0; i < targets.size(); ++i) targets[i] = kMutationFlags[i].target;
  return targets;
}();

std::span<const MutationTarget> mutation_targets() { return kMutationTargets; }

bool set_mutation(Mutations& mutations, std::string_view name) {
  bool* flag = mutation_flag(mutations, name);
  if (flag == nullptr) return false;
  *flag = true;
  return true;
}

std::string Scenario::to_text() const {
  std::string text = "seed " + std::to_string(seed) + " nodes " + std::to_string(nodes) + " chaos " +
                     seconds_text(chaos) + " heal " + seconds_text(heal) + "\n";
  text += "network floor " + us_text(network.latency_floor) + " tail " + us_text(network.latency_tail_mean) +
          " chunks " + std::to_string(network.max_chunks) +
          " bandwidth " + std::to_string(network.bandwidth) + " window " + std::to_string(network.window) + "\n";
  Mutations copy = mutations;
  for (std::string_view name : kMutationNames) {
    if (*mutation_flag(copy, name)) text += "mutation " + std::string(name) + "\n";
  }
  if (auth != AuthMode::off) text += "auth " + std::string(to_string(auth)) + "\n";
  if (link_idle_timeout) text += "idle-links " + seconds_text(*link_idle_timeout) + "\n";
  if (tombstone_ttl) text += "tombstone-ttl " + seconds_text(*tombstone_ttl) + "\n";
  if (wall_clock_skew) text += "wall-clock " + seconds_text(*wall_clock_skew) + "\n";
  for (Mark mark : required_marks) text += "require " + std::string(to_string(mark)) + "\n";
  for (std::size_t n = 0; n < clock_ppm.size(); ++n) {
    if (clock_ppm[n] != 0) {
      text += "clock " + node_text(n + 1) + " " + (clock_ppm[n] > 0 ? "+" : "") + std::to_string(clock_ppm[n]) + "ppm\n";
    }
  }
  for (const Fault& f : faults) {
    text += "at " + seconds_text(f.at) + " ";
    switch (f.kind) {
      case Fault::Kind::crash: text += "crash " + node_text(f.nodes[0]); break;
      case Fault::Kind::lose: text += "lose " + node_text(f.nodes[0]); break;
      case Fault::Kind::leave: text += "leave " + node_text(f.nodes[0]); break;
      case Fault::Kind::restart: text += "restart " + node_text(f.nodes[0]) + (f.fresh ? " fresh" : ""); break;
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
      case Fault::Kind::truncate:
      case Fault::Kind::corrupt:
        text += std::string(f.kind == Fault::Kind::truncate ? "truncate " : "corrupt ") + node_text(f.nodes[0]) +
                " -> " + node_text(f.nodes[1]);
        break;
      case Fault::Kind::rogue:
        text += "rogue " + node_text(f.nodes[0]) + " " + std::string(to_string(f.rogue));
        if (f.nodes.size() > 1) text += " " + node_text(f.nodes[1]);
        break;
    }
    text += "\n";
  }
  return text;
}

namespace {

constexpr std::size_t kMaxNodes = 1000;  // as weft-sim --nodes
constexpr Duration kMinIdleLinks = Duration::seconds(2);  // twice the default heartbeat_interval
constexpr std::string_view kHeaderForm = "seed <n> nodes <n> chaos <time> heal <time>";
constexpr std::string_view kNetworkForm =
    "network floor <time> tail <time> chunks <n> bandwidth <bytes/s> window <bytes>";
constexpr std::string_view kFaultNames =
    "crash, lose, leave, restart, pause, cut, partition, flap, heal, spike, flood, asks, truncate, corrupt, rogue";
constexpr Fault::Rogue kRogues[] = {Fault::Rogue::garbage,        Fault::Rogue::wrong_cluster,
                                    Fault::Rogue::stale_incarnation, Fault::Rogue::implausible_incarnation,
                                    Fault::Rogue::forged_row,     Fault::Rogue::wrong_key,
                                    Fault::Rogue::replayed_proof, Fault::Rogue::unproven,
                                    Fault::Rogue::forged_incarnation, Fault::Rogue::forged_leaving,
                                    Fault::Rogue::reflected_proof, Fault::Rogue::keyless_join,
                                    Fault::Rogue::squat,          Fault::Rogue::fake_members,
                                    Fault::Rogue::forged_unreachable, Fault::Rogue::forged_down,
                                    Fault::Rogue::far_claim};
constexpr AuthMode kAuthModes[] = {AuthMode::off, AuthMode::shared, AuthMode::rotating};

// The rogues that impersonate (or forge a record of) an honest node.
bool names_a_victim(Fault::Rogue rogue) {
  return rogue != Fault::Rogue::garbage && rogue != Fault::Rogue::wrong_cluster &&
         rogue != Fault::Rogue::keyless_join && rogue != Fault::Rogue::fake_members;
}

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// A whole number of type T, digits only (no sign, no spaces).
template <typename T>
std::optional<T> parse_number(std::string_view s, bool* too_large = nullptr) {
  if (!all_digits(s)) return std::nullopt;
  T value{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec == std::errc::result_out_of_range && too_large != nullptr) *too_large = true;
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return value;
}

struct Unit {
  std::string_view suffix;
  std::int64_t ns;
  std::size_t decimals;
};
// Two-letter suffixes before "s", which ends all of them.
constexpr Unit kUnits[] = {{"ns", 1, 0}, {"us", 1'000, 3}, {"ms", 1'000'000, 6}, {"s", 1'000'000'000, 9}};

// "5.250s", "3000ms", "700us", "12ns"; nullopt with `why` set otherwise.
std::optional<Duration> parse_duration(std::string_view text, std::string& why) {
  why = "expected a duration such as 5.250s or 3000ms, got " + quoted(text);
  const Unit* unit = nullptr;
  for (const Unit& u : kUnits) {
    if (text.size() > u.suffix.size() && text.ends_with(u.suffix)) {
      unit = &u;
      break;
    }
  }
  if (unit == nullptr) return std::nullopt;
  const std::string_view number = text.substr(0, text.size() - unit->suffix.size());
  const std::size_t dot = number.find('.');
  const std::string_view whole = number.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos ? std::string_view{} : number.substr(dot + 1);
  if (!all_digits(whole) || (dot != std::string_view::npos && !all_digits(fraction))) return std::nullopt;
  if (fraction.size() > unit->decimals) {
    why = quoted(text) + " is finer than a nanosecond (at most " + std::to_string(unit->decimals) +
          " decimals for " + std::string(unit->suffix) + ")";
    return std::nullopt;
  }
  bool too_large = false;
  const std::optional<std::int64_t> units = parse_number<std::int64_t>(whole, &too_large);
  std::int64_t ns = 0;
  if (!units || __builtin_mul_overflow(*units, unit->ns, &ns)) {
    why = quoted(text) + " is too long";
    return std::nullopt;
  }
  if (!fraction.empty()) {
    std::int64_t scale = unit->ns;
    for (std::size_t i = 0; i < fraction.size(); ++i) scale /= 10;
    const std::int64_t parts = parse_number<std::int64_t>(fraction).value_or(0);  // at most 9 digits
    if (__builtin_add_overflow(ns, parts * scale, &ns)) {
      why = quoted(text) + " is too long";
      return std::nullopt;
    }
  }
  return Duration::nanoseconds(ns);
}

std::vector<std::string_view> tokenize(std::string_view line) {
  std::vector<std::string_view> tokens;
  std::size_t i = 0;
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; };
  while (i < line.size()) {
    if (space(line[i])) {
      ++i;
    } else if (line[i] == '{' || line[i] == '}') {
      tokens.push_back(line.substr(i, 1));
      ++i;
    } else {
      const std::size_t start = i;
      while (i < line.size() && !space(line[i]) && line[i] != '{' && line[i] != '}') ++i;
      tokens.push_back(line.substr(start, i - start));
    }
  }
  return tokens;
}

std::string mark_names() {
  std::string names;
  for (std::size_t i = 0; i < kMarkCount; ++i) {
    if (i > 0) names += ", ";
    names += to_string(static_cast<Mark>(i));
  }
  return names;
}

std::string mutation_list() {
  std::string names;
  for (std::string_view name : kMutationNames) {
    if (!names.empty()) names += ", ";
    names += name;
  }
  return names;
}

// Reads the words of one line. Each method returns false with `error` set;
// `form` is appended to errors about the shape of the line.
class LineReader {
 public:
  LineReader(std::vector<std::string_view> tokens, std::size_t nodes) : tokens_(std::move(tokens)), nodes_(nodes) {}

  std::string error;
  bool show_form = false;
  std::string form;

  bool at_end() const { return next_ == tokens_.size(); }
  std::string_view peek() const { return at_end() ? std::string_view{} : tokens_[next_]; }
  std::string_view take() { return at_end() ? std::string_view{} : tokens_[next_++]; }
  std::string got() const { return at_end() ? "the end of the line" : quoted(tokens_[next_]); }

  bool fail(std::string why) {
    error = std::move(why);
    return false;
  }
  bool fail_form(std::string why) {
    show_form = true;
    return fail(std::move(why));
  }

  bool word(std::string_view w) {
    if (peek() != w || at_end()) return fail_form("expected " + quoted(w) + ", got " + got());
    ++next_;
    return true;
  }

  bool finish() {
    if (at_end()) return true;
    return fail_form("unexpected " + got() + " after the end of the line");
  }

  bool node(std::size_t& out) {
    if (at_end() || peek().size() < 2 || peek()[0] != 'n' || !all_digits(peek().substr(1))) {
      return fail_form("expected a node such as n3, got " + got());
    }
    const std::string_view text = take();
    const std::optional<std::size_t> n = parse_number<std::size_t>(text.substr(1));
    if (!n || *n < 1 || *n > nodes_) {
      return fail("node " + std::string(text) + " is outside 1.." + std::to_string(nodes_));
    }
    out = *n;
    return true;
  }

  bool node_into(std::vector<std::size_t>& nodes) {
    std::size_t n = 0;
    if (!node(n)) return false;
    nodes.push_back(n);
    return true;
  }

  // "{ n1 n2 }": some nodes, each once, not all of them.
  bool side(std::vector<std::size_t>& out, std::string_view what) {
    if (!word("{")) return false;
    while (peek() != "}") {
      if (at_end()) return fail_form("expected a node or \"}\", got the end of the line");
      std::size_t n = 0;
      if (!node(n)) return false;
      for (std::size_t seen : out) {
        if (seen == n) return fail(std::string(what) + " names n" + std::to_string(n) + " twice");
      }
      out.push_back(n);
    }
    ++next_;
    if (out.empty()) return fail(std::string(what) + " side is empty; name at least one node");
    if (out.size() == nodes_) {
      return fail(std::string(what) + " side holds every node, so it cuts nothing; leave at least one out");
    }
    return true;
  }

  bool duration(Duration& out) {
    if (at_end()) return fail_form("expected a duration such as 5.250s or 3000ms, got the end of the line");
    std::string why;
    const std::optional<Duration> d = parse_duration(take(), why);
    if (!d) return fail_form(why);
    out = *d;
    return true;
  }

  bool positive_duration(Duration& out, std::string_view what) {
    if (!duration(out)) return false;
    if (out <= Duration::zero()) return fail(std::string(what) + " must be longer than 0ms");
    return true;
  }

  // "<n><suffix>", as "2000/s" or "1024B"; `what` names it in errors.
  bool suffixed(std::uint32_t& out, std::string_view suffix, std::string_view example, std::string_view what) {
    const std::string_view text = peek();
    if (at_end() || !text.ends_with(suffix) || !all_digits(text.substr(0, text.size() - suffix.size()))) {
      return fail_form("expected " + std::string(what) + " such as " + std::string(example) + ", got " + got());
    }
    take();
    const auto n = parse_number<std::uint32_t>(text.substr(0, text.size() - suffix.size()));
    if (!n) {
      return fail(std::string(what) + " " + quoted(text) + " is too large (at most " +
                  std::to_string(std::numeric_limits<std::uint32_t>::max()) + ")");
    }
    out = *n;
    return true;
  }

  bool rate(std::uint32_t& out, std::string_view kind) {
    if (!suffixed(out, "/s", "2000/s", "a rate")) return false;
    if (out == 0) return fail(std::string(kind) + " rate must be at least 1/s");
    return true;
  }

  template <typename T>
  bool number(T& out, std::string_view what) {
    bool too_large = false;
    const std::optional<T> n = parse_number<T>(peek(), &too_large);
    if (at_end() || !n) {
      if (too_large) return fail(std::string(what) + " " + got() + " is too large");
      return fail_form("expected a whole number for " + std::string(what) + ", got " + got());
    }
    take();
    out = *n;
    return true;
  }

 private:
  std::vector<std::string_view> tokens_;
  std::size_t next_ = 0;
  std::size_t nodes_;
};

bool parse_header(LineReader& r, Scenario& s) {
  r.form = kHeaderForm;
  if (!r.word("seed") || !r.number(s.seed, "seed") || !r.word("nodes") || !r.number(s.nodes, "nodes")) return false;
  if (s.nodes < 2 || s.nodes > kMaxNodes) {
    return r.fail("nodes must be 2.." + std::to_string(kMaxNodes) + ", got " + std::to_string(s.nodes));
  }
  return r.word("chaos") && r.positive_duration(s.chaos, "chaos") && r.word("heal") &&
         r.positive_duration(s.heal, "heal") && r.finish();
}

bool parse_network(LineReader& r, NetworkModel& n) {
  r.form = kNetworkForm;
  if (!r.word("network")) return false;
  bool seen[5] = {};
  constexpr std::string_view keys[5] = {"floor", "tail", "chunks", "bandwidth", "window"};
  while (!r.at_end()) {
    const std::string_view key = r.take();
    std::size_t k = 0;
    while (k < 5 && keys[k] != key) ++k;
    if (k == 5) {
      return r.fail_form("unknown network key " + quoted(key) + "; expected floor, tail, chunks, bandwidth or window");
    }
    if (seen[k]) return r.fail("network key " + quoted(key) + " is given twice");
    seen[k] = true;
    switch (k) {
      case 0:
        if (!r.duration(n.latency_floor)) return false;
        if (n.latency_floor < Duration::zero()) return r.fail("floor must not be negative");
        break;
      case 1:
        if (!r.duration(n.latency_tail_mean)) return false;
        if (n.latency_tail_mean < Duration::zero()) return r.fail("tail must not be negative");
        break;
      case 2:
        if (!r.number(n.max_chunks, "chunks")) return false;
        if (n.max_chunks < 1) return r.fail("chunks must be at least 1 (1: never split)");
        break;
      case 3:
        if (!r.number(n.bandwidth, "bandwidth")) return false;
        if (n.bandwidth < 1) return r.fail("bandwidth must be at least 1 byte/s");
        break;
      default:
        if (!r.number(n.window, "window")) return false;
        if (n.window < 1) return r.fail("window must be at least 1 byte");
        break;
    }
  }
  return true;
}

bool parse_death(LineReader& r, Fault& f, std::string_view kind) {
  r.form = "at <time> " + std::string(kind) + (kind == "restart" ? " nN [fresh]" : " nN");
  f.kind = kind == "crash"   ? Fault::Kind::crash
           : kind == "lose"  ? Fault::Kind::lose
           : kind == "leave" ? Fault::Kind::leave
                             : Fault::Kind::restart;
  if (!r.node_into(f.nodes)) return false;
  if (f.kind == Fault::Kind::restart && r.peek() == "fresh") {
    r.take();
    f.fresh = true;
  }
  return r.finish();
}

bool parse_pause(LineReader& r, Fault& f) {
  r.form = "at <time> pause nN for <duration>";
  f.kind = Fault::Kind::pause;
  return r.node_into(f.nodes) && r.word("for") && r.duration(f.length) && r.finish();
}

bool parse_cut(LineReader& r, Fault& f) {
  r.form = "at <time> cut nA nB (both ways) or at <time> cut nA -> nB (one way)";
  f.kind = Fault::Kind::cut;
  if (!r.node_into(f.nodes)) return false;
  if (r.peek() == "->") {
    r.take();
    f.kind = Fault::Kind::cut_one_way;
  }
  if (!r.node_into(f.nodes)) return false;
  if (f.nodes[0] == f.nodes[1]) {
    return r.fail("a cut needs two different nodes, got n" + std::to_string(f.nodes[0]) + " twice");
  }
  return r.finish();
}

bool parse_partition(LineReader& r, Fault& f) {
  r.form = "at <time> partition { nA nB ... }";
  f.kind = Fault::Kind::partition;
  return r.side(f.nodes, "partition") && r.finish();
}

bool parse_flap(LineReader& r, Fault& f) {
  r.form = "at <time> flap { nA nB ... } every <duration> for <duration>";
  f.kind = Fault::Kind::flap;
  return r.side(f.nodes, "flap") && r.word("every") && r.positive_duration(f.period, "flap period") &&
         r.word("for") && r.duration(f.length) && r.finish();
}

bool parse_spike(LineReader& r, Fault& f) {
  r.form = "at <time> spike +<duration> for <duration>";
  f.kind = Fault::Kind::spike;
  if (r.at_end()) return r.fail_form("expected the extra latency such as +50ms, got the end of the line");
  if (r.peek() == "+") r.take();  // "+ 50ms" as well as "+50ms"
  const std::string_view extra = r.take();
  std::string why;
  const std::optional<Duration> d = parse_duration(extra.starts_with('+') ? extra.substr(1) : extra, why);
  if (!d) return r.fail_form(why);
  f.extra = *d;
  return r.word("for") && r.duration(f.length) && r.finish();
}

bool parse_flood(LineReader& r, Fault& f) {
  r.form = "at <time> flood nA -> nB <rate>/s <bytes>B for <duration>";
  f.kind = Fault::Kind::flood;
  return r.node_into(f.nodes) && r.word("->") && r.node_into(f.nodes) && r.rate(f.rate, "flood") &&
         r.suffixed(f.bytes, "B", "1024B", "a message size") && r.word("for") && r.duration(f.length) &&
         r.finish();
}

bool parse_asks(LineReader& r, Fault& f) {
  r.form = "at <time> asks nA -> nB <rate>/s timeout <duration> for <duration>";
  f.kind = Fault::Kind::asks;
  return r.node_into(f.nodes) && r.word("->") && r.node_into(f.nodes) && r.rate(f.rate, "asks") &&
         r.word("timeout") && r.positive_duration(f.extra, "ask timeout") && r.word("for") &&
         r.duration(f.length) && r.finish();
}

bool parse_damage(LineReader& r, Fault& f, std::string_view kind) {
  r.form = "at <time> " + std::string(kind) + " nA -> nB";
  f.kind = kind == "truncate" ? Fault::Kind::truncate : Fault::Kind::corrupt;
  if (!(r.node_into(f.nodes) && r.word("->") && r.node_into(f.nodes))) return false;
  if (f.nodes[0] == f.nodes[1]) return r.fail("a stream joins two different nodes, got n" + std::to_string(f.nodes[0]) + " twice");
  return r.finish();
}

bool parse_rogue(LineReader& r, Fault& f) {
  r.form = "at <time> rogue nN garbage|wrong-cluster|keyless-join|fake-members, or rogue nN "
           "stale-incarnation|implausible-incarnation|forged-row|wrong-key|replayed-proof|unproven|"
           "forged-incarnation|forged-leaving|reflected-proof|squat|forged-unreachable|forged-down|far-claim nM";
  f.kind = Fault::Kind::rogue;
  if (!r.node_into(f.nodes)) return false;
  const std::string_view what = r.take();
  const auto* found = std::find_if(std::begin(kRogues), std::end(kRogues),
                                   [&](Fault::Rogue rogue) { return to_string(rogue) == what; });
  if (found == std::end(kRogues)) return r.fail_form("unknown rogue " + quoted(what));
  f.rogue = *found;
  if (names_a_victim(f.rogue)) {
    if (!r.node_into(f.nodes)) return false;
    if (f.nodes[0] == f.nodes[1]) return r.fail("a rogue impersonates another node than the one it dials");
  }
  return r.finish();
}

// The fault after "at <time>", one parser per kind. A length (or a spike's
// extra latency) of 0 is allowed: the fault does nothing, as generate() may
// draw one at the end of the chaos phase. A flap period, an ask timeout and
// a rate must be > 0.
bool parse_fault(LineReader& r, Fault& f) {
  const std::string_view kind = r.take();
  if (kind == "crash" || kind == "lose" || kind == "leave" || kind == "restart") return parse_death(r, f, kind);
  if (kind == "pause") return parse_pause(r, f);
  if (kind == "cut") return parse_cut(r, f);
  if (kind == "partition") return parse_partition(r, f);
  if (kind == "flap") return parse_flap(r, f);
  if (kind == "heal") {
    r.form = "at <time> heal";
    f.kind = Fault::Kind::heal;
    return r.finish();
  }
  if (kind == "spike") return parse_spike(r, f);
  if (kind == "flood") return parse_flood(r, f);
  if (kind == "asks") return parse_asks(r, f);
  if (kind == "truncate" || kind == "corrupt") return parse_damage(r, f, kind);
  if (kind == "rogue") return parse_rogue(r, f);
  if (kind.empty()) return r.fail("expected a fault after the time; one of " + std::string(kFaultNames));
  return r.fail("unknown fault " + quoted(kind) + "; expected one of " + std::string(kFaultNames));
}

bool parse_mutation(LineReader& r, Scenario& s) {
  r.form = "mutation <name>";
  const std::string_view name = r.take();
  if (name.empty()) return r.fail("expected a mutation name; one of " + mutation_list());
  if (!set_mutation(s.mutations, name)) {
    return r.fail("unknown mutation " + quoted(name) + "; expected one of " + mutation_list());
  }
  return r.finish();
}

bool parse_auth(LineReader& r, Scenario& s) {
  r.form = "auth off|shared|rotating";
  const std::string_view mode = r.take();
  const auto* found = std::find_if(std::begin(kAuthModes), std::end(kAuthModes),
                                   [&](AuthMode m) { return to_string(m) == mode; });
  if (found == std::end(kAuthModes)) return r.fail("unknown auth mode " + quoted(mode) + "; expected off, shared or rotating");
  if (!r.finish()) return false;
  s.auth = *found;
  return true;
}

bool parse_tombstone_ttl(LineReader& r, Scenario& s) {
  r.form = "tombstone-ttl <duration>";
  Duration ttl;
  if (!r.duration(ttl)) return false;
  const Duration floor = Config{}.remove_after_down + Duration::seconds(1);
  if (ttl < floor) {
    return r.fail("tombstone-ttl " + seconds_text(ttl) + " is below " + seconds_text(floor) +
                  " (Config::tombstone_ttl must exceed remove_after_down)");
  }
  if (!r.finish()) return false;
  s.tombstone_ttl = ttl;
  return true;
}

bool parse_wall_clock(LineReader& r, Scenario& s) {
  r.form = "wall-clock <skew>";
  Duration skew;
  if (!r.duration(skew) || !r.finish()) return false;
  s.wall_clock_skew = skew;
  return true;
}

bool parse_idle_links(LineReader& r, Scenario& s) {
  r.form = "idle-links <duration>";
  Duration timeout;
  if (!r.duration(timeout)) return false;
  if (timeout < kMinIdleLinks) {
    return r.fail("idle-links " + seconds_text(timeout) + " is below " + seconds_text(kMinIdleLinks) +
                  " (Config::link_idle_timeout must be at least two heartbeat intervals)");
  }
  if (!r.finish()) return false;
  s.link_idle_timeout = timeout;
  return true;
}

bool parse_require(LineReader& r, Scenario& s) {
  r.form = "require <mark>";
  const std::string_view name = r.take();
  if (name.empty()) return r.fail("expected a mark name; one of " + mark_names());
  const std::optional<Mark> mark = mark_from_string(name);
  if (!mark) return r.fail("unknown mark " + quoted(name) + "; expected one of " + mark_names());
  if (!r.finish()) return false;
  s.required_marks.push_back(*mark);
  return true;
}

bool parse_clock(LineReader& r, Scenario& s) {
  r.form = "clock nN <+|-><ppm>ppm";
  std::size_t n = 0;
  if (!r.node(n)) return false;
  const std::string_view drift = r.take();
  std::int32_t ppm = 0;
  const bool shaped = drift.size() > 4 && drift.ends_with("ppm") && (drift[0] == '+' || drift[0] == '-') &&
                      all_digits(drift.substr(1, drift.size() - 4));
  if (!shaped || std::from_chars(drift.data() + 1, drift.data() + drift.size() - 3, ppm).ec != std::errc{}) {
    return r.fail("expected a drift such as +250ppm or -40ppm, got " + quoted(drift));
  }
  if (drift[0] == '-') ppm = -ppm;
  if (ppm <= -100'000 || ppm >= 100'000) {
    return r.fail("clock drift " + quoted(drift) + " is outside -99999..+99999 ppm");
  }
  if (!r.finish()) return false;
  s.clock_ppm.resize(s.nodes, 0);
  s.clock_ppm[n - 1] = ppm;
  return true;
}

bool parse_at(LineReader& r, Scenario& s) {
  r.form = "at <time> <fault> ...";
  Fault f;
  if (!r.duration(f.at)) return false;
  if (f.at < Duration::zero() || f.at > s.chaos) {
    return r.fail("fault at " + seconds_text(f.at) + " is outside the chaos phase (0.." + seconds_text(s.chaos) + ")");
  }
  if (!s.faults.empty() && f.at < s.faults.back().at) {
    return r.fail("faults must be in time order (" + seconds_text(f.at) + " after " +
                  seconds_text(s.faults.back().at) + ")");
  }
  if (!parse_fault(r, f)) return false;
  s.faults.push_back(std::move(f));
  return true;
}

// A line after the network line: a mutation, auth, idle-links,
// tombstone-ttl, wall-clock, require, clock or fault.
bool parse_body_line(LineReader& r, Scenario& s) {
  const std::string_view keyword = r.take();
  if (keyword == "mutation") return parse_mutation(r, s);
  if (keyword == "auth") return parse_auth(r, s);
  if (keyword == "idle-links") return parse_idle_links(r, s);
  if (keyword == "tombstone-ttl") return parse_tombstone_ttl(r, s);
  if (keyword == "wall-clock") return parse_wall_clock(r, s);
  if (keyword == "require") return parse_require(r, s);
  if (keyword == "clock") return parse_clock(r, s);
  if (keyword == "at") return parse_at(r, s);
  if (keyword == "seed" || keyword == "network") {
    return r.fail("a second " + std::string(keyword) + " line; a scenario has one, at the top");
  }
  return r.fail("unknown line starting " + quoted(keyword) +
                "; expected \"mutation <name>\", \"auth <mode>\", \"idle-links <duration>\", \"tombstone-ttl <duration>\", \"wall-clock <skew>\", \"require <mark>\", "
                "\"clock nN +250ppm\" or \"at <time> <fault>\"");
}

ParsedScenario failure(std::size_t line, const std::string& what) {
  return ParsedScenario{std::nullopt, "line " + std::to_string(line) + ": " + what};
}

ParsedScenario failure(std::size_t line, const LineReader& r) {
  std::string what = r.error;
  if (r.show_form && !r.form.empty()) what += "; the form is " + quoted(r.form);
  return failure(line, what);
}

}  // namespace

ParsedScenario parse_scenario(std::string_view text) {
  enum class Stage : std::uint8_t { header, network, body };
  Stage stage = Stage::header;
  Scenario s;
  std::size_t line_number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t newline = text.find('\n', pos);
    std::string_view line = text.substr(pos, newline == std::string_view::npos ? std::string_view::npos : newline - pos);
    pos = newline == std::string_view::npos ? text.size() : newline + 1;
    ++line_number;
    line = line.substr(0, line.find('#'));
    std::vector<std::string_view> tokens = tokenize(line);
    if (tokens.empty()) continue;
    const std::string_view first = tokens[0];
    LineReader r(std::move(tokens), s.nodes);

    switch (stage) {
      case Stage::header:
        if (!parse_header(r, s)) {
          if (first != "seed") {
            return failure(line_number, "a scenario starts with the header " + quoted(kHeaderForm) + ", got " +
                                            quoted(first));
          }
          return failure(line_number, r);
        }
        stage = Stage::network;
        continue;
      case Stage::network:
        if (first != "network") {
          return failure(line_number, "the network line " + quoted(kNetworkForm) +
                                          " must follow the header (keys left out keep their defaults), got " +
                                          quoted(first));
        }
        if (!parse_network(r, s.network)) return failure(line_number, r);
        stage = Stage::body;
        continue;
      case Stage::body:
        if (!parse_body_line(r, s)) return failure(line_number, r);
        continue;
    }
  }
  switch (stage) {
    case Stage::header:
      return failure(line_number + 1, "the scenario is empty; it starts with the header " + quoted(kHeaderForm));
    case Stage::network:
      return failure(line_number + 1, "the network line " + quoted(kNetworkForm) +
                                          " must follow the header (keys left out keep their defaults)");
    case Stage::body: break;
  }
  return ParsedScenario{std::move(s), {}};
}

}  // namespace weft::sim
