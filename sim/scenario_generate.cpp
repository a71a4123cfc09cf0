// Scenario generation: generate() draws a whole scenario from a seed alone:
// the network, the faults and traffic of the seed's family (family_of draws
// the family from a stream of its own), clock drift, and authentication
// (a stream of its own too). One draw per statement: the order of two draws
// inside one expression is unspecified in C++, and a seed must give the same
// scenario from any compiler (tools/check_determinism).
#include <algorithm>
#include <utility>
#include <vector>

#include "sim/boot_checker.hpp"
#include "sim/partition_checker.hpp"
#include "sim/scenario.hpp"

namespace weft::sim {
namespace {

// The most nodes one node floods in the flood-only family: every other node
// of the standard 5-node sweep.
constexpr std::size_t kFloodFanOut = 4;

Duration uniform_ms(Prng& prng, std::int64_t low, std::int64_t high) {
  return Duration::milliseconds(prng.between(low, high));
}

Fault make_fault(Fault::Kind kind, Duration at, std::vector<std::size_t> nodes, Duration length) {
  Fault f;
  f.kind = kind;
  f.at = at;
  f.nodes = std::move(nodes);
  f.length = length;
  return f;
}

// Sorts the schedule by time and drops crashes of the last live process.
Scenario finish_schedule(Scenario s, std::size_t nodes) {
  std::stable_sort(s.faults.begin(), s.faults.end(),
                   [](const Fault& a, const Fault& b) { return a.at < b.at; });
  // No crash of the last live process. A cluster whose every process died
  // is gone: a new life of any node but the first seed waits for a cluster
  // to join (only the first seed founds one alone, as in Akka), so unless
  // the first seed comes back, the heal would wait for it forever. The
  // properties promise nothing about a cluster that no longer exists. (No
  // draws here: the schedule above is already fixed.)
  std::vector<bool> alive(nodes + 1, true);
  std::size_t live = nodes;
  std::vector<Fault> kept;
  kept.reserve(s.faults.size());
  for (Fault& f : s.faults) {
    const bool ends = f.kind == Fault::Kind::crash || f.kind == Fault::Kind::lose || f.kind == Fault::Kind::leave;
    if (ends && alive[f.nodes[0]]) {
      if (live == 1) continue;
      alive[f.nodes[0]] = false;
      --live;
    } else if (f.kind == Fault::Kind::restart && !alive[f.nodes[0]]) {
      alive[f.nodes[0]] = true;
      ++live;
    }
    kept.push_back(std::move(f));
  }
  s.faults = std::move(kept);
  return s;
}

// Draws one scenario's faults and traffic into `s`, one helper per kind of
// fault and one per family. Each helper draws in the order its statements
// read; the families' helpers call them in the order generate() always drew.
class Draw {
 public:
  Draw(Scenario& s, Prng& prng, const Bounds& bounds)
      : s_(s), prng_(prng), bounds_(bounds), nodes_(s.nodes), end_(s.chaos - Duration::seconds(1)) {}

  // The families, one seed in ten each but mixed (family_of).
  void clean_crash();
  void clean_pause();
  void flood_only();
  void broken_link();
  void hostile();
  void boot_together();
  void clean_partition();
  void mixed();
  // Rogue peers and damaged streams, `low` to `high` of them, drawn from `draw`.
  void hostile_faults(Prng& draw, std::int64_t low, std::int64_t high);

 private:
  using Range = std::pair<std::int64_t, std::int64_t>;
  // Faults fall between start_ and end_ of the chaos phase.
  static constexpr Duration start_ = Duration::seconds(5);

  Duration when() { return Duration::nanoseconds(prng_.between(start_.ns(), end_.ns())); }
  std::size_t node() { return static_cast<std::size_t>(prng_.between(1, static_cast<std::int64_t>(nodes_))); }
  // A node other than `a`.
  std::size_t other(std::size_t a) {
    const auto b = static_cast<std::size_t>(prng_.between(1, static_cast<std::int64_t>(nodes_) - 1));
    return b >= a ? b + 1 : b;
  }
  // Swarm testing: a kind of fault is off in half the seeds, 1 to 4 of it in the rest.
  std::int64_t count() { return prng_.chance(Ratio{1, 2}) ? prng_.between(1, 4) : 0; }
  // `at` plus low_ms to high_ms, no later than end_.
  Duration until(Duration at, std::int64_t low_ms, std::int64_t high_ms) {
    return std::min(end_, at + uniform_ms(prng_, low_ms, high_ms));
  }
  // Each node with even odds; never none or all (then one node).
  std::vector<std::size_t> side();
  // A flood a -> b starting between start_ms.first and .second, its rate
  // (messages/s) and body size (bytes) drawn from the ranges given, in that
  // order; the caller sets its length.
  Fault& add_flood(std::size_t a, std::size_t b, Range start_ms, Range rate, Range bytes);
  // Asks a -> b from `at`, their rate and timeout drawn; the caller sets the length.
  Fault& add_asks(std::size_t a, std::size_t b, Duration at);
  // Asks between two nodes from early on until 5 s before the chaos ends.
  void steady_asks();
  // A cut a <-> b at `at` (one way in a third), healed heal_after_ms later.
  void add_cut(std::size_t a, std::size_t b, Duration at, Range heal_after_ms);
  // `n` down from the start, starting at `at`.
  void held_down_until(std::size_t n, Duration at);

  // The mixed family's kinds, in the order it draws them.
  void crashes();
  void join_storm();
  void pauses();
  void cuts();
  void partitions();
  void flap();
  void spikes();
  void floods();
  void asks();

  Scenario& s_;
  Prng& prng_;
  const Bounds& bounds_;
  std::size_t nodes_;
  Duration end_;
};

std::vector<std::size_t> Draw::side() {
  std::vector<std::size_t> nodes_on_side;
  for (std::size_t n = 1; n <= nodes_; ++n) {
    if (prng_.chance(Ratio{1, 2})) nodes_on_side.push_back(n);
  }
  if (nodes_on_side.empty() || nodes_on_side.size() == nodes_) nodes_on_side = {node()};
  return nodes_on_side;
}

Fault& Draw::add_flood(std::size_t a, std::size_t b, Range start_ms, Range rate, Range bytes) {
  Fault f = make_fault(Fault::Kind::flood, uniform_ms(prng_, start_ms.first, start_ms.second), {a, b}, {});
  f.rate = static_cast<std::uint32_t>(prng_.between(rate.first, rate.second));
  f.bytes = static_cast<std::uint32_t>(prng_.between(bytes.first, bytes.second));
  s_.faults.push_back(std::move(f));
  return s_.faults.back();
}

Fault& Draw::add_asks(std::size_t a, std::size_t b, Duration at) {
  Fault f = make_fault(Fault::Kind::asks, at, {a, b}, {});
  f.rate = static_cast<std::uint32_t>(prng_.between(1, 200));
  f.extra = uniform_ms(prng_, 100, 3'000);
  s_.faults.push_back(std::move(f));
  return s_.faults.back();
}

void Draw::steady_asks() {
  const std::size_t asker = node();
  const std::size_t target = other(asker);
  const Duration from = uniform_ms(prng_, 1'000, 4'000);
  add_asks(asker, target, from).length = s_.chaos - Duration::seconds(5) - from;
}

void Draw::add_cut(std::size_t a, std::size_t b, Duration at, Range heal_after_ms) {
  const bool one_way = prng_.chance(Ratio{1, 3});
  s_.faults.push_back(make_fault(one_way ? Fault::Kind::cut_one_way : Fault::Kind::cut, at, {a, b}, {}));
  s_.faults.push_back(make_fault(Fault::Kind::heal, until(at, heal_after_ms.first, heal_after_ms.second), {}, {}));
}

void Draw::held_down_until(std::size_t n, Duration at) {
  s_.faults.push_back(make_fault(Fault::Kind::crash, Duration::zero(), {n}, {}));
  s_.faults.push_back(make_fault(Fault::Kind::restart, at, {n}, {}));
}

void Draw::clean_crash() {
  // Crashes with nothing else within T_down of them, so the timed F1
  // check judges every one: a crash or host loss, perhaps a restart once
  // it is down everywhere, perhaps a second crash after that.
  Duration at = uniform_ms(prng_, 5'000, 8'000);
  for (int i = 0; i < 2 && at < end_; ++i) {
    const std::size_t victim = node();
    const bool host = prng_.chance(Ratio{1, 3});
    s_.faults.push_back(make_fault(host ? Fault::Kind::lose : Fault::Kind::crash, at, {victim}, {}));
    const Duration back = at + bounds_.down + uniform_ms(prng_, 500, 3'000);
    if (back < end_ && prng_.chance(Ratio{2, 3})) s_.faults.push_back(make_fault(Fault::Kind::restart, back, {victim}, {}));
    if (!prng_.chance(Ratio{1, 2})) break;
    at = back + uniform_ms(prng_, 0, 2'000);
  }
  steady_asks();
}

void Draw::clean_pause() {
  // Pauses one at a time, short and long, so F3 judges each: a short one
  // must go unsuspected, a long one must be refuted once it ends, and
  // one no longer than the forgiven pause must never be downed; half
  // of them fall just at or below that line (4.9-5 s), where downing is nearest.
  Duration at = uniform_ms(prng_, 3'000, 6'000);
  while (at < end_) {
    const bool near_the_line = prng_.chance(Ratio{1, 2});
    const Duration length = near_the_line ? uniform_ms(prng_, 4'900, 5'000) : uniform_ms(prng_, 200, 8'000);
    s_.faults.push_back(make_fault(Fault::Kind::pause, at, {node()}, length));
    at = at + length + uniform_ms(prng_, 5'500, 9'000);  // apart, so each is judged alone
  }
}

void Draw::flood_only() {
  // Load and nothing else: every link may be saturated, on slow links
  // for two seeds in three, and F2 requires that nobody is suspected.
  if (prng_.chance(Ratio{2, 3})) {
    s_.network.bandwidth = static_cast<std::uint64_t>(prng_.between(300'000, 2'000'000));
  }
  // Each node floods one other node, or (one in three) every other node,
  // at most kFloodFanOut of them: what a sender offers stays the same at
  // any cluster size, as one sender's load does not grow with the cluster.
  // (Every other node at 32 nodes made about 390 saturated streams, each
  // filling its sender's 8 MB outbound bound: up to 5.4 GB and 25 s of CPU
  // a seed. Each stream is modelled alone, with its own bandwidth and no
  // CPU charged per link, so more of them judge nothing new.)
  const auto flood = [&](std::size_t a, std::size_t b) {
    Fault& f = add_flood(a, b, {1'000, 5'000}, {500, 4'000}, {200, 1'500});
    f.length = until(f.at, 10'000, 25'000) - f.at;
  };
  for (std::size_t a = 1; a <= nodes_; ++a) {
    if (prng_.chance(Ratio{1, 3})) {
      if (nodes_ - 1 <= kFloodFanOut) {  // every other node, as ever
        for (std::size_t b = 1; b <= nodes_; ++b) {
          if (b != a) flood(a, b);
        }
        continue;
      }
      // kFloodFanOut distinct others, drawn in turn.
      std::vector<std::size_t> targets;
      while (targets.size() < kFloodFanOut) {
        const std::size_t b = other(a);
        if (std::find(targets.begin(), targets.end(), b) == targets.end()) targets.push_back(b);
      }
      for (const std::size_t b : targets) flood(a, b);
    } else {
      flood(a, other(a));
    }
  }
  steady_asks();
}

void Draw::broken_link() {
  // One link broken between two healthy nodes (F4), in half the seeds
  // while the others flood one end of it over slow links, so the
  // indirect probes' answers travel beside a saturating flood.
  const std::size_t a = node();
  const std::size_t b = other(a);
  add_cut(a, b, uniform_ms(prng_, 3'000, 10'000), {8'000, 20'000});
  if (prng_.chance(Ratio{1, 2})) {
    s_.network.bandwidth = static_cast<std::uint64_t>(prng_.between(300'000, 2'000'000));
    for (std::size_t c = 1; c <= nodes_; ++c) {
      if (c == a || c == b) continue;
      Fault& f = add_flood(c, a, {1'000, 3'000}, {1'000, 3'000}, {500, 1'500});
      f.length = end_ - f.at;
    }
  }
}

void Draw::hostile() {
  // The trust boundary under traffic: rogue peers of every kind and
  // damaged streams, nothing else, so W3 and every view check judge them.
  for (std::size_t a = 1; a <= nodes_; ++a) {
    if (!prng_.chance(Ratio{1, 2})) continue;
    const std::size_t b = other(a);
    Fault& f = add_flood(a, b, {1'000, 3'000}, {100, 2'000}, {20, 1'500});
    f.length = end_ - f.at;
  }
  hostile_faults(prng_, 3, 8);
}

void Draw::boot_together() {
  // Nodes that start at one instant and nothing else, so M6 judges each
  // group at T_boot: a join storm into the founder's young cluster (a
  // group held down from the start), then a group that dies at one
  // instant (crash or host loss, the founder perhaps among it) and,
  // once it is down everywhere, comes back at one instant.
  std::vector<std::size_t> storm;
  for (std::size_t n = 2; n <= nodes_; ++n) {
    if (prng_.chance(Ratio{1, 2})) storm.push_back(n);
  }
  if (storm.empty()) storm.push_back(other(1));
  const Duration storm_at = uniform_ms(prng_, 1'000, 4'000);
  for (const std::size_t n : storm) held_down_until(n, storm_at);
  const Duration death = storm_at + uniform_ms(prng_, 1'500, 3'000);
  const std::vector<std::size_t> group = side();
  const bool host = prng_.chance(Ratio{1, 3});
  const Duration back = death + bounds_.down + uniform_ms(prng_, 500, 2'000);
  if (back + boot_bound(Config{}, nodes_) < end_) {
    for (const std::size_t n : group) {
      s_.faults.push_back(make_fault(host ? Fault::Kind::lose : Fault::Kind::crash, death, {n}, {}));
      s_.faults.push_back(make_fault(Fault::Kind::restart, back, {n}, {}));
    }
  }
}

void Draw::clean_partition() {
  // One partition of a random side, long enough for each side to down
  // the other, then its heal, and nothing else: F1 judges the downs at
  // T_down_partition and M5 the heal at T_merge (partition_checker.hpp).
  const Duration at = uniform_ms(prng_, 3'000, 6'000);
  s_.faults.push_back(make_fault(Fault::Kind::partition, at, side(), {}));
  // Past the downs' deadline even on a clock 2 % slow.
  const Duration heal = at + partition_down_bound(Config{}, nodes_) + uniform_ms(prng_, 1'000, 2'500);
  if (heal + merge_bound(Config{}, nodes_) < end_) s_.faults.push_back(make_fault(Fault::Kind::heal, heal, {}, {}));
}

void Draw::mixed() {
  // Every kind of fault at once, each off for some seeds and heavy for others.
  crashes();
  join_storm();
  pauses();
  cuts();
  partitions();
  flap();
  spikes();
  floods();
  asks();
}

void Draw::crashes() {
  for (std::int64_t i = count(); i > 0; --i) {
    const Duration at = when();
    const std::size_t victim = node();
    // A third of the deaths are host losses: silence instead of closed links.
    const bool host = prng_.chance(Ratio{1, 3});
    s_.faults.push_back(make_fault(host ? Fault::Kind::lose : Fault::Kind::crash, at, {victim}, {}));
    if (prng_.chance(Ratio{2, 3})) s_.faults.push_back(make_fault(Fault::Kind::restart, until(at, 500, 10'000), {victim}, {}));
  }
}

void Draw::join_storm() {
  // Several nodes down from the start, all joining at once.
  if (!prng_.chance(Ratio{1, 4}) || nodes_ < 3) return;
  const Duration at = uniform_ms(prng_, 1'000, 10'000);
  for (std::size_t n = 2; n <= nodes_; ++n) {
    if (prng_.chance(Ratio{1, 2})) held_down_until(n, at);
  }
}

void Draw::pauses() {
  for (std::int64_t i = count(); i > 0; --i) {
    const Duration at = when();
    const std::size_t victim = node();
    s_.faults.push_back(make_fault(Fault::Kind::pause, at, {victim}, uniform_ms(prng_, 200, 8'000)));
  }
}

void Draw::cuts() {
  for (std::int64_t i = count(); i > 0; --i) {
    const std::size_t a = node();
    const std::size_t b = other(a);
    add_cut(a, b, when(), {1'000, 15'000});
  }
}

void Draw::partitions() {
  for (std::int64_t i = count(); i > 0; --i) {
    const Duration at = when();
    s_.faults.push_back(make_fault(Fault::Kind::partition, at, side(), {}));
    s_.faults.push_back(make_fault(Fault::Kind::heal, until(at, 2'000, 20'000), {}, {}));
  }
}

void Draw::flap() {
  if (!prng_.chance(Ratio{1, 4})) return;
  const Duration at = when();
  Fault f = make_fault(Fault::Kind::flap, at, side(), {});
  f.period = uniform_ms(prng_, 200, 3'000);
  f.length = until(at, 2'000, 15'000) - at;
  s_.faults.push_back(std::move(f));
}

void Draw::spikes() {
  for (std::int64_t i = count(); i > 0; --i) {
    Fault f = make_fault(Fault::Kind::spike, when(), {}, {});
    f.extra = uniform_ms(prng_, 20, 2'000);
    f.length = until(f.at, 100, 5'000) - f.at;
    s_.faults.push_back(std::move(f));
  }
}

void Draw::floods() {
  for (std::int64_t i = count(); i > 0; --i) {
    const std::size_t a = node();
    const std::size_t b = other(a);
    Fault& f = add_flood(a, b, {1'000, end_.ms()}, {100, 5'000}, {20, 1'500});
    f.length = until(f.at, 1'000, 15'000) - f.at;
  }
}

void Draw::asks() {
  for (std::int64_t i = count(); i > 0; --i) {
    const std::size_t a = node();
    const std::size_t b = other(a);
    const Duration at = uniform_ms(prng_, 1'000, end_.ms());
    Fault& f = add_asks(a, b, at);
    f.length = until(f.at, 1'000, 15'000) - f.at;
  }
}

void Draw::hostile_faults(Prng& draw, std::int64_t low, std::int64_t high) {
  const auto pick = [&] { return static_cast<std::size_t>(draw.between(1, static_cast<std::int64_t>(nodes_))); };
  for (std::int64_t i = draw.between(low, high); i > 0; --i) {
    const Duration at = Duration::nanoseconds(draw.between(start_.ns(), end_.ns()));
    const std::size_t a = pick();
    std::size_t b = pick();
    if (b == a) b = a % nodes_ + 1;
    const std::int64_t kind = draw.between(0, 15);
    if (kind <= 1) {
      s_.faults.push_back(make_fault(kind == 0 ? Fault::Kind::truncate : Fault::Kind::corrupt, at, {a, b}, {}));
      continue;
    }
    Fault f = make_fault(Fault::Kind::rogue, at, {a}, {});
    // Every rogue up to forged_leaving, then keyless_join, fake_members,
    // forged_unreachable and forged_down (reflected_proof and squat:
    // scenario files only).
    f.rogue = kind == 12   ? Fault::Rogue::keyless_join
              : kind == 13 ? Fault::Rogue::fake_members
              : kind == 14 ? Fault::Rogue::forged_unreachable
              : kind == 15 ? Fault::Rogue::forged_down
                           : static_cast<Fault::Rogue>(kind - 2);
    if (f.rogue != Fault::Rogue::garbage && f.rogue != Fault::Rogue::wrong_cluster &&
        f.rogue != Fault::Rogue::keyless_join && f.rogue != Fault::Rogue::fake_members) {
      f.nodes.push_back(b);
    }
    s_.faults.push_back(std::move(f));
  }
}

// The link speeds: a floor and tail of latency, chunking, and a bandwidth
// (a third of the seeds on slow links, where a flood saturates them).
void draw_network(Prng& prng, NetworkModel& network) {
  const Duration floor_ms = uniform_ms(prng, 0, 1);
  network.latency_floor = floor_ms + Duration::microseconds(prng.between(50, 500));
  network.latency_tail_mean = Duration::microseconds(prng.between(50, 2000));
  network.max_chunks = static_cast<std::uint32_t>(prng.between(1, 8));
  if (prng.chance(Ratio{1, 3})) {
    network.bandwidth = static_cast<std::uint64_t>(prng.between(500'000, 5'000'000));
  } else {
    network.bandwidth = static_cast<std::uint64_t>(prng.between(50'000'000, 1'000'000'000));
  }
}

// Clock drift, in a quarter of the seeds: every node's clock off by up to
// 2 % either way (far beyond a real quartz's 100 ppm, to stress timers).
void draw_clock_drift(Prng& prng, std::size_t nodes, std::vector<std::int32_t>& clock_ppm) {
  if (!prng.chance(Ratio{1, 4})) return;
  for (std::size_t n = 0; n < nodes; ++n) {
    const std::int64_t ppm = prng.between(-20'000, 20'000);
    clock_ppm.push_back(static_cast<std::int32_t>(ppm));
  }
}

// A third of the seeds close idle links within the run (2-8 s, against
// the default minute), so the standard sweep meets links that close and
// redial under every fault; from a stream of their own, so the rest of the
// schedule is what it was.
std::optional<Duration> draw_idle_links(std::uint64_t seed) {
  Prng idle = Prng::derive(seed, 13);
  if (!idle.chance(Ratio{1, 3})) return std::nullopt;
  return Duration::milliseconds(idle.between(2000, 8000));
}

// Links are authenticated in three seeds of four, a third of those
// mid-rotation; drawn from a stream of its own, like the family.
AuthMode draw_auth(std::uint64_t seed) {
  Prng auth = Prng::derive(seed, 11);
  const std::int64_t auth_draw = auth.between(0, 3);
  return auth_draw == 0 ? AuthMode::off : auth_draw == 3 ? AuthMode::rotating : AuthMode::shared;
}

}  // namespace

std::string_view to_string(Family family) {
  switch (family) {
    case Family::mixed: return "mixed";
    case Family::clean_crash: return "clean-crash";
    case Family::clean_pause: return "clean-pause";
    case Family::flood_only: return "flood-only";
    case Family::broken_link: return "broken-link";
    case Family::hostile: return "hostile";
    case Family::boot_together: return "boot-together";
    case Family::clean_partition: return "clean-partition";
  }
  return "?";
}

Family family_of(std::uint64_t seed) {
  // Its own stream, so a mixed seed draws the same schedule it always did.
  Prng prng = Prng::derive(seed, 8);
  const std::int64_t draw = prng.between(0, 9);
  if (draw == 0) return Family::clean_crash;
  if (draw == 1) return Family::clean_pause;
  if (draw == 2) return Family::flood_only;
  if (draw == 3) return Family::broken_link;
  if (draw == 4) return Family::hostile;
  // Taken from the mixed half: the seeds of the five families above keep
  // their schedules, and a mixed seed that stays mixed draws what it drew.
  if (draw == 5) return Family::boot_together;
  if (draw == 6) return Family::clean_partition;
  return Family::mixed;
}

Scenario generate(std::uint64_t seed, std::size_t nodes, Duration chaos) {
  WEFT_ASSERT(nodes >= 2);
  Scenario s;
  s.seed = seed;
  s.nodes = nodes;
  s.chaos = chaos;
  const Bounds bounds = compute_bounds(Config{}, nodes);
  s.heal = bounds.heal + Duration::seconds(5);
  Prng prng = Prng::derive(seed, 7);
  draw_network(prng, s.network);
  Draw draw(s, prng, bounds);
  switch (family_of(seed)) {
    case Family::clean_crash: draw.clean_crash(); break;
    case Family::clean_pause: draw.clean_pause(); break;
    case Family::flood_only: draw.flood_only(); break;
    case Family::broken_link: draw.broken_link(); break;
    case Family::hostile: draw.hostile(); break;
    case Family::boot_together: draw.boot_together(); break;
    case Family::clean_partition: draw.clean_partition(); break;
    case Family::mixed:
      draw.mixed();
      // A quarter of mixed seeds meet the trust boundary too, drawn from a
      // stream of their own so the rest of the schedule is what it was.
      if (Prng extra = Prng::derive(seed, 10); extra.chance(Ratio{1, 4})) draw.hostile_faults(extra, 1, 3);
      break;
  }
  draw_clock_drift(prng, nodes, s.clock_ppm);
  s.auth = draw_auth(seed);
  s.link_idle_timeout = draw_idle_links(seed);
  return finish_schedule(std::move(s), nodes);
}

}  // namespace weft::sim
