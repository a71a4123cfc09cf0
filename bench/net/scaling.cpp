// Harness 5: the whole machine. K independent node pairs as K processes
// (each one pair on one io_context on one thread, process i pinned to CPU
// i), all released at once, each flooding 64 B tells for a fixed time;
// aggregate msg/s and scaling efficiency for K = 1 and 2. Beside it, the
// same for K processes each running the raw-TCP flood of harness 2, and for
// K processes hashing a buffer that fits in L1 (no memory, no kernel): how
// well this machine itself scales, which bounds what weft can.
//
// Children are this binary re-run as `scaling-child`: they report "ready"
// on stdout when set up, wait for one byte on stdin, flood, and print their
// count. The parent bounds every wait and kills children that overrun.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <sstream>

#include "bench/net/common.hpp"
#include "bench/net/flood.hpp"

namespace weft::bench::net {
namespace {

constexpr std::size_t kPayload = 64;

struct Child {
  pid_t pid = -1;
  int to_child = -1;
  int from_child = -1;
  std::string output;
};

Child spawn_child(const Options& options, const std::string& mode, int cpu, double seconds) {
  int in[2];
  int out[2];
  if (pipe(in) != 0 || pipe(out) != 0) fail("pipe failed");
  const pid_t pid = fork();
  if (pid < 0) fail("fork failed");
  if (pid == 0) {
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    close(in[0]);
    close(in[1]);
    close(out[0]);
    close(out[1]);
    const std::string cpu_text = std::to_string(cpu);
    const std::string seconds_text = fmt_fixed(seconds, 3);
    execl(options.self_exe.c_str(), options.self_exe.c_str(), "scaling-child", mode.c_str(), cpu_text.c_str(),
          seconds_text.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  return Child{pid, in[1], out[0], {}};
}

// Reads from the child until `token` is in its output or the deadline passes.
bool read_until(Child& child, const std::string& token, const Deadline& deadline) {
  char buf[256];
  while (child.output.find(token) == std::string::npos) {
    if (deadline.passed()) return false;
    pollfd p{child.from_child, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = read(child.from_child, buf, sizeof buf);
    if (n <= 0) return false;
    child.output.append(buf, static_cast<std::size_t>(n));
  }
  return true;
}

void end_children(std::vector<Child>& children, bool kill_them) {
  for (auto& c : children) {
    if (kill_them) kill(c.pid, SIGKILL);
    close(c.to_child);
    close(c.from_child);
    int status = 0;
    waitpid(c.pid, &status, 0);
  }
}

// One trial: K children, released together; the aggregate rate.
double trial(const Options& options, const std::string& mode, int k, double seconds) {
  std::vector<Child> children;
  for (int i = 0; i < k; ++i) children.push_back(spawn_child(options, mode, (options.cpu + i) % cpu_count(), seconds));
  const Deadline setup(30);
  for (auto& c : children) {
    if (!read_until(c, "ready\n", setup)) {
      end_children(children, true);
      fail("scaling: a " + mode + " child did not get ready within 30 s");
    }
  }
  for (auto& c : children) (void)!write(c.to_child, "g", 1);
  const Deadline done(seconds + 30);
  double total = 0;
  for (auto& c : children) {
    if (!read_until(c, "done\n", done)) {
      end_children(children, true);
      fail("scaling: a " + mode + " child did not finish in time");
    }
    std::istringstream in(c.output.substr(c.output.find("count ") + 6));
    double count = 0;
    in >> count;
    total += count;
  }
  end_children(children, false);
  return total / seconds;
}

}  // namespace

int run_scaling_child(int argc, char** argv) {
  if (argc != 5) return 2;
  const std::string mode = argv[2];
  const int cpu = std::stoi(argv[3]);
  const double seconds = std::stod(argv[4]);
  arm_watchdog(static_cast<unsigned>(seconds) + 60, "scaling child");
  try {
    pin_thread(cpu);
    const auto ready_then_go = [] {
      std::cout << "ready\n" << std::flush;
      char go = 0;
      if (read(STDIN_FILENO, &go, 1) != 1) fail("no go from the parent");
    };
    std::uint64_t count = 0;
    if (mode == "weft") {
      asio::io_context io{1};
      NodePair pair(io, io, bench_config());
      pair.start();
      pair.wait_until_up(10);
      WeftFlood flood(pair, kPayload);
      (void)flood.run(50'000, 30);  // warm
      ready_then_go();
      count = flood.run_for(seconds);
    } else if (mode == "raw") {
      RawFlood flood(kPayload);
      (void)flood.run(500'000, 30);
      ready_then_go();
      count = flood.run_for(seconds);
    } else {
      // The control: CPU only. FNV-1a over 4 KiB, counted in passes.
      std::vector<std::uint8_t> buffer(4096, 0x5a);
      ready_then_go();
      const std::int64_t end = now_ns() + static_cast<std::int64_t>(seconds * 1e9);
      std::uint64_t h = 0xcbf29ce484222325ULL;
      while (now_ns() < end) {
        for (const std::uint8_t b : buffer) h = (h ^ b) * 0x100000001b3ULL;
        ++count;
      }
      asm volatile("" : : "r"(h));
    }
    std::cout << "count " << count << "\ndone\n" << std::flush;
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "scaling child: " << e.what() << "\n";
    return 1;
  }
}

void run_scaling(const Options& options) {
  const double seconds = options.quick ? 0.5 : 2.0;
  const int max_k = std::min(2, cpu_count());
  std::vector<std::vector<double>> weft(static_cast<std::size_t>(max_k) + 1), raw(static_cast<std::size_t>(max_k) + 1),
      cpu(static_cast<std::size_t>(max_k) + 1);
  for (int r = 0; r < options.runs; ++r) {
    for (int k = 1; k <= max_k; ++k) {
      weft[static_cast<std::size_t>(k)].push_back(trial(options, "weft", k, seconds));
      raw[static_cast<std::size_t>(k)].push_back(trial(options, "raw", k, seconds));
      cpu[static_cast<std::size_t>(k)].push_back(trial(options, "cpu", k, seconds));
      progress("scaling run " + std::to_string(r + 1) + " K=" + std::to_string(k) + ": weft " +
               fmt_rate(weft[static_cast<std::size_t>(k)].back()) + " msg/s, raw " +
               fmt_rate(raw[static_cast<std::size_t>(k)].back()) + " msg/s");
    }
  }
  Table table("Whole machine: K node pairs as K processes, 64 B tells (harness 5)",
              {"K", "weft aggregate msg/s", "weft speedup", "weft efficiency", "raw TCP aggregate msg/s",
               "raw speedup", "raw efficiency", "weft / raw", "CPU-only control speedup", "goal"});
  const double weft1 = median(weft[1]);
  const double raw1 = median(raw[1]);
  const double cpu1 = median(cpu[1]);
  for (int k = 1; k <= max_k; ++k) {
    const double w = median(weft[static_cast<std::size_t>(k)]);
    const double rw = median(raw[static_cast<std::size_t>(k)]);
    std::string goal;
    if (k == 2) goal = std::string(">= 1.8x K=1: ") + (w / weft1 >= 1.8 ? "met" : "missed");
    table.row({std::to_string(k), fmt_rate(w), fmt_ratio(w / weft1), fmt_fixed(100 * w / weft1 / k, 0) + " %",
               fmt_rate(rw), fmt_ratio(rw / raw1), fmt_fixed(100 * rw / raw1 / k, 0) + " %", fmt_ratio(w / rw),
               fmt_ratio(median(cpu[static_cast<std::size_t>(k)]) / cpu1), goal});
  }
  table.note("median of " + std::to_string(options.runs) + " trials; a trial releases K processes at once, each " +
             "pinned to its own CPU and flooding for " + fmt_fixed(seconds, 1) +
             " s (weft: its own pair of nodes as in harness 2; raw: its own socket pair as harness 2's baseline); " +
             "aggregate = messages handled by all K in that time / the time; speedup = aggregate / K=1's; " +
             "efficiency = speedup / K; the CPU-only control is K processes hashing 4 KiB in L1 (FNV-1a), no " +
             "socket, no memory traffic: what K CPUs of this machine give at that moment; " + std::to_string(cpu_count()) + " CPUs, so K stops at " +
             std::to_string(max_k));
  table.print();
  table.write_json(options.json_dir, "scaling");
}

}  // namespace weft::bench::net
