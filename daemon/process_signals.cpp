#include "daemon/process_signals.hpp"

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace weft::daemon {
namespace {

sigset_t the_three() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

void ProcessSignals::block() {
  const sigset_t set = the_three();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

bool ProcessSignals::open(std::string& error) {
  const sigset_t set = the_three();
  const int fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd < 0) {
    error = std::string("signalfd: ") + std::strerror(errno);
    return false;
  }
  fd_.assign(fd);
  return true;
}

void ProcessSignals::watch(std::function<void(int)> on_signal) {
  on_signal_ = std::move(on_signal);
  arm();
}

void ProcessSignals::arm() {
  fd_.async_wait(asio::posix::descriptor_base::wait_read, [this](const std::error_code& e) {
    if (e) return;  // closed: the daemon is going
    // One signal a wake-up: another pending keeps the fd readable, and one
    // that stops the io loop (a second SIGTERM) is the last delivered.
    signalfd_siginfo info{};
    if (::read(fd_.native_handle(), &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      on_signal_(static_cast<int>(info.ssi_signo));
    }
    arm();
  });
}

}  // namespace weft::daemon
