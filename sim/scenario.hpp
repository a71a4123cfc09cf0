// A simulation scenario as plain data: cluster size, network, and a fault
// schedule, with a readable one-line-per-fault text form. generate() draws
// one from a seed alone (swarm testing: each fault kind is on or off, and
// heavy or light, per seed); run() plays it in two phases, as VOPR does:
// chaos (faults active, safety checked throughout) then heal (faults end,
// and liveness is required within the bounds of compute_bounds).
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string_view>
#include <cstdint>
#include <string>
#include <vector>

#include "kernel/time.hpp"
#include "sim/checkers.hpp"
#include "sim/simulator.hpp"
#include "sim/workload.hpp"

namespace weft::sim {

struct Fault {
  enum class Kind : std::uint8_t {
    crash,        // nodes[0]'s process dies: its connections close at once
    lose,         // nodes[0]'s host is lost: its connections go silent, dials time out
    restart,      // nodes[0] starts again with a newer incarnation
    pause,        // nodes[0] handles nothing for `length`, then its clock jumps
    cut,          // the link nodes[0] <-> nodes[1] holds its bytes, both ways
    cut_one_way,  // only nodes[0] -> nodes[1]
    partition,    // `nodes` cut from the rest, both ways
    flap,         // `nodes` cut from the rest and rejoined every `period`, for `length`
    heal,         // every cut restored
    spike,        // every frame sent during `length` takes `extra` longer
    flood,        // actor on nodes[0] tells one on nodes[1] `rate` messages/s of
                  // `bytes` body bytes, for `length`
    asks,         // actor on nodes[0] asks one on nodes[1] `rate` times/s, each
                  // with timeout `extra`, for `length`
    truncate,     // the next write nodes[0] -> nodes[1] stops two bytes into its
                  // frame and the connection is reset: the reader holds half a frame
    corrupt,      // the next write nodes[0] -> nodes[1] claims a 4 GiB frame:
                  // the reader must close that link, and only it
    rogue,        // a peer that is no node dials nodes[0] and sends `rogue`
    // nodes[0] leaves gracefully (Kernel::leave: leaving, exiting, removed)
    // and its process exits once its kernel has shut down, as weftd does
    // (Simulator::leave). Scenario files only: no generated seed draws it.
    leave,
  };
  // What a rogue peer sends (W3: refused with a counted reason, or its
  // records refused, and no honest view harmed).
  enum class Rogue : std::uint8_t {
    garbage,                  // random bytes
    wrong_cluster,            // a hello naming another cluster
    stale_incarnation,        // a hello as nodes[1] with an older incarnation than known
    implausible_incarnation,  // a hello as nodes[1], 2^41 incarnations ahead (memberlist#358)
    forged_row,               // a stranger's hello, then gossip claiming nodes[1] down 2^41 lives on
    wrong_key,                // a handshake as nodes[1], its proof made with another key
    replayed_proof,           // nodes[1]'s hello and proof recorded from its last link to nodes[0]
    unproven,                 // a hello as nodes[1], then gossip without the proof
    // W4: an insider's gossip past the handshake, claiming of nodes[1] what
    // only nodes[1] may say; nodes[0] takes it (it is plausible), and
    // nodes[1] must refute it within T_refute.
    forged_incarnation,       // nodes[1] live in a newer life, a few to 2^20 lives on
    forged_leaving,           // nodes[1] leaving in its current life, never asked
    // Last, so the generator's draws (kind - 2 over the kinds above) keep
    // their meaning: only scenario files play it.
    reflected_proof,          // a handshake as nodes[1] whose proof is the node's own, sent back
    // A stranger's hello naming an address where no node is, and a Join:
    // without a key the node must not take the address into its table nor
    // answer there (it dials back first); with one, refused unproven.
    keyless_join,
    // Gossip claiming nodes[1], whose address the node holds nothing of
    // (not started yet), live at incarnation 2^62: refused as implausible
    // against the newest life the node knows, so nodes[1] joins when it
    // starts (issue 43, case 3). Scenario files only.
    squat,
    // W5: an insider's gossip inventing 50 to 1000 members, joining and up,
    // some below every node's address (the leader's election) and some above.
    fake_members,
    // W4: an insider's gossip holding a reachability row under a third
    // member's name (its observer) that claims nodes[1] unreachable; the
    // observer must refute it, and nodes[1] must not be downed for it.
    forged_unreachable,
    // W4: an insider's gossip claiming nodes[1] down in the life the target
    // holds live, with no row behind it: the target holds it for nodes[1]
    // to refute (kernel/membership/down_claims.hpp), and no node holds it
    // down meanwhile.
    forged_down,
    // W4: an insider's gossip claiming nodes[1] live 2^30 lives above the
    // target's clock ceiling (with `wall-clock`; else above its known
    // life): refused as above the clock, so nodes[1] never climbs to it.
    // Scenario files only.
    far_claim,
  };
  Kind kind = Kind::crash;
  Duration at;                     // from the start of the run
  std::vector<std::size_t> nodes;  // 1-based node numbers, as above
  Duration length;
  Duration period;
  Duration extra;
  std::uint32_t rate = 0;
  std::uint32_t bytes = 0;
  Rogue rogue = Rogue::garbage;
  bool fresh = false;  // restart: a life above the earlier starts only (Simulator::restart)

  friend bool operator==(const Fault&, const Fault&) = default;
};

// Whether the nodes share a secret (Config::auth): not at all, one key, or
// two keys mid-rotation (half the nodes sign with the new one, all accept both).
enum class AuthMode : std::uint8_t { off, shared, rotating };

struct Scenario {
  std::uint64_t seed = 1;
  std::size_t nodes = 5;
  Duration chaos = Duration::seconds(30);
  Duration heal = Duration::seconds(40);  // at least T_heal for the cluster size
  NetworkModel network;
  Mutations mutations;             // planted defects (tests and --mutation only)
  AuthMode auth = AuthMode::off;
  // Config::link_idle_timeout when set: short enough, in a third of the
  // generated seeds, that links close and reopen under the faults.
  std::optional<Duration> link_idle_timeout;
  // Config::tombstone_ttl when set (scenario files only: generated seeds
  // keep the 1 h default, which no run reaches), so a run sees tombstones
  // dropped (M8).
  std::optional<Duration> tombstone_ttl;
  // Set (scenario files only: `wall-clock <skew>`): incarnations are start
  // times in ms and a life above a node's clock plus this skew is refused
  // (SimOptions::wall_clock_skew; kernel/membership/life_ceiling.hpp).
  std::optional<Duration> wall_clock_skew;
  std::vector<Mark> required_marks;  // the run fails unless each is hit
  // Clock drift per node, parts per million (index node - 1; empty: none).
  // A node at +500 sees 1.0005 s pass per simulated second.
  std::vector<std::int32_t> clock_ppm;
  std::vector<Fault> faults;       // sorted by time, all inside the chaos phase

  // One header line, one network line, then a line per mutation, required
  // mark and fault; parse_scenario() reads it back exactly.
  std::string to_text() const;
  friend bool operator==(const Scenario&, const Scenario&) = default;
};

struct ParsedScenario {
  std::optional<Scenario> scenario;
  std::string error;  // "line N: what is wrong; what was expected", when not parsed
};
ParsedScenario parse_scenario(std::string_view text);

// The mutation names of Config::mutations, for --mutation and scenario files.
std::span<const std::string_view> mutation_names();
// What each mutation must be caught by: the property whose checker reports
// it (a failure line starts "F5: "), and words of that checker's report that
// name the branch (several branches of one property report differently).
struct MutationTarget {
  std::string_view name;
  std::string_view property;
  std::string_view branch;
  // Set when no generated seed plays the attack the defect opens: the file
  // in tests/sim_scenarios/ that does (its CTest sim_catches_<name> shows
  // the defect caught there). `weft-sim mutations` does not sweep it.
  std::string_view scenario_only = {};
};
std::span<const MutationTarget> mutation_targets();
std::string_view to_string(Fault::Rogue rogue);
std::string_view to_string(AuthMode mode);
// The keys `node` holds in a scenario with `mode`, drawn from `seed`;
// rotating, nodes whose host ends in an even digit sign with the new key.
Authentication scenario_auth(AuthMode mode, std::uint64_t seed, const NodeAddress& node);
// Sets the named mutation; false if there is no such name.
bool set_mutation(Mutations& mutations, std::string_view name);

// The family of schedules a seed draws from: one seed in ten each for a
// family where one timed check applies cleanly, the rest mixed.
enum class Family : std::uint8_t {
  mixed,        // every kind of fault, each on or off and heavy or light (swarm testing)
  clean_crash,  // crashes or host losses with nothing else within T_down: F1's timed check
  clean_pause,  // pauses one at a time, short and long: F3
  flood_only,   // every node floods another, often on slow links: F2
  broken_link,  // one link cut between healthy nodes, often beside a flood: F4
  hostile,      // rogue peers, corrupted and truncated streams beside traffic: W3
  boot_together,    // groups of nodes that start at one instant, nothing else: M6 at T_boot
  clean_partition,  // one long partition, then its heal, nothing else: F1 at T_down_partition, M5 at T_merge
};
std::string_view to_string(Family family);
Family family_of(std::uint64_t seed);

// A scenario drawn from `seed` alone.
Scenario generate(std::uint64_t seed, std::size_t nodes, Duration chaos);

// Shrinking (delta debugging): `s` with fewer faults, largest cuts first
// (halves, then quarters, ... then single faults; none when one is left).
// rapidcheck's shrinker (props/sim_props.cpp) and `weft-sim shrink` both try
// these in order and keep the first that still fails the same way.
std::vector<Scenario> smaller_schedules(const Scenario& s);

// Exit codes of weft-sim too; a kernel assertion aborts instead (134).
enum class Verdict : std::uint8_t { pass = 0, safety_failure = 10, liveness_failure = 20, coverage_failure = 30 };

struct RunResult {
  Verdict verdict = Verdict::pass;
  std::vector<std::string> failures;  // one line per violated property
  std::uint64_t trace_hash = 0;
  std::uint64_t events = 0;
  Duration simulated;  // virtual time the run lasted: chaos, then the heal until it held or failed
  std::vector<TraceLine> timeline;
  // Each live node's final view, one line per node (for reading failures).
  std::vector<std::string> final_views;
  std::vector<std::string> summaries;  // one line per workload
  std::optional<Duration> healed_after;  // one view this long after the heal
  // Coverage marks (kernel/events.hpp Mark) summed over the nodes alive at
  // the end (a crashed life's counts go with it).
  std::array<std::uint64_t, kMarkCount> marks{};
  // What each check judged (sim/checkers.hpp Check).
  Judged judged{};
};

// Plays the scenario: the faults during chaos with safety checks after every
// event, then heals everything and requires one view within the heal phase.
// `workloads` add traffic and their own checks to the standard traffic
// workload (floods and asks of the scenario, with S1, S2 and S4).
RunResult run(const Scenario& scenario, const std::function<void(const TraceLine&)>& trace_sink = {},
              std::span<Workload* const> workloads = {});

}  // namespace weft::sim
