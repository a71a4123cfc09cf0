#include "sim/recorder.hpp"

#include <algorithm>
#include <type_traits>
#include <variant>

#include "sim/scenario.hpp"
#include "sim/simulator.hpp"

namespace weft::sim {
namespace {

// The smallest whole number of milliseconds, at least `floor`, that cuts
// `total` into at most `parts`.
Duration grid_step(Duration total, std::int64_t parts, Duration floor) {
  const std::int64_t ms = (total.ms() + parts - 1) / parts;
  return std::max(floor, Duration::milliseconds(std::max<std::int64_t>(ms, 1)));
}

}  // namespace

void RunRecorder::begin(Simulator& sim, const Scenario& scenario) {
  sim_ = &sim;
  const Duration total = scenario.chaos + scenario.heal;
  picture_ = RunPicture{};
  picture_.nodes = scenario.nodes;
  const std::uint64_t rows = std::max<std::uint64_t>(1, std::uint64_t{scenario.nodes} * scenario.nodes);
  const auto columns = static_cast<std::int64_t>(std::clamp<std::uint64_t>(kCellBudget / rows, kMinColumns, kMaxColumns));
  picture_.cell = grid_step(total, columns, Duration::milliseconds(100));
  picture_.bucket = grid_step(total, kMaxBuckets, Duration::seconds(1));
  picture_.chaos = scenario.chaos;
  picture_.views.assign(scenario.nodes, std::vector<std::vector<RunPicture::Span>>(scenario.nodes));
  picture_.process.assign(scenario.nodes, {});
  was_running_.assign(scenario.nodes, false);
  last_messages_.assign(scenario.nodes, 0);
  last_frames_.assign(scenario.nodes, 0);
  marked_unreachable_.assign(scenario.nodes, std::vector<bool>(scenario.nodes, false));
}

void RunRecorder::on_start(std::size_t node, Kernel& kernel, Instant now) {
  (void)kernel, (void)now;
  // A new life counts from zero; what the old one did since the last sample
  // is lost with it (at most one check step's worth). The first lives start
  // before begin(), which zeroes everything.
  if (node > last_messages_.size()) return;
  last_messages_[node - 1] = 0;
  last_frames_[node - 1] = 0;
}

void RunRecorder::on_event(std::size_t node, const Event& event) {
  if (sim_ == nullptr) return;
  if (const auto* reach = std::get_if<ReachabilityEvent>(&event)) {
    const std::size_t subject = sim_->node_of(reach->subject.address);
    if (reach->unreachable && subject != 0) marked_unreachable_.at(node - 1).at(subject - 1) = true;
  } else if (const auto* done = std::get_if<AskCompleted>(&event)) {
    RunPicture::Bucket& b = bucket_at(sim_->now());
    if (done->outcome == AskOutcome::reply) {
      ++b.asks_replied;
    } else {
      ++b.asks_failed;
    }
  } else if (std::holds_alternative<DeadLetter>(event)) {
    ++bucket_at(sim_->now()).dead_letters;
  }
}

void RunRecorder::check(const Simulator& sim, std::vector<std::string>& failures) {
  sample(sim);
  if (!failures.empty() && !picture_.first_failure) picture_.first_failure = sim.now() - Simulator::kStart;
}

void RunRecorder::finish(const Simulator& sim, std::vector<std::string>& failures) {
  if (!failures.empty() && !picture_.first_failure) picture_.first_failure = sim.now() - Simulator::kStart;
}

std::uint32_t RunRecorder::cell_of(Instant at) const {
  return static_cast<std::uint32_t>((at - Simulator::kStart) / picture_.cell);
}

RunPicture::Bucket& RunRecorder::bucket_at(Instant at) {
  const auto index = static_cast<std::size_t>((at - Simulator::kStart) / picture_.bucket);
  if (picture_.rates.size() <= index) picture_.rates.resize(index + 1);
  return picture_.rates[index];
}

// A sample holds from its cell until the next sample, so a row that ran
// through the previous sample is first extended to this cell. Two samples in
// one cell: the later status wins, an unreachable mark from either stays.
void RunRecorder::put(std::vector<RunPicture::Span>& row, std::uint32_t cell, std::uint8_t state, bool contiguous) {
  if (!row.empty() && contiguous && row.back().to < cell) row.back().to = cell;
  if (!row.empty() && row.back().to > cell) {  // this cell is already drawn
    RunPicture::Span& last = row.back();
    const auto merged = static_cast<std::uint8_t>(state | (last.state & RunPicture::kUnreachable));
    if (merged == last.state) return;
    if (last.from == cell) {
      last.state = merged;
      if (row.size() >= 2 && row[row.size() - 2].to == cell && row[row.size() - 2].state == merged) {
        row[row.size() - 2].to = last.to;
        row.pop_back();
      }
      return;
    }
    last.to = cell;
    row.push_back({cell, cell + 1, merged});
    return;
  }
  if (!row.empty() && row.back().to == cell && row.back().state == state) {
    row.back().to = cell + 1;
    return;
  }
  row.push_back({cell, cell + 1, state});
}

void RunRecorder::sample(const Simulator& sim) {
  const std::uint32_t cell = cell_of(sim.now());
  picture_.end = sim.now() - Simulator::kStart;
  picture_.cells = cell + 1;
  RunPicture::Bucket& rates = bucket_at(sim.now());
  for (std::size_t i = 1; i <= picture_.nodes; ++i) {
    const Kernel* k = sim.kernel(i);
    RunPicture::Process process = RunPicture::running;
    if (k == nullptr) {
      process = RunPicture::crashed;
    } else if (k->is_shut_down()) {
      process = RunPicture::shut_down;
    } else if (sim.paused(i)) {
      process = RunPicture::paused;
    }
    put(picture_.process[i - 1], cell, process, true);
    const bool running = k != nullptr && !k->is_shut_down();
    if (k != nullptr) {
      const KernelCounters& c = k->counters();
      rates.messages += c.user_messages_dispatched - std::min(c.user_messages_dispatched, last_messages_[i - 1]);
      rates.frames += c.frames_in - std::min(c.frames_in, last_frames_[i - 1]);
      last_messages_[i - 1] = c.user_messages_dispatched;
      last_frames_[i - 1] = c.frames_in;
    }
    if (running) {
      for (std::size_t j = 1; j <= picture_.nodes; ++j) {
        const Member* m = k->members().find(sim.address(j));
        auto state = m == nullptr ? RunPicture::kAbsent : static_cast<std::uint8_t>(m->status);
        if (marked_unreachable_[i - 1][j - 1] || (m != nullptr && k->is_unreachable(m->id))) {
          state = static_cast<std::uint8_t>(state | RunPicture::kUnreachable);
        }
        put(picture_.views[i - 1][j - 1], cell, state, was_running_[i - 1]);
      }
    }
    marked_unreachable_[i - 1].assign(picture_.nodes, false);
    was_running_[i - 1] = running;
  }
}

}  // namespace weft::sim
