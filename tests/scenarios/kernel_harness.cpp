#include "kernel_harness.hpp"

#include <algorithm>

#include "kernel/drain.hpp"

namespace weft::testing {

Harness::Harness(std::size_t nodes, const std::function<void(Config&)>& tune) {
  for (std::size_t i = 1; i <= nodes; ++i) {
    Config config;
    config.cluster_name = "harness";
    config.self = NodeAddress{"10.0.0." + std::to_string(i), 7000};
    config.incarnation = Incarnation{100};
    config.seeds = {NodeAddress{"10.0.0.1", 7000}};
    if (tune) tune(config);
    EXPECT_TRUE(config.validate().empty());
    Node node{config.self, std::make_unique<Kernel>(config, 1000 + i), false, false, {}};
    nodes_.push_back(std::move(node));
  }
  for (std::size_t i = 1; i <= nodes; ++i) node(i).handle_tick(now_);
  while (flush()) {
  }
}

std::size_t Harness::index_of(const NodeAddress& address) const {
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].address == address) return i + 1;
  }
  return 0;
}

bool Harness::blocked(std::size_t from, std::size_t to) const {
  return cuts_.count({std::min(from, to), std::max(from, to)}) != 0 || nodes_[from - 1].paused ||
         nodes_[to - 1].paused;
}

void Harness::close_pipe(Pipe& pipe, std::size_t closer) {
  if (!pipe.open) return;
  pipe.open = false;
  const bool dialer_closed = closer == pipe.dialer;
  if (!nodes_[pipe.acceptor - 1].crashed && closer != pipe.acceptor) {
    node(pipe.acceptor).handle_link_down(now_, pipe.acceptor_link, LinkDownCause::closed_by_peer);
  }
  if (!nodes_[pipe.dialer - 1].crashed && !dialer_closed) {
    node(pipe.dialer).handle_link_down(now_, pipe.dialer_link, LinkDownCause::closed_by_peer);
  }
}

// Moves one kernel's outputs into the pipes.
void Harness::drain(std::size_t i) {
  Node& n = nodes_[i - 1];
  if (n.crashed || n.paused) return;
  const auto on_command = [&](LinkCommand&& command) {
    if (const auto* connect = std::get_if<ConnectCommand>(&command)) {
      const std::size_t target = index_of(connect->address);
      if (target == 0 || nodes_[target - 1].crashed) {
        n.kernel->handle_link_down(now_, connect->link, LinkDownCause::refused);
        return;
      }
      // A paused process's kernel still has its listening socket: the OS
      // accepts, the process reads later.
      const LinkId accepted = node(target).handle_link_accepted(now_);
      pipes_.push_back(Pipe{i, connect->link, target, accepted, {}, {}, true});
      n.kernel->handle_link_up(now_, connect->link);
      return;
    }
    const auto& close = std::get<CloseCommand>(command);
    for (Pipe& pipe : pipes_) {
      if ((pipe.dialer == i && pipe.dialer_link == close.link) ||
          (pipe.acceptor == i && pipe.acceptor_link == close.link)) {
        close_pipe(pipe, i);
      }
    }
  };
  const auto on_transmit = [&](const Transmit& transmit) {
    for (Pipe& pipe : pipes_) {
      if (!pipe.open) continue;
      if (pipe.dialer == i && pipe.dialer_link == transmit.link) {
        pipe.to_acceptor.insert(pipe.to_acceptor.end(), transmit.bytes.begin(), transmit.bytes.end());
      } else if (pipe.acceptor == i && pipe.acceptor_link == transmit.link) {
        pipe.to_dialer.insert(pipe.to_dialer.end(), transmit.bytes.begin(), transmit.bytes.end());
      }
    }
    n.kernel->handle_sent(now_, transmit.link);  // an unbounded pipe takes every write at once
  };
  (void)weft::drain(*n.kernel, on_command, on_transmit, [&](Event&& event) {
    n.events.push_back(std::move(event));
    return true;
  });
}

bool Harness::flush() {
  for (std::size_t i = 1; i <= nodes_.size(); ++i) drain(i);
  bool moved = false;
  for (std::size_t p = 0; p < pipes_.size(); ++p) {
    if (!pipes_[p].open) continue;
    const std::size_t dialer = pipes_[p].dialer;
    const std::size_t acceptor = pipes_[p].acceptor;
    if (!pipes_[p].to_acceptor.empty() && !blocked(dialer, acceptor)) {
      const std::vector<std::uint8_t> bytes = std::move(pipes_[p].to_acceptor);
      pipes_[p].to_acceptor.clear();
      node(acceptor).handle_bytes(now_, pipes_[p].acceptor_link, bytes);
      moved = true;
    }
    if (!pipes_[p].to_dialer.empty() && !blocked(dialer, acceptor)) {
      const std::vector<std::uint8_t> bytes = std::move(pipes_[p].to_dialer);
      pipes_[p].to_dialer.clear();
      node(dialer).handle_bytes(now_, pipes_[p].dialer_link, bytes);
      moved = true;
    }
  }
  for (std::size_t i = 1; i <= nodes_.size(); ++i) drain(i);
  return moved;
}

void Harness::advance(Duration duration, Duration step) {
  const Instant end = now_ + duration;
  while (now_ < end) {
    now_ = std::min(end, now_ + step);
    for (std::size_t i = 1; i <= nodes_.size(); ++i) {
      Node& n = nodes_[i - 1];
      if (n.crashed || n.paused) continue;
      // Ticks at every step, and again while a kernel has work due now.
      for (int guard = 0; guard < 64 && n.kernel->next_deadline() <= now_; ++guard) {
        n.kernel->handle_tick(now_);
        drain(i);
      }
      n.kernel->handle_tick(now_);
    }
    for (int guard = 0; guard < 1000 && flush(); ++guard) {
    }
  }
}

std::optional<Duration> Harness::advance_until(const std::function<bool()>& done, Duration limit,
                                               Duration step) {
  const Instant start = now_;
  while (now_ - start < limit) {
    if (done()) return now_ - start;
    advance(step, step);
  }
  return done() ? std::optional<Duration>(now_ - start) : std::nullopt;
}

void Harness::crash(std::size_t i) {
  nodes_[i - 1].crashed = true;
  for (Pipe& pipe : pipes_) {
    if (pipe.open && (pipe.dialer == i || pipe.acceptor == i)) close_pipe(pipe, i);
  }
}

void Harness::pause(std::size_t i) { nodes_[i - 1].paused = true; }
void Harness::resume(std::size_t i) { nodes_[i - 1].paused = false; }
void Harness::cut(std::size_t a, std::size_t b) { cuts_.insert({std::min(a, b), std::max(a, b)}); }
void Harness::restore(std::size_t a, std::size_t b) { cuts_.erase({std::min(a, b), std::max(a, b)}); }

std::optional<MemberStatus> Harness::status_seen_by(std::size_t observer, std::size_t subject) const {
  const Member* m = nodes_[observer - 1].kernel->members().find(address(subject));
  if (m == nullptr) return std::nullopt;
  return m->status;
}

bool Harness::all_see_status(const std::vector<std::size_t>& observers, std::size_t subject,
                             MemberStatus status) const {
  return std::all_of(observers.begin(), observers.end(),
                     [&](std::size_t o) { return status_seen_by(o, subject) == status; });
}

bool Harness::unreachable_seen_by(std::size_t observer, std::size_t subject) const {
  const Member* m = nodes_[observer - 1].kernel->members().find(address(subject));
  return m != nullptr && nodes_[observer - 1].kernel->is_unreachable(m->id);
}

std::uint64_t Harness::count_events(std::size_t i, const std::function<bool(const Event&)>& match) const {
  return static_cast<std::uint64_t>(
      std::count_if(nodes_[i - 1].events.begin(), nodes_[i - 1].events.end(), match));
}

void Harness::expect(bool condition, const std::string& what, const char* file, int line) const {
  EXPECT_TRUE(condition) << what << "\n  (scenario line " << file << ":" << line
                         << ", t=" << (now_ - Instant::from_ns(1'000'000'000)).ms() << " ms)";
}

}  // namespace weft::testing
