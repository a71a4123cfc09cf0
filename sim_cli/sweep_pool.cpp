#include "sim_cli/sweep_pool.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <limits>
#include <optional>
#include <system_error>
#include <utility>

namespace weft::sim_cli {

namespace {

// ---- parsing ---------------------------------------------------------------

// A whole decimal number: digits only, no sign, no spaces, no overflow.
template <typename T>
std::optional<T> parse_number(std::string_view text) {
  if (text.empty()) return std::nullopt;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string shard_error(std::string_view text, std::string_view why) {
  return "--shard must be i/n with 1 <= i <= n, e.g. --shard 2/8 (got \"" + std::string(text) + "\": " +
         std::string(why) + ")";
}

std::string seeds_error(std::string_view text, std::string_view why) {
  return "--seeds must be A..B with A <= B, e.g. --seeds 1..1000 (got \"" + std::string(text) + "\": " +
         std::string(why) + ")";
}

// ---- the wire form ---------------------------------------------------------

constexpr std::size_t kMaxFrame = std::size_t{64} << 20;  // far beyond any real outcome

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xffU));
}
void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xffU));
}

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  bool u32(std::uint32_t& v) {
    std::uint64_t wide = 0;
    if (!take(4, wide)) return false;
    v = static_cast<std::uint32_t>(wide);
    return true;
  }
  bool u64(std::uint64_t& v) { return take(8, v); }
  bool bytes(std::size_t n, std::string& out) {
    if (bytes_.size() - pos_ < n) return false;
    out.assign(bytes_.substr(pos_, n));
    pos_ += n;
    return true;
  }
  std::size_t remaining() const { return bytes_.size() - pos_; }

 private:
  bool take(std::size_t n, std::uint64_t& v) {
    if (bytes_.size() - pos_ < n) return false;
    v = 0;
    for (std::size_t i = 0; i < n; ++i) {
      v |= std::uint64_t{static_cast<unsigned char>(bytes_[pos_ + i])} << (8 * i);
    }
    pos_ += n;
    return true;
  }
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

// ---- POSIX helpers ---------------------------------------------------------

[[noreturn]] void throw_errno(const char* what) {
  throw std::system_error(errno, std::generic_category(), std::string("weft sweep pool: ") + what);
}

void close_fd(int& fd) {
  if (fd >= 0) {
    // Not retried on EINTR: on Linux the descriptor is released either way.
    ::close(fd);
    fd = -1;
  }
}

// Writes all of `bytes`; false on any error (EPIPE: the reader is gone).
bool write_all(int fd, std::string_view bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Reads exactly `size` bytes; false on end of file or error before that.
bool read_exact(int fd, char* data, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd, data + done, size - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGABRT: return "SIGABRT";
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGPIPE: return "SIGPIPE";
    case SIGTRAP: return "SIGTRAP";
    default: return "signal";
  }
}

std::string describe_death(int status) {
  if (status == -1) return "process lost before reporting (waitpid failed)";
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return "process killed by signal " + std::to_string(sig) + " (" + signal_name(sig) + ")";
  }
  if (WIFEXITED(status)) {
    return "process exited with status " + std::to_string(WEXITSTATUS(status)) + " before reporting";
  }
  return "process stopped before reporting";
}

SeedOutcome crashed(std::uint64_t seed, std::string why) {
  SeedOutcome outcome;
  outcome.seed = seed;
  outcome.verdict = kVerdictCrash;
  outcome.first_failure = std::move(why);
  return outcome;
}

// run_one, with an escaping exception turned into a crash outcome (the same in
// the parent and in a child, so the result does not depend on jobs).
SeedOutcome run_guarded(const std::function<SeedOutcome(std::uint64_t)>& run_one, std::uint64_t seed) {
  try {
    SeedOutcome outcome = run_one(seed);
    outcome.seed = seed;
    return outcome;
  } catch (const std::exception& e) {
    return crashed(seed, std::string("uncaught exception: ") + e.what());
  } catch (...) {
    return crashed(seed, "uncaught exception of unknown type");
  }
}

// SIGPIPE ignored while the pool runs, so a write to a dead child's pipe
// returns EPIPE instead of killing the sweep; restored on scope exit.
class IgnoreSigpipe {
 public:
  IgnoreSigpipe() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    active_ = ::sigaction(SIGPIPE, &ignore, &previous_) == 0;
  }
  ~IgnoreSigpipe() {
    if (active_) ::sigaction(SIGPIPE, &previous_, nullptr);
  }
  IgnoreSigpipe(const IgnoreSigpipe&) = delete;
  IgnoreSigpipe& operator=(const IgnoreSigpipe&) = delete;

 private:
  struct sigaction previous_ {};
  bool active_ = false;
};

struct Worker {
  pid_t pid = -1;
  int task_fd = -1;    // parent writes seeds (8 bytes each); closed = no more work
  int result_fd = -1;  // parent reads framed outcomes
  std::optional<std::uint64_t> seed;  // in flight
  std::string inbox;
};

// The child: read a seed, run it, send the outcome; until the task pipe closes.
[[noreturn]] void child_main(int task_fd, int result_fd, const std::function<SeedOutcome(std::uint64_t)>& run_one) {
  for (;;) {
    char raw[8];
    if (!read_exact(task_fd, raw, sizeof raw)) break;
    std::uint64_t seed = 0;
    for (std::size_t i = 0; i < 8; ++i) seed |= std::uint64_t{static_cast<unsigned char>(raw[i])} << (8 * i);
    const SeedOutcome outcome = run_guarded(run_one, seed);
    if (!write_all(result_fd, encode_outcome(outcome))) break;
  }
  std::fflush(nullptr);
  // _exit, not exit: the parent's atexit handlers and static destructors are
  // not the child's to run.
  ::_exit(0);
}

class Pool {
 public:
  Pool(const std::vector<std::uint64_t>& seeds, unsigned jobs, const std::function<SeedOutcome(std::uint64_t)>& run_one)
      : run_one_(run_one), pending_(seeds.begin(), seeds.end()) {
    outcomes_.reserve(seeds.size());
    const std::size_t wanted = std::min<std::size_t>(jobs, seeds.size());
    workers_.reserve(wanted);
    try {
      for (std::size_t i = 0; i < wanted; ++i) {
        workers_.push_back(spawn());
        assign(workers_.back());
      }
    } catch (...) {
      if (workers_.empty()) throw;
      // Fewer children than asked for (the process limit, say): carry on
      // with those there are.
    }
  }

  ~Pool() {
    // Normal end: nothing left. On an exception: close every task pipe, so each
    // child finishes its seed and exits, then reap them all.
    for (Worker& w : workers_) close_fd(w.task_fd);
    for (Worker& w : workers_) retire(w);
  }

  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  std::vector<SeedOutcome> run() {
    std::vector<pollfd> fds;
    std::vector<std::size_t> which;
    for (;;) {
      fds.clear();
      which.clear();
      for (std::size_t i = 0; i < workers_.size(); ++i) {
        if (workers_[i].pid < 0) continue;
        fds.push_back(pollfd{workers_[i].result_fd, POLLIN, 0});
        which.push_back(i);
      }
      if (fds.empty()) break;
      const int ready = ::poll(fds.data(), static_cast<nfds_t>(fds.size()), -1);
      if (ready < 0) {
        if (errno == EINTR) continue;
        throw_errno("poll");
      }
      for (std::size_t k = 0; k < fds.size(); ++k) {
        if (fds[k].revents != 0) service(workers_[which[k]]);
      }
    }
    std::stable_sort(outcomes_.begin(), outcomes_.end(),
                     [](const SeedOutcome& a, const SeedOutcome& b) { return a.seed < b.seed; });
    return std::move(outcomes_);
  }

 private:
  Worker spawn() {
    int task[2];
    int result[2];
    if (::pipe2(task, O_CLOEXEC) != 0) throw_errno("pipe");
    if (::pipe2(result, O_CLOEXEC) != 0) {
      const int saved = errno;
      ::close(task[0]);
      ::close(task[1]);
      errno = saved;
      throw_errno("pipe");
    }
    // Nothing buffered in stdio may be written twice (by the child too).
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) {
      const int saved = errno;
      for (int fd : {task[0], task[1], result[0], result[1]}) ::close(fd);
      errno = saved;
      throw_errno("fork");
    }
    if (pid == 0) {
      // The child keeps only its own ends: a sibling's task pipe held open
      // here would keep that sibling from ever seeing end of file.
      ::close(task[1]);
      ::close(result[0]);
      for (Worker& w : workers_) {
        close_fd(w.task_fd);
        close_fd(w.result_fd);
      }
      ::signal(SIGPIPE, SIG_DFL);
      child_main(task[0], result[1], run_one_);
    }
    ::close(task[0]);
    ::close(result[1]);
    Worker w;
    w.pid = pid;
    w.task_fd = task[1];
    w.result_fd = result[0];
    return w;
  }

  // Hands `w` its next seed, or closes its task pipe when none are left.
  void assign(Worker& w) {
    while (!pending_.empty()) {
      const std::uint64_t seed = pending_.front();
      std::string raw;
      put_u64(raw, seed);
      if (!write_all(w.task_fd, raw)) {
        // The child is gone before it got this seed: not the seed's fault.
        // Its end of file on the result pipe reaps it and starts another.
        close_fd(w.task_fd);
        return;
      }
      pending_.pop_front();
      w.seed = seed;
      return;
    }
    close_fd(w.task_fd);
  }

  void service(Worker& w) {
    char buffer[4096];
    ssize_t n = 0;
    do {
      n = ::read(w.result_fd, buffer, sizeof buffer);
    } while (n < 0 && errno == EINTR);
    if (n > 0) {
      w.inbox.append(buffer, static_cast<std::size_t>(n));
      for (;;) {
        SeedOutcome outcome;
        const Decoded d = decode_outcome(w.inbox, outcome);
        if (d.status == DecodeStatus::incomplete) return;
        if (d.status == DecodeStatus::malformed || !w.seed || outcome.seed != *w.seed) {
          // A child that talks nonsense is as good as dead: stop it.
          ::kill(w.pid, SIGKILL);
          lost(w, "process sent a malformed outcome");
          return;
        }
        w.inbox.erase(0, d.used);
        outcomes_.push_back(std::move(outcome));
        w.seed.reset();
        assign(w);
      }
    }
    // End of file (or a read error): the child has exited or is exiting.
    lost(w, {});
  }

  // `w` is gone; its seed in flight, if any, is reported as a crash.
  void lost(Worker& w, const std::string& why) {
    const std::optional<std::uint64_t> seed = w.seed;
    w.seed.reset();
    const int status = retire(w);
    if (seed) outcomes_.push_back(crashed(*seed, why.empty() ? describe_death(status) : why));
    if (pending_.empty()) return;
    try {
      w = spawn();
    } catch (...) {
      // The others carry on with the remaining seeds; with none left, give up.
      const bool others = std::any_of(workers_.begin(), workers_.end(), [](const Worker& o) { return o.pid > 0; });
      if (!others) throw;
      return;
    }
    assign(w);
  }

  // Closes `w`'s pipes and reaps it; returns its wait status (-1 if none).
  int retire(Worker& w) {
    close_fd(w.task_fd);
    close_fd(w.result_fd);
    int status = -1;
    if (w.pid > 0) status = wait_for(w.pid);
    w.pid = -1;
    w.inbox.clear();
    return status;
  }

  const std::function<SeedOutcome(std::uint64_t)>& run_one_;
  std::deque<std::uint64_t> pending_;
  std::vector<Worker> workers_;
  std::vector<SeedOutcome> outcomes_;
};

}  // namespace

std::variant<Shard, std::string> parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return shard_error(text, "no '/'");
  const auto index = parse_number<std::uint32_t>(text.substr(0, slash));
  const auto count = parse_number<std::uint32_t>(text.substr(slash + 1));
  if (!index || !count) return shard_error(text, "i and n must be whole numbers");
  if (*count == 0) return shard_error(text, "n must be at least 1");
  if (*index == 0) return shard_error(text, "i starts at 1");
  if (*index > *count) return shard_error(text, "i is larger than n");
  return Shard{*index, *count};
}

std::variant<SeedRange, std::string> parse_seed_range(std::string_view text) {
  const auto dots = text.find("..");
  if (dots == std::string_view::npos) return seeds_error(text, "no '..'");
  const auto first = parse_number<std::uint64_t>(text.substr(0, dots));
  const auto last = parse_number<std::uint64_t>(text.substr(dots + 2));
  if (!first || !last) return seeds_error(text, "A and B must be whole numbers");
  if (*first > *last) return seeds_error(text, "A is larger than B");
  return SeedRange{*first, *last};
}

std::vector<std::uint64_t> shard_seeds(std::uint64_t first, std::uint64_t last, Shard shard) {
  std::vector<std::uint64_t> seeds;
  if (first > last || shard.count == 0 || shard.index == 0 || shard.index > shard.count) return seeds;
  const std::uint64_t span = last - first;  // offsets 0..span, inclusive
  const std::uint64_t step = shard.count;
  std::uint64_t offset = shard.index - 1U;
  if (offset > span) return seeds;
  seeds.reserve(static_cast<std::size_t>(std::min<std::uint64_t>((span - offset) / step + 1, std::uint64_t{1} << 20)));
  for (;;) {
    seeds.push_back(first + offset);
    if (span - offset < step) break;  // also keeps offset + step from overflowing
    offset += step;
  }
  return seeds;
}

std::string encode_outcome(const SeedOutcome& outcome) {
  std::string payload;
  payload.reserve(52 + outcome.first_failure.size() + 8 * (outcome.marks.size() + outcome.judged.size()));
  put_u64(payload, outcome.seed);
  put_u32(payload, static_cast<std::uint32_t>(outcome.verdict));
  put_u64(payload, outcome.trace_hash);
  put_u64(payload, outcome.events);
  // Bounded so a frame always fits kMaxFrame; a real failure line is short.
  const std::size_t failure_size = std::min<std::size_t>(outcome.first_failure.size(), std::size_t{1} << 20);
  put_u32(payload, static_cast<std::uint32_t>(failure_size));
  payload.append(outcome.first_failure, 0, failure_size);
  for (const std::vector<std::uint64_t>* counts : {&outcome.marks, &outcome.judged}) {
    const std::size_t count = std::min<std::size_t>(counts->size(), std::size_t{1} << 16);
    put_u32(payload, static_cast<std::uint32_t>(count));
    for (std::size_t i = 0; i < count; ++i) put_u64(payload, (*counts)[i]);
  }
  put_u64(payload, outcome.simulated_ns);
  std::string frame;
  frame.reserve(4 + payload.size());
  put_u32(frame, static_cast<std::uint32_t>(payload.size()));
  frame += payload;
  return frame;
}

Decoded decode_outcome(std::string_view bytes, SeedOutcome& out) {
  Reader header(bytes);
  std::uint32_t size = 0;
  if (!header.u32(size)) return {DecodeStatus::incomplete, 0};
  if (size > kMaxFrame) return {DecodeStatus::malformed, 0};
  if (header.remaining() < size) return {DecodeStatus::incomplete, 0};
  Reader r(bytes.substr(4, size));
  SeedOutcome o;
  std::uint32_t verdict = 0;
  std::uint32_t failure_size = 0;
  if (!r.u64(o.seed) || !r.u32(verdict) || !r.u64(o.trace_hash) || !r.u64(o.events) || !r.u32(failure_size) ||
      !r.bytes(failure_size, o.first_failure)) {
    return {DecodeStatus::malformed, 0};
  }
  for (std::vector<std::uint64_t>* counts : {&o.marks, &o.judged}) {
    std::uint32_t count = 0;
    if (!r.u32(count) || r.remaining() < std::size_t{count} * 8) return {DecodeStatus::malformed, 0};
    counts->resize(count);
    for (std::uint64_t& c : *counts) r.u64(c);
  }
  if (!r.u64(o.simulated_ns) || r.remaining() != 0) return {DecodeStatus::malformed, 0};
  o.verdict = static_cast<int>(verdict);
  out = std::move(o);
  return {DecodeStatus::complete, 4 + std::size_t{size}};
}

std::vector<SeedOutcome> run_seeds(const std::vector<std::uint64_t>& seeds, unsigned jobs,
                                   const std::function<SeedOutcome(std::uint64_t)>& run_one) {
  if (jobs <= 1 || seeds.empty()) {
    std::vector<SeedOutcome> outcomes;
    outcomes.reserve(seeds.size());
    for (std::uint64_t seed : seeds) outcomes.push_back(run_guarded(run_one, seed));
    std::stable_sort(outcomes.begin(), outcomes.end(),
                     [](const SeedOutcome& a, const SeedOutcome& b) { return a.seed < b.seed; });
    return outcomes;
  }
  IgnoreSigpipe sigpipe;
  Pool pool(seeds, jobs, run_one);
  return pool.run();
}

}  // namespace weft::sim_cli
