#include "sim/scenario.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "auth/hmac_sha256.hpp"
#include "sim/boot_checker.hpp"
#include "sim/checkers.hpp"
#include "sim/crash_downing_checker.hpp"
#include "sim/flapping_checker.hpp"
#include "sim/ongoing_faults.hpp"
#include "sim/partition_checker.hpp"
#include "sim/pause_downing_checker.hpp"
#include "sim/text.hpp"
#include "sim/traffic.hpp"

namespace weft::sim {
namespace {

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
    if ((f.kind == Fault::Kind::crash || f.kind == Fault::Kind::lose) && alive[f.nodes[0]]) {
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
  // One draw per statement: the order of two draws inside one expression is
  // unspecified in C++ and differs between gcc and clang.
  const Duration floor_ms = uniform_ms(prng, 0, 1);
  s.network.latency_floor = floor_ms + Duration::microseconds(prng.between(50, 500));
  s.network.latency_tail_mean = Duration::microseconds(prng.between(50, 2000));
  s.network.max_chunks = static_cast<std::uint32_t>(prng.between(1, 8));
  // A third of the seeds run on slow links, where a flood saturates them.
  if (prng.chance(Ratio{1, 3})) {
    s.network.bandwidth = static_cast<std::uint64_t>(prng.between(500'000, 5'000'000));
  } else {
    s.network.bandwidth = static_cast<std::uint64_t>(prng.between(50'000'000, 1'000'000'000));
  }

  // Swarm testing: each kind of fault is off for some seeds and heavy for others.
  const Duration start = Duration::seconds(5);
  const Duration end = chaos - Duration::seconds(1);
  const auto when = [&] { return Duration::nanoseconds(prng.between(start.ns(), end.ns())); };
  const auto node = [&] { return static_cast<std::size_t>(prng.between(1, static_cast<std::int64_t>(nodes))); };
  const auto other = [&](std::size_t a) {
    const auto b = static_cast<std::size_t>(prng.between(1, static_cast<std::int64_t>(nodes) - 1));
    return b >= a ? b + 1 : b;
  };
  const auto count = [&] { return prng.chance(Ratio{1, 2}) ? prng.between(1, 4) : 0; };
  const auto until = [&](Duration at, std::int64_t low_ms, std::int64_t high_ms) {
    return std::min(end, at + uniform_ms(prng, low_ms, high_ms));
  };
  const auto side = [&] {
    std::vector<std::size_t> nodes_on_side;
    for (std::size_t n = 1; n <= nodes; ++n) {
      if (prng.chance(Ratio{1, 2})) nodes_on_side.push_back(n);
    }
    if (nodes_on_side.empty() || nodes_on_side.size() == nodes) nodes_on_side = {node()};
    return nodes_on_side;
  };
  // A flood a -> b starting between from_ms and to_ms, its rate (messages/s)
  // and body size (bytes) drawn from the ranges given, in that order; the
  // caller sets its length.
  using Range = std::pair<std::int64_t, std::int64_t>;
  const auto add_flood = [&](std::size_t a, std::size_t b, Range start_ms, Range rate, Range bytes) -> Fault& {
    Fault f = make_fault(Fault::Kind::flood, uniform_ms(prng, start_ms.first, start_ms.second), {a, b}, {});
    f.rate = static_cast<std::uint32_t>(prng.between(rate.first, rate.second));
    f.bytes = static_cast<std::uint32_t>(prng.between(bytes.first, bytes.second));
    s.faults.push_back(std::move(f));
    return s.faults.back();
  };
  const auto asks = [&](std::size_t a, std::size_t b, Duration at, Duration length) {
    Fault f = make_fault(Fault::Kind::asks, at, {a, b}, {});
    f.rate = static_cast<std::uint32_t>(prng.between(1, 200));
    f.extra = uniform_ms(prng, 100, 3'000);
    f.length = length;
    s.faults.push_back(std::move(f));
  };

  // Rogue peers and damaged streams, `low` to `high` of them.
  const auto add_hostile_faults = [&](Prng& draw, std::int64_t low, std::int64_t high) {
    const auto pick = [&] { return static_cast<std::size_t>(draw.between(1, static_cast<std::int64_t>(nodes))); };
    for (std::int64_t i = draw.between(low, high); i > 0; --i) {
      const Duration at = Duration::nanoseconds(draw.between(start.ns(), end.ns()));
      const std::size_t a = pick();
      std::size_t b = pick();
      if (b == a) b = a % nodes + 1;
      const std::int64_t kind = draw.between(0, 9);
      if (kind <= 1) {
        s.faults.push_back(make_fault(kind == 0 ? Fault::Kind::truncate : Fault::Kind::corrupt, at, {a, b}, {}));
        continue;
      }
      Fault f = make_fault(Fault::Kind::rogue, at, {a}, {});
      f.rogue = static_cast<Fault::Rogue>(kind - 2);
      if (f.rogue != Fault::Rogue::garbage && f.rogue != Fault::Rogue::wrong_cluster) f.nodes.push_back(b);
      s.faults.push_back(std::move(f));
    }
  };

  // The default family: every kind of fault at once.
  const auto add_mixed_faults = [&] {
    for (std::int64_t i = count(); i > 0; --i) {
      const Duration at = when();
      const std::size_t victim = node();
      // A third of the deaths are host losses: silence instead of closed links.
      const bool host = prng.chance(Ratio{1, 3});
      s.faults.push_back(make_fault(host ? Fault::Kind::lose : Fault::Kind::crash, at, {victim}, {}));
      if (prng.chance(Ratio{2, 3})) s.faults.push_back(make_fault(Fault::Kind::restart, until(at, 500, 10'000), {victim}, {}));
    }
    // A join storm: several nodes down from the start, all joining at once.
    if (prng.chance(Ratio{1, 4}) && nodes >= 3) {
      const Duration at = uniform_ms(prng, 1'000, 10'000);
      for (std::size_t n = 2; n <= nodes; ++n) {
        if (!prng.chance(Ratio{1, 2})) continue;
        s.faults.push_back(make_fault(Fault::Kind::crash, Duration::zero(), {n}, {}));
        s.faults.push_back(make_fault(Fault::Kind::restart, at, {n}, {}));
      }
    }
    for (std::int64_t i = count(); i > 0; --i) {
      const Duration at = when();
      const std::size_t victim = node();
      s.faults.push_back(make_fault(Fault::Kind::pause, at, {victim}, uniform_ms(prng, 200, 8'000)));
    }
    for (std::int64_t i = count(); i > 0; --i) {
      const std::size_t a = node();
      const std::size_t b = other(a);
      const Duration at = when();
      const bool one_way = prng.chance(Ratio{1, 3});
      s.faults.push_back(make_fault(one_way ? Fault::Kind::cut_one_way : Fault::Kind::cut, at, {a, b}, {}));
      s.faults.push_back(make_fault(Fault::Kind::heal, until(at, 1'000, 15'000), {}, {}));
    }
    for (std::int64_t i = count(); i > 0; --i) {
      const Duration at = when();
      s.faults.push_back(make_fault(Fault::Kind::partition, at, side(), {}));
      s.faults.push_back(make_fault(Fault::Kind::heal, until(at, 2'000, 20'000), {}, {}));
    }
    if (prng.chance(Ratio{1, 4})) {
      const Duration at = when();
      Fault f = make_fault(Fault::Kind::flap, at, side(), {});
      f.period = uniform_ms(prng, 200, 3'000);
      f.length = until(at, 2'000, 15'000) - at;
      s.faults.push_back(std::move(f));
    }
    for (std::int64_t i = count(); i > 0; --i) {
      Fault f = make_fault(Fault::Kind::spike, when(), {}, {});
      f.extra = uniform_ms(prng, 20, 2'000);
      f.length = until(f.at, 100, 5'000) - f.at;
      s.faults.push_back(std::move(f));
    }
    for (std::int64_t i = count(); i > 0; --i) {
      const std::size_t a = node();
      const std::size_t b = other(a);
      Fault& f = add_flood(a, b, {1'000, end.ms()}, {100, 5'000}, {20, 1'500});
      f.length = until(f.at, 1'000, 15'000) - f.at;
    }
    for (std::int64_t i = count(); i > 0; --i) {
      const std::size_t a = node();
      const std::size_t b = other(a);
      Fault f = make_fault(Fault::Kind::asks, uniform_ms(prng, 1'000, end.ms()), {a, b}, {});
      f.rate = static_cast<std::uint32_t>(prng.between(1, 200));
      f.extra = uniform_ms(prng, 100, 3'000);
      f.length = until(f.at, 1'000, 15'000) - f.at;
      s.faults.push_back(std::move(f));
    }
  };

  switch (family_of(seed)) {
    case Family::clean_crash: {
      // Crashes with nothing else within T_down of them, so the timed F1
      // check judges every one: a crash or host loss, perhaps a restart once
      // it is down everywhere, perhaps a second crash after that.
      Duration at = uniform_ms(prng, 5'000, 8'000);
      for (int i = 0; i < 2 && at < end; ++i) {
        const std::size_t victim = node();
        s.faults.push_back(make_fault(prng.chance(Ratio{1, 3}) ? Fault::Kind::lose : Fault::Kind::crash, at,
                                      {victim}, {}));
        const Duration back = at + bounds.down + uniform_ms(prng, 500, 3'000);
        if (back < end && prng.chance(Ratio{2, 3})) s.faults.push_back(make_fault(Fault::Kind::restart, back, {victim}, {}));
        if (!prng.chance(Ratio{1, 2})) break;
        at = back + uniform_ms(prng, 0, 2'000);
      }
      const std::size_t asker = node();
      const std::size_t target = other(asker);
      const Duration from = uniform_ms(prng, 1'000, 4'000);
      asks(asker, target, from, chaos - Duration::seconds(5) - from);
      break;
    }
    case Family::clean_pause: {
      // Pauses one at a time, short and long, so F3 judges each: a short one
      // must go unsuspected, a long one must be refuted once it ends, and
      // one no longer than the forgiven pause must never be downed; half
      // of them fall just at or below that line (4.9-5 s), where downing is nearest.
      Duration at = uniform_ms(prng, 3'000, 6'000);
      while (at < end) {
        const bool near_the_line = prng.chance(Ratio{1, 2});
        const Duration length = near_the_line ? uniform_ms(prng, 4'900, 5'000) : uniform_ms(prng, 200, 8'000);
        s.faults.push_back(make_fault(Fault::Kind::pause, at, {node()}, length));
        at = at + length + uniform_ms(prng, 5'500, 9'000);  // apart, so each is judged alone
      }
      break;
    }
    case Family::flood_only: {
      // Load and nothing else: every link may be saturated, on slow links
      // for two seeds in three, and F2 requires that nobody is suspected.
      if (prng.chance(Ratio{2, 3})) {
        s.network.bandwidth = static_cast<std::uint64_t>(prng.between(300'000, 2'000'000));
      }
      // Each node floods one other node, or (one in three) every other node.
      const auto flood = [&](std::size_t a, std::size_t b) {
        Fault& f = add_flood(a, b, {1'000, 5'000}, {500, 4'000}, {200, 1'500});
        f.length = until(f.at, 10'000, 25'000) - f.at;
      };
      for (std::size_t a = 1; a <= nodes; ++a) {
        if (prng.chance(Ratio{1, 3})) {
          for (std::size_t b = 1; b <= nodes; ++b) {
            if (b != a) flood(a, b);
          }
        } else {
          flood(a, other(a));
        }
      }
      const std::size_t asker = node();
      const std::size_t target = other(asker);
      const Duration from = uniform_ms(prng, 1'000, 4'000);
      asks(asker, target, from, chaos - Duration::seconds(5) - from);
      break;
    }
    case Family::broken_link: {
      // One link broken between two healthy nodes (F4), in half the seeds
      // while the others flood one end of it over slow links, so the
      // indirect probes' answers travel beside a saturating flood.
      const std::size_t a = node();
      const std::size_t b = other(a);
      const Duration at = uniform_ms(prng, 3'000, 10'000);
      const bool one_way = prng.chance(Ratio{1, 3});
      s.faults.push_back(make_fault(one_way ? Fault::Kind::cut_one_way : Fault::Kind::cut, at, {a, b}, {}));
      s.faults.push_back(make_fault(Fault::Kind::heal, until(at, 8'000, 20'000), {}, {}));
      if (prng.chance(Ratio{1, 2})) {
        s.network.bandwidth = static_cast<std::uint64_t>(prng.between(300'000, 2'000'000));
        for (std::size_t c = 1; c <= nodes; ++c) {
          if (c == a || c == b) continue;
          Fault& f = add_flood(c, a, {1'000, 3'000}, {1'000, 3'000}, {500, 1'500});
          f.length = end - f.at;
        }
      }
      break;
    }
    case Family::hostile: {
      // The trust boundary under traffic: rogue peers of every kind and
      // damaged streams, nothing else, so W3 and every view check judge them.
      for (std::size_t a = 1; a <= nodes; ++a) {
        if (!prng.chance(Ratio{1, 2})) continue;
        const std::size_t b = other(a);
        Fault& f = add_flood(a, b, {1'000, 3'000}, {100, 2'000}, {20, 1'500});
        f.length = end - f.at;
      }
      add_hostile_faults(prng, 3, 8);
      break;
    }
    case Family::boot_together: {
      // Nodes that start at one instant and nothing else, so M6 judges each
      // group at T_boot: a join storm into the founder's young cluster (a
      // group held down from the start), then a group that dies at one
      // instant (crash or host loss, the founder perhaps among it) and,
      // once it is down everywhere, comes back at one instant.
      std::vector<std::size_t> storm;
      for (std::size_t n = 2; n <= nodes; ++n) {
        if (prng.chance(Ratio{1, 2})) storm.push_back(n);
      }
      if (storm.empty()) storm.push_back(other(1));
      const Duration storm_at = uniform_ms(prng, 1'000, 4'000);
      for (const std::size_t n : storm) {
        s.faults.push_back(make_fault(Fault::Kind::crash, Duration::zero(), {n}, {}));
        s.faults.push_back(make_fault(Fault::Kind::restart, storm_at, {n}, {}));
      }
      const Duration death = storm_at + uniform_ms(prng, 1'500, 3'000);
      const std::vector<std::size_t> group = side();
      const bool host = prng.chance(Ratio{1, 3});
      const Duration back = death + bounds.down + uniform_ms(prng, 500, 2'000);
      if (back + boot_bound(Config{}, nodes) < end) {
        for (const std::size_t n : group) {
          s.faults.push_back(make_fault(host ? Fault::Kind::lose : Fault::Kind::crash, death, {n}, {}));
          s.faults.push_back(make_fault(Fault::Kind::restart, back, {n}, {}));
        }
      }
      break;
    }
    case Family::clean_partition: {
      // One partition of a random side, long enough for each side to down
      // the other, then its heal, and nothing else: F1 judges the downs at
      // T_down_partition and M5 the heal at T_merge (partition_checker.hpp).
      const Duration at = uniform_ms(prng, 3'000, 6'000);
      s.faults.push_back(make_fault(Fault::Kind::partition, at, side(), {}));
      // Past the downs' deadline even on a clock 2 % slow.
      const Duration heal = at + partition_down_bound(Config{}, nodes) + uniform_ms(prng, 1'000, 2'500);
      if (heal + merge_bound(Config{}, nodes) < end) s.faults.push_back(make_fault(Fault::Kind::heal, heal, {}, {}));
      break;
    }
    case Family::mixed:
      add_mixed_faults();
      // A quarter of mixed seeds meet the trust boundary too, drawn from a
      // stream of their own so the rest of the schedule is what it was.
      if (Prng extra = Prng::derive(seed, 10); extra.chance(Ratio{1, 4})) add_hostile_faults(extra, 1, 3);
      break;
  }
  // Clock drift, in a quarter of the seeds: every node's clock off by up to
  // 2 % either way (far beyond a real quartz's 100 ppm, to stress timers).
  if (prng.chance(Ratio{1, 4})) {
    for (std::size_t n = 0; n < nodes; ++n) {
      const std::int64_t ppm = prng.between(-20'000, 20'000);
      s.clock_ppm.push_back(static_cast<std::int32_t>(ppm));
    }
  }
  // Links are authenticated in three seeds of four, a third of those
  // mid-rotation; drawn from a stream of its own, like the family.
  Prng auth = Prng::derive(seed, 11);
  const std::int64_t auth_draw = auth.between(0, 3);
  s.auth = auth_draw == 0 ? AuthMode::off : auth_draw == 3 ? AuthMode::rotating : AuthMode::shared;
  return finish_schedule(std::move(s), nodes);
}

std::vector<Scenario> smaller_schedules(const Scenario& s) {
  std::vector<Scenario> out;
  const std::size_t n = s.faults.size();
  for (std::size_t chunk = n / 2; chunk >= 1; chunk /= 2) {
    for (std::size_t start = 0; start < n; start += chunk) {
      Scenario t = s;
      t.faults.erase(t.faults.begin() + static_cast<std::ptrdiff_t>(start),
                     t.faults.begin() + static_cast<std::ptrdiff_t>(std::min(n, start + chunk)));
      out.push_back(std::move(t));
    }
    if (chunk == 1) break;
  }
  if (n == 1) {
    Scenario none = s;
    none.faults.clear();
    out.push_back(std::move(none));
  }
  return out;
}

Authentication scenario_auth(AuthMode mode, std::uint64_t seed, const NodeAddress& node) {
  Authentication auth;
  if (mode == AuthMode::off) return auth;
  auth.mac = &auth::hmac_sha256;
  Prng draw = Prng::derive(seed, 12);
  AuthKey old_key{};
  AuthKey new_key{};
  for (auto& b : old_key) b = static_cast<std::uint8_t>(draw.next_u64());
  for (auto& b : new_key) b = static_cast<std::uint8_t>(draw.next_u64());
  if (mode == AuthMode::shared) {
    auth.keys = {old_key};
  } else if (!node.host.empty() && node.host.back() % 2 == 0) {
    auth.keys = {new_key, old_key};  // already signs with the new key
  } else {
    auth.keys = {old_key, new_key};
  }
  return auth;
}

namespace {

// Liveness after the heal: every live node up, in one identical view, and
// every node still crashed down or removed in it (M4, M5, F1). Judged from
// the member records and reachability marks themselves, not from the
// digest the kernels compute of them. `why` names the property: F1 for a
// crashed node still listed live, M5 when the run had a cut, partition or
// flap to heal, M4 otherwise.
bool one_view(const Simulator& sim, bool had_partition, std::string* why) {
  // Asked after every event of the heal phase until it holds. Tables whose
  // digests differ differ (the digest is a function of the records, cached
  // by the table per change), so most events are answered in O(N) instead
  // of N x N lookups. A digest only ever says "not yet": one view is still
  // judged record by record below.
  if (why == nullptr) {
    std::optional<std::uint64_t> digest;
    for (std::size_t i = 1; i <= sim.size(); ++i) {
      const Kernel* k = sim.kernel(i);
      if (k == nullptr) continue;
      const std::uint64_t d = k->members().digest();
      if (digest && *digest != d) return false;
      digest = d;
    }
  }
  const auto fail = [&](const char* property, std::string text) {
    if (why) *why = cat(property, ": ", text);
    return false;
  };
  const char* split = had_partition ? "M5" : "M4";
  const Kernel* first = nullptr;
  std::size_t first_node = 0;
  for (std::size_t i = 1; i <= sim.size(); ++i) {
    const Kernel* k = sim.kernel(i);
    if (k == nullptr) continue;
    for (std::size_t j = 1; j <= sim.size(); ++j) {
      const Member* m = k->members().find(sim.address(j));
      if (sim.alive(j)) {
        const MemberId& life = sim.kernel(j)->self();
        if (m == nullptr || m->status != MemberStatus::up || m->id != life) {
          return fail(split, cat("n", std::to_string(i), " does not see live n", std::to_string(j), " up"));
        }
        if (k->is_unreachable(life)) {
          return fail(split, cat("n", std::to_string(i), " still holds live n", std::to_string(j), " unreachable"));
        }
      } else if (m != nullptr && is_live_status(m->status)) {
        return fail("F1", cat("n", std::to_string(i), " still lists crashed n", std::to_string(j), " as ",
                                  to_string(m->status)));
      }
    }
    if (first == nullptr) {
      first = k;
      first_node = i;
      continue;
    }
    const std::span<const Member> a = first->members().members();
    const std::span<const Member> b = k->members().members();
    const bool same = std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Member& x, const Member& y) {
      return x.id == y.id && x.status == y.status;
    });
    if (!same) {
      return fail(split, cat("n", std::to_string(first_node), " and n", std::to_string(i), " hold different member records"));
    }
  }
  return true;
}

// Toggles a flapping partition every period until its time is up; the
// "heal" half restores every cut, as a heal fault does.
void flap(Simulator& sim, std::vector<std::size_t> side, Duration period, Instant end, bool cut) {
  if (sim.now() >= end) {
    sim.heal();
    return;
  }
  if (cut) {
    sim.partition(side);
  } else {
    sim.heal();
  }
  const Instant next = sim.now() + period;
  sim.call_at(std::min(next, end), [&sim, side = std::move(side), period, end, cut] {
    flap(sim, side, period, end, !cut);
  });
}

std::string view_line(std::size_t node, const Kernel& k) {
  std::string line = cat("n", std::to_string(node), " ", k.self().to_string(), ": leader ",
                         k.leader() ? k.leader()->to_string() : std::string("none"),
                         k.converged() ? ", converged" : ", not converged", "; members");
  for (const Member& m : k.members().members()) {
    line += ' ';
    line += m.id.to_string();
    line += '=';
    line += to_string(m.status);
    if (k.is_unreachable(m.id)) line += "(unreachable)";
  }
  line += "; seen by";
  for (const MemberId& id : k.seen_by()) {
    line += ' ';
    line += id.to_string();
  }
  const KernelCounters& c = k.counters();
  line += cat("; frames in ", std::to_string(c.frames_in), " out ", std::to_string(c.frames_out),
              ", gossip states sent ", std::to_string(c.gossip_states_sent), ", records refused ",
              std::to_string(c.ingest_rejected));
  return line;
}

}  // namespace

RunResult run(const Scenario& scenario, const std::function<void(const TraceLine&)>& trace_sink,
              std::span<Workload* const> workloads) {
  TrafficWorkload traffic;
  std::vector<Workload*> all{&traffic};
  all.insert(all.end(), workloads.begin(), workloads.end());

  SimOptions options;
  options.seed = scenario.seed;
  options.nodes = scenario.nodes;
  options.network = scenario.network;
  options.clock_ppm = scenario.clock_ppm;
  options.tune = [&](Config& config) {
    config.mutations = scenario.mutations;
    config.auth = scenario_auth(scenario.auth, scenario.seed, config.self);
  };
  options.on_start = [&](std::size_t node, Kernel& kernel, Instant now) {
    for (Workload* w : all) w->on_start(node, kernel, now);
  };
  options.on_event = [&](std::size_t node, const Event& event) {
    for (Workload* w : all) w->on_event(node, event);
  };
  RunResult result;
  Config defaults;
  defaults.mutations = scenario.mutations;
  std::int64_t worst_ppm = 0;
  for (const std::int32_t ppm : scenario.clock_ppm) worst_ppm = std::max<std::int64_t>(worst_ppm, ppm < 0 ? -ppm : ppm);
  NoFlapping flapping(defaults, worst_ppm, &result.judged);
  // Set once built: the starts inside the constructor come before any
  // gossip, so nothing is judged there.
  const Simulator* running = nullptr;
  options.after_input = [&](std::size_t node, const Kernel& kernel) {
    for (Workload* w : all) w->after_input(node, kernel);
    if (running != nullptr) flapping.after_input(node, kernel, running->now());
  };
  const bool had_partition = std::any_of(scenario.faults.begin(), scenario.faults.end(), [](const Fault& f) {
    return f.kind == Fault::Kind::cut || f.kind == Fault::Kind::cut_one_way || f.kind == Fault::Kind::partition ||
           f.kind == Fault::Kind::flap;
  });
  Simulator sim(options);
  running = &sim;
  if (trace_sink) sim.on_trace(trace_sink);
  traffic.set_judged(&result.judged);
  MembershipSafety membership(&result.judged);
  DetectionAccuracy accuracy(defaults, scenario.nodes, &result.judged);
  TrustBoundary boundary(&result.judged);
  FaultLog faults;
  OngoingFaults ongoing;
  ClosedCrashDowning crash_downing(defaults, scenario.nodes, faults, &result.judged);
  ForgivenPause forgiven_pause(defaults, scenario.nodes, worst_ppm, faults, &result.judged);
  BootTogether boot(defaults, scenario.nodes, worst_ppm, faults, ongoing, &result.judged);
  boot.on_boot(sim.now());
  CleanPartition partition(
      defaults, scenario.nodes, worst_ppm, faults, ongoing,
      [&](std::string* why) { return one_view(sim, true, why); }, &result.judged);
  const auto check = [&] {
    membership.check(sim, result.failures);
    accuracy.check(sim, result.failures);
    boundary.check(sim, result.failures);
    crash_downing.check(sim, result.failures);
    forgiven_pause.check(sim, result.failures);
    boot.check(sim, result.failures);
    partition.check(sim, result.failures);
    flapping.check(result.failures);
    for (Workload* w : all) w->check(sim, result.failures);
  };
  const Instant start = sim.now();
  for (Workload* w : all) w->begin(sim, scenario);
  const Duration step = Duration::milliseconds(100);

  const auto run_checked_until = [&](Instant until) {
    while (sim.now() < until && result.failures.empty()) {
      sim.run_for(std::min(step, until - sim.now()));
      check();
    }
  };
  for (const Fault& f : scenario.faults) {
    run_checked_until(start + f.at);
    if (!result.failures.empty()) break;
    accuracy.on_fault(f, sim.now());
    faults.add(sim.now());
    switch (f.kind) {
      case Fault::Kind::crash:
      case Fault::Kind::lose:
        boot.on_crash(f.nodes[0], sim.now());
        if (const Kernel* k = sim.kernel(f.nodes[0]); k != nullptr && !k->is_shut_down()) {
          accuracy.on_crash(f.nodes[0], k->self(), sim.now());
          if (f.kind == Fault::Kind::crash) crash_downing.on_crash(f.nodes[0], k->self(), sim.now());
        }
        if (f.kind == Fault::Kind::crash) {
          sim.crash(f.nodes[0]);
        } else {
          sim.lose_host(f.nodes[0]);
        }
        break;
      case Fault::Kind::restart:
        if (!sim.alive(f.nodes[0])) boot.on_restart(f.nodes[0], sim.now());
        sim.restart(f.nodes[0]);
        break;
      case Fault::Kind::pause:
        if (const Kernel* k = sim.kernel(f.nodes[0]); k != nullptr && !k->is_shut_down() && !sim.paused(f.nodes[0])) {
          forgiven_pause.on_pause(f.nodes[0], k->self(), sim.now(), f.length);
        }
        sim.pause(f.nodes[0], f.length);
        break;
      case Fault::Kind::cut: sim.cut(f.nodes[0], f.nodes[1]); break;
      case Fault::Kind::cut_one_way: sim.cut_one_way(f.nodes[0], f.nodes[1]); break;
      case Fault::Kind::partition:
        partition.on_partition(sim, f.nodes);
        sim.partition(f.nodes);
        break;
      case Fault::Kind::flap: flap(sim, f.nodes, f.period, sim.now() + f.length, true); break;
      case Fault::Kind::heal:
        partition.on_heal(sim.now());
        sim.heal();
        break;
      case Fault::Kind::spike: sim.latency_spike(f.extra, sim.now() + f.length); break;
      case Fault::Kind::truncate: sim.damage_stream(f.nodes[0], f.nodes[1], Simulator::Damage::truncate); break;
      case Fault::Kind::corrupt: boundary.corrupt(sim, f); break;
      case Fault::Kind::rogue: boundary.rogue(sim, f, scenario.seed, result.failures); break;
      case Fault::Kind::flood:
      case Fault::Kind::asks: break;  // the traffic workload drives them
    }
    ongoing.add(f, sim.now());
  }
  run_checked_until(start + scenario.chaos);
  if (!result.failures.empty()) {
    result.verdict = Verdict::safety_failure;
  } else {
    sim.heal();
    const Fault heal{Fault::Kind::heal, sim.now() - start, {}, {}, {}, {}, 0, 0};
    accuracy.on_fault(heal, sim.now());
    faults.add(sim.now());
    ongoing.add(heal, sim.now());
    const Instant heal_end = sim.now() + scenario.heal;
    bool healed = false;
    while (!healed && result.failures.empty() && sim.now() < heal_end) {
      healed = sim.run_until([&] { return one_view(sim, had_partition, nullptr); }, std::min(step, heal_end - sim.now()))
                   .has_value();
      check();
    }
    if (!result.failures.empty()) {
      result.verdict = Verdict::safety_failure;
    } else if (!healed) {
      std::string why;
      (void)one_view(sim, had_partition, &why);
      result.verdict = Verdict::liveness_failure;
      const std::size_t colon = why.find(": ");
      result.failures.push_back(cat(why.substr(0, colon), ": no single view ", std::to_string(scenario.heal.ms()),
                                    " ms after the heal: ", why.substr(colon + 2)));
    } else {
      result.healed_after = sim.now() - (heal_end - scenario.heal);
      count(&result.judged, Check::m4_one_view);
      if (had_partition) count(&result.judged, Check::m5_partition_heal);
      for (Workload* w : all) w->finish(sim, result.failures);
      if (!result.failures.empty()) result.verdict = Verdict::safety_failure;
    }
  }
  for (std::size_t i = 1; i <= sim.size(); ++i) {
    const Kernel* k = sim.kernel(i);
    if (k == nullptr) {
      result.final_views.push_back(cat("n", std::to_string(i), ": crashed"));
      continue;
    }
    for (std::size_t m = 0; m < kMarkCount; ++m) result.marks[m] += k->counters().marks[m];
    result.final_views.push_back(view_line(i, *k));
  }
  if (result.verdict == Verdict::pass) {
    for (Mark mark : scenario.required_marks) {
      if (result.marks[static_cast<std::size_t>(mark)] == 0) {
        result.verdict = Verdict::coverage_failure;
        result.failures.push_back(cat("required mark ", to_string(mark), " was not hit"));
      }
    }
  }
  for (Workload* w : all) {
    if (std::string line = w->summary(); !line.empty()) result.summaries.push_back(std::move(line));
  }
  result.trace_hash = sim.trace_hash();
  result.events = sim.events_processed();
  result.simulated = sim.now() - start;
  result.timeline = sim.timeline();
  return result;
}

}  // namespace weft::sim
