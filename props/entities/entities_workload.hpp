// The counter entities (entity_counter.hpp) as a simulator workload: asks
// by identity from every node, with three properties checked after every
// input a node's kernel handles.
//
//   SHARD1  two live nodes whose regions read views with the same members
//           up, at least one, never both host an entity (region.hpp: such
//           views name the same owner, and a region stops an entity the
//           moment its view gives the shard to another node; a view with no
//           member up names no owner, and a region keeps what it has until
//           a view names one);
//   COUNTER for every key: (b) no count, ack or read reports more Adds
//           than were asked for (none applied twice); (a) the one live host
//           of a key holds at least every Add acknowledged in the key's
//           current epoch; (c) a read answered in the epoch it was asked in
//           reports every Add acknowledged in that epoch before it was
//           asked. An epoch ends when a node that hosted the key, or was
//           handed its state and has not started it yet, or handed it and
//           its receiver has not started it yet (a cut link holds it in the
//           sender's buffers: seed 1319), crashes (the count is gone) or when two live nodes host it at once (a
//           split brain, allowed in AP mode between views that disagree:
//           the copy the merged view drops loses its Adds) or when a node
//           starts it while its state is on its way to another node (two
//           views named two owners: two copies again), when a handoff
//           of its shard goes missing (a region counts a timeout, a
//           refusal, a conflict or a state it could not send for that
//           shard: Region::handoffs_missed), when a node starts the key while
//           its last host is alive but down in that node's view (no
//           handoff is taken from a member that is down), when a node
//           starts the key while its state is on its way to another node
//           (views that disagree named two owners: two copies, as two
//           hosts are) or, fresh, while it is on its way to that node from
//           one its region had no cause to await (seed 731), or when a view places the key on
//           a member no process runs (an invented member taken up, in
//           hostile seeds: the state sent there is gone); an Add counts for
//           the epoch it was asked in;
//   ORDER   no entity sees one client's Adds out of the order the client
//           sent them (a client is one life of one node's kernel: a
//           rejoin after a down is a new one), handoffs
//           included, unless the key's epoch ended after the late Add was
//           asked (two copies saw the client's Adds: their order is not
//           kept when one copy's state replaces the other's).
//   SHARD2  (the majority mode) no two live nodes hold a lease on one shard
//           at any instant, each judged on its own clock: a node holds one
//           from the votes it has received, whatever its view (pauses and
//           clock drift included: a paused node's lease runs out on its
//           clock meanwhile). There, a key is hosted on a node that holds
//           its shard's lease, and an entity stopped when its lease ran
//           out ends its shard's keys' epochs, as a missed handoff does (its
//           state is gone by design).
//   REBALANCE no region places keys by a view its node's kernel has left
//           for more than a second (placement follows membership: views
//           that agree place alike, H1), and a key's placement is never
//           unsettled (below) for longer than T_rebalance once no fault
//           has been under way for T_rebalance: T_converge or T_vouch
//           (invented members linger until downed), whichever is longer,
//           plus handoff_timeout, plus a second; in the majority mode also
//           plus a started voter's quiet, an eighth of the lease (the next
//           round of vote requests) and a second, judged while more than
//           half of the voters run. A fault is under way from
//           its start to its end (a cut or a partition to the next heal);
//           generated runs seldom stay quiet that long, so the first half
//           is the one most runs judge (shard_ignore_joins: a region that
//           reads no view that only adds members).
// Traffic: Adds and Gets at `operations_per_second` client steps from
// random nodes, through each node's own region: Gets and most Adds by
// shard::ask, with a timeout, tell_percent of the Adds by shard::tell; a
// quarter of the steps send a burst of 2 to 4 operations at once (tells to
// one owner then share a batch, and asks follow tells of the same client).
//
// Measured (the summary line; tools/measure_entities.py runs it over seeds):
//   two hosts   each interval a key was hosted on two live nodes at once
//               (AP's duplicate window);
//   settling    each interval a key's placement was unsettled: the live
//               nodes' regions named different owners, or the owner they
//               named was not alive or did not serve it yet (it awaited a
//               handoff). After a crash this is the time until every live
//               node routes the key to its new owner, ready: T_rebalance.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernel/prng.hpp"
#include "props/entities/entity_counter.hpp"
#include "shard/region.hpp"
#include "sim/workload.hpp"

namespace weft::entities {

struct EntitiesWorkloadOptions {
  std::uint64_t keys = 24;
  std::uint32_t operations_per_second = 60;
  std::uint32_t read_percent = 10;
  std::uint32_t tell_percent = 30;  // of the Adds, sent as tells (no answer)
  Duration ask_timeout = Duration::seconds(3);
  // Which counter kind it drives: kKind, or kMajorityKind with SHARD2.
  shard::Consistency consistency = shard::Consistency::available;
};

class EntitiesWorkload final : public sim::Workload {
 public:
  explicit EntitiesWorkload(EntitiesWorkloadOptions options = {}) : options_(options) {}

  void begin(sim::Simulator& sim, const sim::Scenario& scenario) override;
  void on_start(std::size_t node, Kernel& kernel, Instant now) override;
  void on_event(std::size_t node, const Event& event) override;
  void after_input(std::size_t node, const Kernel& kernel) override;
  void check(const sim::Simulator& sim, std::vector<std::string>& failures) override;
  void finish(const sim::Simulator& sim, std::vector<std::string>& failures) override;
  std::string summary() const override;

 private:
  struct Pending {
    bool add = true;
    std::uint64_t key = 0;
    std::uint64_t epoch = 0;
    std::uint64_t acked_before = 0;  // Gets: Adds acknowledged in the epoch when asked
  };
  struct Node {
    const shard::Region* region = nullptr;  // owned by the node's kernel; valid while it is alive
    std::set<std::uint64_t> hosted;         // keys active there after its last input
    Instant started;                        // its current life's start, on its clock
    std::uint64_t incarnation = 0;          // its kernel's life when it last sent
    std::uint32_t sender_lives = 0;         // kernel lives it sent from: a client is one
    std::optional<Instant> lagging_since;   // its region has not read its kernel's view since
    // Whether it lags, judged at the region's views_read and the kernel
    // table's digest (kJudgeAgain: not judged in this life yet).
    std::uint64_t judged_views = kJudgeAgain;
    std::uint64_t judged_digest = 0;
    bool judged_lags = false;
    std::size_t judged_up = 0;  // the members up, for the failure line
    bool lag_reported = false;
    // Per key, the node its region's last view names the owner (0: none,
    // kInvented: a member no process runs), read again only when the
    // region reads a new view: the checks after every input compare these.
    std::vector<std::size_t> owner_node;
    std::uint64_t owners_from_view = 0;  // the region's views_read() they were read at; 0: never
    std::uint64_t missed_seen = 0;                // its region's handoffs missed, in all, as last seen
    std::vector<std::uint64_t> missed_by_shard;  // and per shard
  };
  static constexpr std::size_t kInvented = static_cast<std::size_t>(-1);
  static constexpr std::uint64_t kJudgeAgain = UINT64_MAX;
  struct Key {
    std::uint64_t epoch = 0;
    std::uint64_t attempted = 0;  // Adds asked, all epochs
    std::uint64_t acked = 0;      // Adds acknowledged that were asked in this epoch
    std::uint64_t epochs_ended = 0;
  };

  void client_step();
  void schedule_next();
  void end_epoch(std::uint64_t key);
  void settle_crashes();
  bool read_owners(Node& state);  // false: its owners were read from this view already
  void check_key(std::uint64_t key, const std::vector<std::size_t>& hosts);
  void check_leases(std::size_t node);
  void note_faults(const sim::Scenario& scenario);
  void judge_rebalance(std::uint64_t key, Instant since);
  void judge_region_view(std::size_t node, const Kernel& kernel);
  bool majority() const { return options_.consistency == shard::Consistency::majority; }
  void measure(std::uint64_t key, std::size_t live_hosts);
  void agree_owners();
  bool voters_running();  // cached per owners_generation_ (regions come and go with it)
  void started_on(std::size_t node, const Kernel& kernel, std::uint64_t key);
  void settle_in_flight();
  void judge_order(std::size_t node, std::uint64_t key, const std::vector<OrderBreak>& breaks);
  // A failure line: "PROPERTY: [kind] what". Both workloads run in one
  // simulation and count keys by the same numbers; the kind says whose.
  void fail(std::string_view property, const std::string& what);
  std::uint64_t count_on(std::size_t node, std::uint64_t key) const;

  EntitiesWorkloadOptions options_;
  sim::Simulator* sim_ = nullptr;
  Prng prng_{0};
  std::vector<Node> nodes_;  // index node - 1
  std::vector<Key> keys_;
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::uint64_t> next_seq_;  // (client, key)
  std::map<std::pair<std::size_t, AskId>, Pending> pending_;
  std::vector<std::string> reported_;
  std::set<std::string> reported_once_;  // every line fail() has reported
  std::uint64_t adds_ = 0, told_ = 0, acked_total_ = 0, gets_ = 0, gets_answered_ = 0, not_run_ = 0;
  std::uint64_t split_epochs_ = 0, crash_epochs_ = 0, phantom_epochs_ = 0;
  std::vector<std::string> key_names_;  // the keys as entity keys
  std::vector<shard::ShardId> key_shards_;  // their shards, computed once (a hash per key per input was most of a run)
  std::vector<std::vector<std::size_t>> key_hosts_;  // per key, the nodes hosting it: rebuilt after every input
  std::string kind_;                     // the counter kind it drives
  std::uint64_t lease_checks_ = 0;       // SHARD2: (input, shard) pairs where the input's node held the lease
  // The majority mode can answer only while a majority of the voters (here
  // every node) run and are past a started voter's quiet: whether that
  // lasted long enough to ask, once in the run.
  bool majority_could_serve_ = false;
  // REBALANCE: when faults were under way (absolute, from the scenario),
  // the bound (from the first kernel's config), and when the last ended.
  std::vector<std::pair<Instant, Instant>> busy_;
  Duration rebalance_bound_ = Duration::zero();
  Instant quiet_since_;
  std::vector<std::optional<Instant>> rebalance_since_;  // per key, unsettled since (boot included)
  std::set<std::pair<std::uint64_t, std::int64_t>> rebalance_reported_;  // (key, unsettled since)
  std::vector<std::optional<Instant>> two_hosts_since_, unsettled_since_;  // per key, while it lasts
  std::vector<Duration> two_host_windows_, settle_intervals_;
  std::vector<bool> settled_once_;  // per key
  // Moves on when a region reads a view (read_owners) or stops (a crash):
  // what agree_owners derives from the nodes' owners is read again then.
  std::uint64_t owners_generation_ = 1;
  std::uint64_t stops_seen_ = 0;  // Simulator::stops() when settle_crashes last looked
  std::uint64_t voters_at_ = 0;
  bool voters_running_ = false;
  std::uint64_t agreed_at_ = 0;
  struct Agreed {
    bool settled = true;    // every live region names the same owner (or none is live)
    std::size_t owner = 0;  // that owner (0: none)
  };
  std::vector<Agreed> agreed_;
  std::map<std::string, std::uint64_t> failed_;  // outcomes and refusals that got no Value
  std::set<std::tuple<std::uint64_t, std::uint32_t, std::uint64_t>> order_judged_;  // (key, client, seq)
  std::map<std::tuple<std::uint32_t, std::uint64_t, std::uint64_t>, std::uint64_t> sent_epoch_;  // (client, key, seq)
  std::uint64_t order_exempt_ = 0;
  std::uint64_t down_owner_epochs_ = 0;
  std::map<std::uint64_t, std::size_t> last_host_;  // per key, the node that last stopped hosting it
  struct InFlight {
    std::size_t to = 0;    // the node it was handed to (0: none a process runs)
    std::size_t from = 0;  // the node that handed it
  };
  std::map<std::uint64_t, InFlight> in_flight_;  // per key, its state handed on, until a node hosts it
};

}  // namespace weft::entities
