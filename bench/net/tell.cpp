// Harness 2: tell throughput per core. Two nodes on one io_context on one
// pinned thread, node a telling node b's sink; the clock runs from the
// first tell until the sink's handler has handled the last message. Beside
// it, in the same run and on the same CPU, the raw-TCP limit: the same
// frame bytes written in batches through the same kind of asio loop to a
// reader that only finds frame boundaries. Runs alternate weft, raw, weft,
// raw, so drift on a shared machine hits both.
#include <algorithm>

#include "bench/alloc_counter.hpp"
#include "bench/net/common.hpp"
#include "bench/net/flood.hpp"

namespace weft::bench::net {
namespace {

struct Goal {
  std::size_t payload;
  const char* label;
  double ratio;
};
constexpr Goal kGoals[] = {{64, "64 B", 0.25}, {1024, "1 KB", 0.60}, {16384, "16 KB", 0.85}};

struct Result {
  std::vector<double> weft_rate;
  std::vector<double> raw_rate;
  std::vector<double> allocs;  // per weft message, both nodes and the driver
  std::size_t weft_frame = 0;
  std::uint64_t weft_count = 0;
  std::uint64_t raw_count = 0;
  std::uint64_t window = 0;
};

Result measure(const Options& options, std::size_t payload) {
  const double seconds = options.quick ? 0.1 : 1.0;
  const std::uint64_t pilot = payload >= 16384 ? 2'000 : 20'000;
  Result result;
  asio::io_context io{1};
  NodePair pair(io, io, bench_config());
  pair.start();
  pair.wait_until_up(10);
  WeftFlood weft(pair, payload);
  RawFlood raw(payload);
  result.weft_frame = weft.frame_bytes();
  result.window = weft.window();
  // Pilots: warm every buffer, and size the runs to about `seconds` each.
  const double weft_pilot = static_cast<double>(pilot) / weft.run(pilot, 30);
  const double raw_pilot = static_cast<double>(pilot * 5) / raw.run(pilot * 5, 30);
  result.weft_count = count_for(weft_pilot, seconds, pilot, 50'000'000);
  result.raw_count = count_for(raw_pilot, seconds, pilot, 200'000'000);
  for (int r = 0; r < options.runs; ++r) {
    const std::uint64_t allocs = allocations();
    result.weft_rate.push_back(static_cast<double>(result.weft_count) / weft.run(result.weft_count, 60));
    result.allocs.push_back(static_cast<double>(allocations() - allocs) / static_cast<double>(result.weft_count));
    result.raw_rate.push_back(static_cast<double>(result.raw_count) / raw.run(result.raw_count, 60));
    progress("tell " + std::to_string(payload) + " B run " + std::to_string(r + 1) + ": weft " +
             fmt_rate(result.weft_rate.back()) + " msg/s, raw " + fmt_rate(result.raw_rate.back()) + " msg/s");
  }
  return result;
}

std::string range(const std::vector<double>& v) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return fmt_rate(*lo) + "-" + fmt_rate(*hi);
}

}  // namespace

void run_tell(const Options& options) {
  pin_thread(options.cpu);
  Table table("Tell throughput per core, real loopback TCP (harness 2)",
              {"payload", "weft msg/s", "weft MB/s", "raw TCP msg/s", "raw MB/s", "weft / raw", "goal", "",
               "weft range", "raw range", "weft allocs/msg"});
  for (const Goal& goal : kGoals) {
    if (options.only_payload != 0 && options.only_payload != goal.payload) continue;
    const Result r = measure(options, goal.payload);
    const double weft = median(r.weft_rate);
    const double raw = median(r.raw_rate);
    const double ratio = weft / raw;
    const double mb = static_cast<double>(goal.payload) / 1e6;
    table.row({goal.label, fmt_rate(weft), fmt_fixed(weft * mb, 0), fmt_rate(raw), fmt_fixed(raw * mb, 0),
               fmt_ratio(ratio), ">= " + fmt_ratio(goal.ratio), ratio >= goal.ratio ? "met" : "missed",
               range(r.weft_rate), range(r.raw_rate), fmt_fixed(median(r.allocs), 4)});
    if (goal.payload == 64) {
      table.note("frame " + std::to_string(r.weft_frame) + " B for a 64 B body; window " +
                 std::to_string(r.window) + " told-but-unhandled messages");
    }
  }
  table.note("median of " + std::to_string(options.runs) + " runs each, weft and raw alternating, one thread pinned to CPU " +
             std::to_string(options.cpu) + "; MB/s counts payload bytes (10^6 B); weft: node a tells node b's sink through " +
             "weft::io::Node, defaults (mailbox 1024, dispatch_batch 64, max_write_bytes 256 KiB), clock stops when " +
             "the sink handled the last message; raw: the same frame bytes, async_write of 256 KiB batches, " +
             "64 KiB async_read_some + FrameDecoder counting frames");
  // Smoke runs write the same file; the note lets a reader of the JSON
  // (bench/peers/weft_io.py) tell their counts from a measurement's.
  if (options.quick) table.note("quick: small counts, a smoke test, not a measurement");
  table.print();
  table.write_json(options.json_dir, "tell");
}

}  // namespace weft::bench::net
