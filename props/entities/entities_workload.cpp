#include "props/entities/entities_workload.hpp"

#include <algorithm>
#include <memory>

#include "kernel/config.hpp"
#include "props/entities/entity_counter.hpp"
#include "shard/entity_ref.hpp"
#include "sim/scenario.hpp"
#include "sim/simulator.hpp"

namespace weft::entities {
namespace {

constexpr std::uint64_t kPrngStream = 0xE17171E5;
// How long a region may place keys by a view its kernel has left: the
// members_changed is queued at once and handled on the kernel's next
// dispatch, so a tick, or a round of a busy mailbox.
constexpr Duration kViewLag = Duration::seconds(1);

std::string n(std::size_t node) {
  std::string name = "n";
  name += std::to_string(node);
  return name;
}

// Handoffs that did not arrive whole, and entities stopped when their lease
// ran out, on one region: the state they carried is gone, as after a crash.
std::uint64_t handoffs_missed(const shard::Region& region) {
  const shard::RegionCounters& c = region.counters();
  return c.handoff_timeouts + c.handoff_lost + c.handoff_refused + c.handoff_conflicts + c.lapsed;
}

}  // namespace

void EntitiesWorkload::begin(sim::Simulator& sim, const sim::Scenario& scenario) {
  sim_ = &sim;
  kind_ = std::string(majority() ? kMajorityKind : kKind);
  prng_ = Prng::derive(scenario.seed, kPrngStream);
  nodes_.resize(sim.size());
  keys_.assign(options_.keys, Key{});
  key_hosts_.assign(options_.keys, {});
  rebalance_since_.assign(options_.keys, std::nullopt);
  two_hosts_since_.assign(options_.keys, std::nullopt);
  unsettled_since_.assign(options_.keys, std::nullopt);
  settled_once_.assign(options_.keys, false);
  note_faults(scenario);
  for (std::uint64_t key = 0; key < options_.keys; ++key) {
    key_names_.push_back(std::to_string(key));
    key_shards_.push_back(shard::shard_of(kind_, key_names_.back(), counter_kind(options_.consistency).shards));
  }
  // The nodes booted before this: measure() reads every live node's owners.
  for (Node& state : nodes_) {
    if (state.region != nullptr) read_owners(state);
  }
  schedule_next();
}

// When each fault is under way, for REBALANCE: a lasting fault to its end, a
// cut or a partition to the next heal (or the end of the chaos phase, where
// the run heals everything), an instant one at its instant.
void EntitiesWorkload::note_faults(const sim::Scenario& scenario) {
  const Instant start = sim_->now();
  for (std::size_t i = 0; i < scenario.faults.size(); ++i) {
    const sim::Fault& f = scenario.faults[i];
    Instant end = start + f.at + f.length;
    using Kind = sim::Fault::Kind;
    if (f.kind == Kind::cut || f.kind == Kind::cut_one_way || f.kind == Kind::partition) {
      end = start + scenario.chaos;
      for (std::size_t j = i + 1; j < scenario.faults.size(); ++j) {
        if (scenario.faults[j].kind == Kind::heal) {
          end = start + scenario.faults[j].at;
          break;
        }
      }
    }
    busy_.emplace_back(start + f.at, end);
  }
}

void EntitiesWorkload::on_start(std::size_t node, Kernel& kernel, Instant now) {
  if (nodes_.size() < node) nodes_.resize(node);
  settle_crashes();
  Node& state = nodes_[node - 1];
  state.started = now;
  const std::string kind = std::string(majority() ? kMajorityKind : kKind);  // before begin() too
  state.region = dynamic_cast<const shard::Region*>(kernel.behavior(shard::region_name(kind)));
  state.owners_from_view = 0;
  state.judged_views = kJudgeAgain;
  if (sim_ != nullptr && state.region != nullptr) read_owners(state);  // measure() reads every live node's
  state.missed_seen = 0;  // a new region counts from 0
  state.missed_by_shard.clear();
  if (state.region == nullptr) {
    fail("SHARD1", n(node) + " started without a region of kind " + kind +
                        " (run this workload with the entities application's actors)");
  }
  std::erase_if(pending_, [&](const auto& entry) { return entry.first.first == node; });
}

void EntitiesWorkload::schedule_next() {
  const Duration mean = Duration::nanoseconds(1'000'000'000 / options_.operations_per_second);
  sim_->call_at(sim_->now() + prng_.exponential(mean), [this] { client_step(); });
}

void EntitiesWorkload::client_step() {
  const std::size_t from = static_cast<std::size_t>(prng_.below(nodes_.size())) + 1;
  // Most steps send one operation; a quarter send a burst of 2 to 4 from
  // one node in one dispatch step, half of them to the key before: tells
  // to one owner then share a batch, and an ask follows tells it must not
  // overtake (shard/entity_batch.hpp).
  const std::uint64_t burst = prng_.below(4) == 0 ? 2 + prng_.below(3) : 1;
  std::uint64_t next_key = prng_.below(options_.keys);
  enum class Op : std::uint8_t { get, ask_add, tell_add };
  std::vector<std::pair<std::uint64_t, Op>> operations;  // (key, what)
  for (std::uint64_t i = 0; i < burst; ++i) {
    if (i > 0 && prng_.below(2) == 0) next_key = prng_.below(options_.keys);
    const bool add = prng_.below(100) >= options_.read_percent;
    const bool told = add && prng_.below(100) < options_.tell_percent;
    operations.emplace_back(next_key, add ? (told ? Op::tell_add : Op::ask_add) : Op::get);
  }
  const bool ran = sim_->command(from, [&](Kernel& kernel, Instant now) {
    // A client is one life of the node's kernel: a node downed and
    // rejoined takes a new incarnation without restarting, and its region
    // stamps it as a new source, whose order starts afresh (shard_inbox.hpp).
    Node& sender = nodes_[from - 1];
    if (kernel.self().incarnation.value != sender.incarnation) {
      sender.incarnation = kernel.self().incarnation.value;
      ++sender.sender_lives;
    }
    const auto client = static_cast<std::uint32_t>((from << 16) | (sender.sender_lives & 0xffff));
    for (const auto& [key, op] : operations) {
      const shard::EntityRef ref{kind_, std::to_string(key)};
      Key& k = keys_[key];
      if (op == Op::get) {
        const AskId id =
            shard::ask(kernel, now, ref, Protocol::tag<Get>, Protocol::encode(Get{key}), options_.ask_timeout);
        ++gets_;
        pending_[{from, id}] = Pending{false, key, k.epoch, k.acked};
        continue;
      }
      const std::uint64_t seq = ++next_seq_[{client, key}];
      sent_epoch_[{client, key, seq}] = k.epoch;
      ++k.attempted;
      if (op == Op::tell_add) {
        // Acknowledged by no one: counted among the Adds asked for (no count
        // may pass them), ordered with the client's others (ORDER).
        (void)shard::tell(kernel, now, ref, Protocol::tag<Add>, Protocol::encode(Add{key, client, seq}));
        ++told_;
        continue;
      }
      const AskId id = shard::ask(kernel, now, ref, Protocol::tag<Add>, Protocol::encode(Add{key, client, seq}),
                                  options_.ask_timeout);
      ++adds_;
      pending_[{from, id}] = Pending{true, key, k.epoch, k.acked};
    }
  });
  if (!ran) ++not_run_;
  schedule_next();
}

void EntitiesWorkload::on_event(std::size_t node, const Event& event) {
  const auto* done = std::get_if<AskCompleted>(&event);
  if (done == nullptr) return;
  const auto it = pending_.find({node, done->id});
  if (it == pending_.end()) return;
  const Pending ask = it->second;
  pending_.erase(it);
  if (done->outcome != AskOutcome::reply) {
    ++failed_[std::string(to_string(done->outcome))];
    return;
  }
  if (done->type_tag == shard::kRefusedTag) {
    ++failed_["refused " + std::string(done->body.begin(), done->body.end())];
    return;
  }
  const typed::Decoded<Value> value = Protocol::decode<Value>(done->type_tag, done->body);
  if (!value || value->key != ask.key) {
    fail("COUNTER", n(node) + " asked about key " + std::to_string(ask.key) +
                        " and got an answer that is not its Value (tag " + std::to_string(done->type_tag) + ")");
    return;
  }
  Key& k = keys_[ask.key];
  if (value->count > k.attempted) {
    fail("COUNTER", "an answer to " + n(node) + " says key " + std::to_string(ask.key) + " is at " +
                        std::to_string(value->count) + " but only " + std::to_string(k.attempted) +
                        " Adds were asked (applied twice)");
  }
  if (ask.add) {
    ++acked_total_;
    if (ask.epoch == k.epoch) ++k.acked;
  } else {
    ++gets_answered_;
    if (ask.epoch == k.epoch && value->count < ask.acked_before) {
      fail("COUNTER", "a read of key " + std::to_string(ask.key) + " by " + n(node) + " saw " +
                          std::to_string(value->count) + " but " + std::to_string(ask.acked_before) +
                          " increments were acknowledged before it was asked");
    }
  }
}

void EntitiesWorkload::end_epoch(std::uint64_t key) {
  Key& k = keys_[key];
  ++k.epoch;
  ++k.epochs_ended;
  k.acked = 0;
}

// A node found crashed (or restarted): the keys it hosted lost their count.
void EntitiesWorkload::settle_crashes() {
  if (sim_ == nullptr) return;  // the simulator boots its nodes before begin()
  if (sim_->stops() == stops_seen_) return;  // no process ended since the last look
  stops_seen_ = sim_->stops();
  for (std::size_t node = 1; node <= nodes_.size(); ++node) {
    Node& state = nodes_[node - 1];
    if (state.region == nullptr || sim_->alive(node)) continue;
    for (const std::uint64_t key : state.hosted) {
      end_epoch(key);
      std::erase(key_hosts_[key], node);
    }
    crash_epochs_ += state.hosted.size();
    state.hosted.clear();
    state.region = nullptr;
    ++owners_generation_;
  }
}

std::uint64_t EntitiesWorkload::count_on(std::size_t node, std::uint64_t key) const {
  const shard::Region* region = nodes_[node - 1].region;
  const auto* entity = dynamic_cast<const CounterEntity*>(region->entity(key_names_[key]));
  return entity == nullptr ? 0 : entity->count();
}

void EntitiesWorkload::after_input(std::size_t node, const Kernel& kernel) {
  if (sim_ == nullptr) return;
  if (rebalance_bound_ == Duration::zero()) {
    const Bounds bounds = compute_bounds(kernel.config(), nodes_.size());
    rebalance_bound_ = std::max(bounds.converge, bounds.vouch) + counter_kind().handoff_timeout + Duration::seconds(1);
    if (majority()) {
      // A new owner hosts once a majority votes: after the quiet of a voter
      // that started (longer than the promise a voter kept for a crashed
      // owner), at its next round of requests.
      const shard::MajorityOptions& m = counter_kind(options_.consistency).majority;
      rebalance_bound_ += shard::lease_times(m.lease, m.max_drift_ppm).quiet + m.lease / 8 + Duration::seconds(1);
    }
  }
  quiet_since_ = Instant();
  for (const auto& [from, to] : busy_) {
    if (from <= sim_->now()) quiet_since_ = std::max(quiet_since_, std::min(to, sim_->now()));
  }
  settle_crashes();
  Node& state = nodes_[node - 1];
  if (state.region == nullptr) return;
  judge_region_view(node, kernel);
  // A handoff that went missing (its state may be gone) ends the epochs of
  // its shard's keys. Only this node's region counted anything since its
  // last input.
  const std::uint64_t missed = handoffs_missed(*state.region);
  if (missed != state.missed_seen) {
    state.missed_seen = missed;
    state.missed_by_shard.resize(state.region->kind().shards, 0);
    for (std::uint64_t key = 0; key < keys_.size(); ++key) {
      const shard::ShardId shard = key_shards_[key];
      if (state.region->handoffs_missed(shard) != state.missed_by_shard[shard]) end_epoch(key);
    }
    for (shard::ShardId shard = 0; shard < state.missed_by_shard.size(); ++shard) {
      state.missed_by_shard[shard] = state.region->handoffs_missed(shard);
    }
  }
  std::set<std::uint64_t> before = std::move(state.hosted);
  state.hosted.clear();
  const Instant local = sim_->local_now(node);
  for (const std::string& key : state.region->active_keys()) {
    // In the majority mode an entity whose lease ran out while its node
    // was paused is not hosted: it stops at the node's next input.
    if (majority() && !state.region->holds_lease(state.region->shard_of_key(key), local)) continue;
    const std::uint64_t k = std::stoull(key);
    state.hosted.insert(k);
    if (!before.contains(k)) {
      // Its state handed to another node that has not started it yet (views
      // that disagree named two owners): two copies, as two hosts are.
      const auto flight = in_flight_.find(k);
      if (flight != in_flight_.end() && flight->second.to != node) {
        ++split_epochs_;
        end_epoch(k);
      }
      // Started fresh here while its state is on its way here from a node
      // this one's region had no cause to await (their views disagreed, and
      // the sender served the key meanwhile: seed 731): two copies again,
      // and the second to come is a conflict or, its sender's life downed
      // meanwhile, dropped unseen. A fresh start while the state comes from
      // a node the region had cause to await is a wait skipped or cut
      // short, which COUNTER judges (shard_no_handoff_wait,
      // shard_done_ends_every_wait).
      if (flight != in_flight_.end() && flight->second.to == node && flight->second.from != 0 &&
          !state.region->restored(key) &&
          !state.region->had_cause_to_await(key_shards_[k], sim_->address(flight->second.from))) {
        ++split_epochs_;
        end_epoch(k);
      }
      if (flight != in_flight_.end()) in_flight_.erase(flight);
      started_on(node, kernel, k);
    }
    const auto* entity = dynamic_cast<const CounterEntity*>(state.region->entity(key));
    if (entity != nullptr) judge_order(node, k, entity->breaks());
  }
  // A view that places a key on a member no process runs (an invented
  // member taken up: hostile seeds) sends its state there when the region
  // reads it: gone, as on a crash. Once per view read, not after every
  // input while it lasts, which would discard the Adds other nodes go on
  // acknowledging and leave COUNTER nothing to judge.
  if (read_owners(state)) {
    for (std::uint64_t key = 0; key < keys_.size(); ++key) {
      if (state.owner_node[key] == kInvented) {
        ++phantom_epochs_;
        end_epoch(key);
      }
    }
  }
  for (const std::uint64_t key : before) {
    if (state.hosted.contains(key)) continue;
    last_host_[key] = node;
    const std::size_t owner = state.owner_node[key];
    if (owner != 0) in_flight_[key] = {owner == kInvented ? 0 : owner, node};
  }
  settle_in_flight();
  // Per key, the nodes hosting it, in node order: only this node's hosting
  // moved in this input (a crash's is settled above). Every other node's
  // owners were read after its own last input (a region reads views only
  // in its node's inputs) or at its start.
  for (const std::uint64_t key : before) {
    if (!state.hosted.contains(key)) std::erase(key_hosts_[key], node);
  }
  for (const std::uint64_t key : state.hosted) {
    std::vector<std::size_t>& hosts = key_hosts_[key];
    const auto at = std::lower_bound(hosts.begin(), hosts.end(), node);
    if (at == hosts.end() || *at != node) hosts.insert(at, node);
  }
  for (std::uint64_t key = 0; key < keys_.size(); ++key) check_key(key, key_hosts_[key]);
  if (majority()) check_leases(node);
}

bool EntitiesWorkload::read_owners(Node& state) {
  if (state.owners_from_view != 0 && state.owners_from_view == state.region->views_read()) return false;
  ++owners_generation_;
  state.owners_from_view = state.region->views_read();
  state.owner_node.assign(keys_.size(), 0);
  for (std::uint64_t key = 0; key < keys_.size(); ++key) {
    const std::optional<NodeAddress>& owner = state.region->owner_of_shard(key_shards_[key]);
    if (!owner) continue;
    const std::size_t at = sim_->node_of(*owner);
    state.owner_node[key] = at == 0 ? kInvented : at;
  }
  return true;
}

// SHARD2: a lease is gained only on an input (a vote) to its holder, and
// runs out with its node's clock, so checking the node after each of its
// inputs against every other node sees every instant two could overlap.
void EntitiesWorkload::check_leases(std::size_t node) {
  const shard::Region* any = nullptr;
  for (const Node& state : nodes_) any = any != nullptr ? any : state.region;
  if (any == nullptr) return;
  if (!majority_could_serve_) {
    const shard::MajorityOptions& options = any->kind().majority;
    // Past the quiet, time for a request, an answer and the asks' own timeout.
    const Duration ready = shard::lease_times(options.lease, options.max_drift_ppm).quiet + options_.ask_timeout +
                           Duration::seconds(2);
    std::size_t ready_voters = 0;
    for (std::size_t voter = 1; voter <= nodes_.size(); ++voter) {
      const Node& state = nodes_[voter - 1];
      if (state.region != nullptr && sim_->local_now(voter) - state.started >= ready) ++ready_voters;
    }
    majority_could_serve_ = ready_voters > nodes_.size() / 2;
  }
  // A lease is gained only on an input to its holder, and held while
  // until > now: on any other node it only runs out as time passes. So two
  // holders at once first happen right after an input to one of them:
  // check that node's leases against every other node's, each on its own
  // clock.
  const shard::Region* region = nodes_[node - 1].region;
  if (region == nullptr) return;
  const Instant local = sim_->local_now(node);
  for (shard::ShardId shard = 0; shard < region->kind().shards; ++shard) {
    if (!region->holds_lease(shard, local)) continue;
    ++lease_checks_;
    for (std::size_t other = 1; other <= nodes_.size(); ++other) {
      const shard::Region* theirs = nodes_[other - 1].region;
      if (other == node || theirs == nullptr || !theirs->holds_lease(shard, sim_->local_now(other))) continue;
      fail("SHARD2", "shard " + std::to_string(shard) + " of " + kind_ + " is leased to " +
                          n(std::min(node, other)) + " and " + n(std::max(node, other)) + " at once");
    }
  }
}

// A key's state handed to a node that crashes before it hosts the key is
// gone with that node, as the node's own keys are.
void EntitiesWorkload::settle_in_flight() {
  for (auto it = in_flight_.begin(); it != in_flight_.end();) {
    // Lost with its receiver, or with its sender while still on its way
    // (held in the sender's buffers by a cut link: seed 1319).
    if (it->second.to != 0 && sim_->alive(it->second.to) && sim_->alive(it->second.from)) {
      ++it;
      continue;
    }
    ++crash_epochs_;
    end_epoch(it->first);
    it = in_flight_.erase(it);
  }
}

// A key started here whose last host is alive but not live in this node's
// view (downed while it ran: a pause, a partition) starts without its state:
// a region takes no handoff from a member that is down, and waits for none.
// That is AP's loss, as on a crash: the epoch ends.
void EntitiesWorkload::started_on(std::size_t node, const Kernel& kernel, std::uint64_t key) {
  const auto last = last_host_.find(key);
  if (last == last_host_.end() || last->second == node || !sim_->alive(last->second)) return;
  const Member* previous = kernel.members().find(sim_->address(last->second));
  if (previous != nullptr && is_live_status(previous->status)) return;
  ++down_owner_epochs_;
  end_epoch(key);
}

// An Add that arrived after a later one of its client breaks ORDER, unless
// the key's epoch ended since it was asked: a split brain, a crash or a
// missed handoff lets two copies see one client's Adds, and the order of
// what they saw is not kept when one copy's state replaces the other's.
void EntitiesWorkload::judge_order(std::size_t node, std::uint64_t key, const std::vector<OrderBreak>& breaks) {
  for (const OrderBreak& b : breaks) {
    if (!order_judged_.insert({key, b.client, b.seq}).second) continue;
    const auto sent = sent_epoch_.find({b.client, key, b.seq});
    if (sent == sent_epoch_.end() || sent->second != keys_[key].epoch) {
      ++order_exempt_;
      continue;
    }
    fail("ORDER", "key " + std::to_string(key) + " on " + n(node) + ": client " +
                        std::to_string(b.client) + "'s Add " + std::to_string(b.seq) + " arrived after " +
                        std::to_string(b.after) + " in one epoch");
  }
}

void EntitiesWorkload::check_key(std::uint64_t key, const std::vector<std::size_t>& hosts) {
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    for (std::size_t j = i + 1; j < hosts.size(); ++j) {
      const std::vector<NodeAddress>& view = nodes_[hosts[i] - 1].region->hosts();
      if (!view.empty() && view == nodes_[hosts[j] - 1].region->hosts()) {
        fail("SHARD1", "key " + std::to_string(key) + " is hosted on " + n(hosts[i]) + " and " +
                            n(hosts[j]) + " whose views agree on the members up");
      }
    }
  }
  Key& k = keys_[key];
  if (hosts.size() >= 2) {
    ++split_epochs_;
    end_epoch(key);
  }
  measure(key, hosts.size());
  for (const std::size_t node : hosts) {
    const std::uint64_t count = count_on(node, key);
    if (count > k.attempted) {
      fail("COUNTER", "key " + std::to_string(key) + " on " + n(node) + " holds " +
                          std::to_string(count) + " but only " + std::to_string(k.attempted) +
                          " Adds were asked (applied twice)");
    }
    if (hosts.size() == 1 && count < k.acked) {
      fail("COUNTER", "key " + std::to_string(key) + " on " + n(node) + " holds " +
                          std::to_string(count) + " but " + std::to_string(k.acked) +
                          " increments were acknowledged in its epoch");
    }
  }
}

// Per key, whether the live regions name one owner, and which: read again
// only when a region reads a view or one comes or goes, not per key per
// input (the walk over every node was a third of a 32-node run).
void EntitiesWorkload::agree_owners() {
  agreed_at_ = owners_generation_;
  agreed_.assign(keys_.size(), Agreed{});
  for (std::uint64_t key = 0; key < keys_.size(); ++key) {
    std::size_t owner = 0;
    bool settled = true;
    for (const Node& state : nodes_) {
      if (state.region == nullptr) continue;
      const std::size_t named = state.owner_node[key];
      settled = named != 0 && (owner == 0 || owner == named);
      owner = named;
      if (!settled) break;
    }
    agreed_[key] = Agreed{settled, owner};
  }
}

void EntitiesWorkload::measure(std::uint64_t key, std::size_t live_hosts) {
  const Instant now = sim_->now();
  const auto interval = [&](std::vector<std::optional<Instant>>& since, bool on, std::vector<Duration>& out) {
    std::optional<Instant>& from = since[key];
    if (on && !from) from = now;
    if (!on && from) {
      out.push_back(now - *from);
      from.reset();
    }
  };
  interval(two_hosts_since_, live_hosts >= 2, two_host_windows_);
  // Every live region names one owner (an invented member never settles a
  // key: no process serves it).
  if (agreed_at_ != owners_generation_) agree_owners();
  bool settled = agreed_[key].settled;
  const std::size_t owner = agreed_[key].owner;
  if (settled && owner != 0) {
    settled = owner != kInvented && nodes_[owner - 1].region != nullptr &&
              nodes_[owner - 1].region->serves_shard(key_shards_[key], sim_->local_now(owner));
  }
  // The cluster's own boot is not a rebalance: only intervals after a key
  // first settled count.
  if (settled) settled_once_[key] = true;
  if (settled_once_[key]) interval(unsettled_since_, !settled, settle_intervals_);
  // REBALANCE judges the boot too: a key that never settles must fail.
  std::optional<Instant>& unsettled = rebalance_since_[key];
  if (settled) {
    unsettled.reset();
  } else {
    if (!unsettled) unsettled = now;
    // The majority mode hosts nothing while no majority of its voters runs
    // (silence is its promise then, not a stuck key).
    if (!majority() || voters_running()) judge_rebalance(key, *unsettled);
  }
}

// Whether more than half of the majority mode's voters run a region.
bool EntitiesWorkload::voters_running() {
  if (voters_at_ == owners_generation_) return voters_running_;
  voters_at_ = owners_generation_;
  voters_running_ = false;
  const shard::Region* any = nullptr;
  for (const Node& state : nodes_) any = any != nullptr ? any : state.region;
  if (any == nullptr) return false;
  const std::vector<NodeAddress>& voters = any->kind().majority.voters;
  std::size_t running = 0;
  for (const NodeAddress& voter : voters) {
    const std::size_t node = sim_->node_of(voter);
    running += node != 0 && nodes_[node - 1].region != nullptr;
  }
  voters_running_ = running > voters.size() / 2;
  return voters_running_;
}

// REBALANCE's first half: a region places keys by its node's view, read
// from the members_changed its kernel queues; one that has not caught up
// with its kernel's members up for kViewLag is not following membership.
void EntitiesWorkload::judge_region_view(std::size_t node, const Kernel& kernel) {
  Node& state = nodes_[node - 1];
  const std::vector<NodeAddress>& read = state.region->hosts();
  // Placement::of_node's hosts (the members up, and this node while it
  // leaves), walked in the table's address order against the sorted hosts
  // the region read, without building them, and only when the table or
  // the region's view moved: this runs after every input, and a Placement
  // per input was a fifth of a 32-node run.
  const std::uint64_t digest = kernel.members().digest();
  if (state.judged_views != state.region->views_read() || state.judged_digest != digest) {
    state.judged_views = state.region->views_read();
    state.judged_digest = digest;
    std::size_t up = 0;
    bool lags = false;
    for (const Member& m : kernel.members().members()) {
      const bool host = m.status == MemberStatus::up ||
                        (m.status == MemberStatus::leaving && m.address() == kernel.self().address);
      if (!host) continue;
      lags = lags || up >= read.size() || read[up] != m.address();
      ++up;
    }
    state.judged_lags = lags || up != read.size();
    state.judged_up = up;
  }
  const bool lags = state.judged_lags;
  const std::size_t up = state.judged_up;
  if (!lags) {
    state.lagging_since.reset();
    return;
  }
  if (!state.lagging_since) state.lagging_since = sim_->now();
  if (sim_->now() - *state.lagging_since <= kViewLag || state.lag_reported) return;
  state.lag_reported = true;
  fail("REBALANCE", n(node) + "'s region has placed keys by another view than its node's for " +
                      std::to_string((sim_->now() - *state.lagging_since).ms()) + " ms (" +
                      std::to_string(read.size()) + " members up against " + std::to_string(up) + ")");
}

void EntitiesWorkload::judge_rebalance(std::uint64_t key, Instant since) {
  const Instant now = sim_->now();
  const Instant from = std::max(since, quiet_since_);
  if (now - from <= rebalance_bound_ || !rebalance_reported_.insert({key, since.ns_since_epoch()}).second) return;
  fail("REBALANCE", "key " + std::to_string(key) + " unsettled for " +
                      std::to_string((now - since).ms()) + " ms, " + std::to_string((now - quiet_since_).ms()) +
                      " ms after the last fault (T_rebalance " + std::to_string(rebalance_bound_.ms()) + " ms)");
}

// Each line once: a host short of its epoch's Adds fails every check until
// the epoch ends, and a failing run listed the same line hundreds of times.
void EntitiesWorkload::fail(std::string_view property, const std::string& what) {
  std::string line = std::string(property) + ": [" + kind_ + "] " + what;
  if (!reported_once_.insert(line).second) return;
  reported_.push_back(std::move(line));
}

void EntitiesWorkload::check(const sim::Simulator&, std::vector<std::string>& failures) {
  settle_crashes();
  for (std::string& line : reported_) failures.push_back(std::move(line));
  reported_.clear();
}

void EntitiesWorkload::finish(const sim::Simulator& sim, std::vector<std::string>& failures) {
  check(sim, failures);
  // The majority mode answers nothing while no majority of voters runs past
  // its quiet (a run whose crashes leave two of five nodes up for most of
  // it): silence is then its promise kept, not a failure.
  const bool could = !majority() || majority_could_serve_;
  if (acked_total_ == 0 && could) failures.push_back("COUNTER: [" + kind_ + "] no Add was acknowledged in the whole run");
}

std::string EntitiesWorkload::summary() const {
  std::uint64_t epochs = 0;
  for (const Key& k : keys_) epochs += k.epochs_ended;
  std::string line = std::string(majority() ? "entities_majority: " : "entities: ") + std::to_string(adds_) + " Adds asked, " + std::to_string(acked_total_) +
                     " acknowledged, " + std::to_string(told_) + " told; " + std::to_string(gets_) + " Gets, " + std::to_string(gets_answered_) +
                     " answered; " + std::to_string(not_run_) + " not run; epochs ended " + std::to_string(epochs) +
                     " (" + std::to_string(crash_epochs_) + " by crashes, " + std::to_string(split_epochs_) +
                     " by two hosts, " + std::to_string(phantom_epochs_) + " by invented owners, " +
                     std::to_string(down_owner_epochs_) + " by downed owners); " +
                     std::to_string(order_exempt_) + " order breaks across an epoch's end";
  for (const auto& [what, count] : failed_) line += ", " + std::to_string(count) + " " + what;
  const auto spread = [](std::vector<Duration> d) {
    if (d.empty()) return std::string("0");
    std::sort(d.begin(), d.end());
    return std::to_string(d.size()) + " (median " + std::to_string(d[d.size() / 2].ns() / 1'000'000) + " ms, max " +
           std::to_string(d.back().ns() / 1'000'000) + " ms)";
  };
  line += "; two hosts: " + spread(two_host_windows_) + "; settling: " + spread(settle_intervals_);
  if (majority()) {
    shard::RegionCounters sum;
    for (const Node& state : nodes_) {
      if (state.region == nullptr) continue;
      const shard::RegionCounters& c = state.region->counters();
      sum.lapsed += c.lapsed;
      sum.votes_asked += c.votes_asked;
      sum.votes_given += c.votes_given;
      sum.votes_refused += c.votes_refused;
    }
    line += "; leases checked at " + std::to_string(lease_checks_) + " (input, shard) pairs; live nodes: " +
            std::to_string(sum.lapsed) + " entities stopped on a lapse, votes asked " +
            std::to_string(sum.votes_asked) + ", given " + std::to_string(sum.votes_given) + ", refused " +
            std::to_string(sum.votes_refused);
  }
  return line;
}

}  // namespace weft::entities
