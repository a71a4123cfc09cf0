#include "daemon/admin_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <charconv>
#include <functional>
#include <thread>
#include <utility>

namespace weft::daemon {
namespace {

using Clock = std::chrono::steady_clock;

// The connection this serving thread answers: set for the whole of serve(),
// so the routing hooks can mark it answering.
thread_local void* tl_slot = nullptr;

std::string sha256(std::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr) != 1) return {};
  return std::string(reinterpret_cast<const char*>(digest), size);
}

void answer_busy(int fd) {
  static constexpr std::string_view kBusy =
      "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain\r\n"
      "Content-Length: 20\r\n\r\nadmin endpoint busy\n";
  (void)::send(fd, kBusy.data(), kBusy.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

// Closes after the response without a reset: what the client sent and we
// did not read (a refused body) is drained first, or the kernel would
// answer it with a RST that can destroy the response in flight. `linger`
// is how long to wait for more of it: none for a connection refused as
// busy, whose slot (or the accepting thread) must not wait on the client.
void close_gently(int fd, std::chrono::milliseconds linger = std::chrono::milliseconds(500)) {
  ::shutdown(fd, SHUT_WR);
  const Clock::time_point until = Clock::now() + linger;
  char sink[4096];
  for (std::size_t drained = 0; drained < 256 * 1024;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(left, 0))) <= 0) break;
    const ssize_t got = ::recv(fd, sink, sizeof sink, MSG_DONTWAIT);
    if (got <= 0) break;
    drained += static_cast<std::size_t>(got);
  }
  ::close(fd);
}

std::string ip_of(const sockaddr_storage& address) {
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(address).sin_addr, text, sizeof text);
  } else if (address.ss_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6&>(address).sin6_addr, text, sizeof text);
  }
  return text;
}

int port_of(const sockaddr_storage& address) {
  if (address.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in&>(address).sin_port);
  if (address.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6&>(address).sin6_port);
  return 0;
}

}  // namespace

std::string_view to_string(AdminRefusal reason) {
  switch (reason) {
    case AdminRefusal::no_credential: return "no_credential";
    case AdminRefusal::bad_credential: return "bad_credential";
    case AdminRefusal::control_off: return "control_off";
    case AdminRefusal::body_too_large: return "body_too_large";
    case AdminRefusal::length_required: return "length_required";
    case AdminRefusal::browser_origin: return "browser_origin";
    case AdminRefusal::request_too_large: return "request_too_large";
    case AdminRefusal::request_deadline: return "request_deadline";
    case AdminRefusal::over_capacity: return "over_capacity";
    case AdminRefusal::source_over_capacity: return "source_over_capacity";
    case AdminRefusal::evicted_waiting: return "evicted_waiting";
  }
  return "?";
}

// httplib hands each accepted socket to its task queue; this one runs the
// hand-off on the accepting thread itself, where process_and_close_socket
// decides at once (no blocking call) whether the connection gets a thread
// of its own or a 503. A fixed pool would let a few slow connections queue
// every other behind them.
class AdminServer::Inline final : public httplib::TaskQueue {
 public:
  explicit Inline(AdminServer& server) : server_(server) {}
  void enqueue(std::function<void()> fn) override { fn(); }
  // Every connection ends within its deadlines and every handler's wait is
  // bounded (shorter once stopping() holds), so this returns.
  void shutdown() override {
    std::unique_lock lock(server_.mutex_);
    server_.idle_.wait(lock, [this] { return server_.slots_.empty(); });
  }

 private:
  AdminServer& server_;
};

// httplib's view of one connection: reads end at the request deadline or
// past the request's byte budget, whichever comes first.
class AdminServer::Stream final : public httplib::Stream {
 public:
  // `on_response`: called before the first byte of the response (not of
  // an interim "100 Continue"); false: the connection was evicted, write nothing.
  Stream(int fd, const AdminLimits& limits, std::function<bool()> on_response = {})
      : on_response_(std::move(on_response)),
        fd_(fd),
        deadline_(Clock::now() + limits.request_deadline),
        write_timeout_(limits.write_timeout),
        budget_(limits.max_request_bytes) {}

  bool is_readable() const override { return wait(POLLIN, left()) > 0; }
  bool is_writable() const override {
    return write_deadline_ == Clock::time_point{} ? wait(POLLOUT, write_timeout_) > 0
                                                  : wait(POLLOUT, std::chrono::duration_cast<std::chrono::milliseconds>(
                                                                      write_deadline_ - Clock::now())) > 0;
  }

  ssize_t read(char* ptr, size_t size) override {
    if (budget_ == 0) {
      too_large_ = true;
      return -1;
    }
    const std::chrono::milliseconds left_now = left();
    if (left_now.count() <= 0 || wait(POLLIN, left_now) <= 0) {
      timed_out_ = left().count() <= 0;
      return -1;
    }
    ssize_t got = 0;
    do {
      got = ::recv(fd_, ptr, std::min(size, budget_), 0);
    } while (got < 0 && errno == EINTR);
    if (got > 0) budget_ -= static_cast<std::size_t>(got);
    return got;
  }

  // The whole response within write_timeout of its first byte, however
  // slowly the client reads: each send takes what fits without blocking.
  ssize_t write(const char* ptr, size_t size) override {
    if (on_response_ && !std::string_view(ptr, size).starts_with("HTTP/1.1 100 ")) {
      if (!std::exchange(on_response_, {})()) return -1;
    }
    if (write_deadline_ == Clock::time_point{}) write_deadline_ = Clock::now() + write_timeout_;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(write_deadline_ - Clock::now());
    if (wait(POLLOUT, left) <= 0) return -1;
    ssize_t sent = 0;
    do {
      sent = ::send(fd_, ptr, size, MSG_NOSIGNAL | MSG_DONTWAIT);
    } while (sent < 0 && errno == EINTR);
    return sent;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override { name(::getpeername, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { name(::getsockname, ip, port); }
  socket_t socket() const override { return fd_; }

  bool timed_out() const { return timed_out_; }
  bool too_large() const { return too_large_; }

 private:
  std::chrono::milliseconds left() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now());
  }
  void name(int (*get)(int, sockaddr*, socklen_t*), std::string& ip, int& port) const {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    if (get(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) return;
    ip = ip_of(address);
    port = port_of(address);
  }
  int wait(short events, std::chrono::milliseconds limit) const {
    if (limit.count() <= 0) return 0;
    pollfd p{fd_, events, 0};
    int ready = 0;
    do {
      ready = ::poll(&p, 1, static_cast<int>(limit.count()));
    } while (ready < 0 && errno == EINTR);
    return ready;
  }

  std::function<bool()> on_response_;
  int fd_;
  Clock::time_point deadline_;
  std::chrono::milliseconds write_timeout_;
  Clock::time_point write_deadline_{};  // set by the first write
  std::size_t budget_;
  bool timed_out_ = false;
  bool too_large_ = false;
};

AdminServer::AdminServer(AdminLimits limits, std::string token, bool control)
    : limits_(limits), token_digest_(token.empty() ? std::string() : sha256(token)), control_(control) {
  new_task_queue = [this] { return new Inline(*this); };
  set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) { return screen(req, res); });
  // A client that waits for "100 Continue" before its body hears the
  // refusal instead, and sends nothing.
  set_expect_100_continue_handler([this](const httplib::Request& req, httplib::Response& res) {
    return screen(req, res) == HandlerResponse::Handled ? res.status : 100;
  });
  set_payload_max_length(limits_.max_body_bytes);
}

AdminServer::~AdminServer() = default;

bool AdminServer::bind(const std::string& host, int port) {
  if (!bind_to_port(host.c_str(), port)) return false;
  // listen() on a listening socket sets its backlog anew (Linux).
  (void)::listen(svr_sock_, static_cast<int>(limits_.max_connections * 2));
  return true;
}

namespace {
constexpr std::string_view kEvicted = "evicted: the endpoint was full and this request the slowest\n";
}

// A request read whole is answered, never evicted; one evicted just before
// (its body's last byte racing the eviction) runs no handler.
void AdminServer::read_only(const std::string& path, Handler handler) {
  Get(path, [this, handler = std::move(handler)](const httplib::Request& req, httplib::Response& res) {
    if (!answering()) {
      res.status = 503;
      return res.set_content(std::string(kEvicted), "text/plain");
    }
    handler(req, res);
  });
}

void AdminServer::control(const std::string& path, Handler handler) {
  control_routes_["POST " + path] = true;
  Post(path, [this, handler = std::move(handler)](const httplib::Request& req, httplib::Response& res) {
    if (!answering()) {
      res.status = 503;
      return res.set_content(std::string(kEvicted), "text/plain");
    }
    handler(req, res);
  });
}

void AdminServer::shut_down() {
  stopping_.store(true, std::memory_order_release);
  stop();
}

void AdminServer::refuse(AdminRefusal reason) {
  refused_[static_cast<std::size_t>(reason)].fetch_add(1, std::memory_order_relaxed);
}

httplib::Server::HandlerResponse AdminServer::screen(const httplib::Request& req, httplib::Response& res) {
  const auto answer = [&](AdminRefusal reason, int status, const std::string& why) {
    if (!answering()) return HandlerResponse::Handled;  // evicted: nothing is written
    refuse(reason);
    res.status = status;  // and the connection closes: one request each
    res.set_content(why + "\n", "text/plain");
    return HandlerResponse::Handled;
  };
  if (req.has_header("Transfer-Encoding") || (req.method == "POST" && !req.has_header("Content-Length"))) {
    return answer(AdminRefusal::length_required, 411, "a body needs a Content-Length here (no chunked bodies)");
  }
  if (req.has_header("Content-Length")) {
    const std::string text = req.get_header_value("Content-Length");
    std::uint64_t length = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), length);
    if (error != std::errc{} || end != text.data() + text.size() || length > limits_.max_body_bytes) {
      return answer(AdminRefusal::body_too_large, 413,
                    "a body may be at most " + std::to_string(limits_.max_body_bytes) + " bytes");
    }
  }
  // A request without a body is whole once its head is read: from here
  // it is answered, never evicted. One with a body is, at its handler.
  if (!req.has_header("Content-Length") || req.get_header_value("Content-Length") == "0") {
    if (!answering()) return HandlerResponse::Handled;
  }
  if (control_routes_.count(req.method + " " + req.path) == 0) return HandlerResponse::Unhandled;
  if (!control_) {
    return answer(AdminRefusal::control_off, 403, "control is off on this node (admin_control = false)");
  }
  // Browsers name the page that made a request; weftctl, curl and scripts
  // send no Origin. A cross-site form POST needs no preflight, so without
  // this any page the operator opens could make the node leave.
  if (req.has_header("Origin")) {
    return answer(AdminRefusal::browser_origin, 403, "control is not for browsers (the request has an Origin)");
  }
  if (token_digest_.empty()) return HandlerResponse::Unhandled;
  const std::string authorization = req.get_header_value("Authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (!authorization.starts_with(kBearer)) {
    res.set_header("WWW-Authenticate", "Bearer realm=\"weftd\"");
    return answer(AdminRefusal::no_credential, 401,
                  "control needs the admin token: Authorization: Bearer <token> (weftctl --token-file)");
  }
  // Digests of equal length, compared in constant time: neither the
  // token's length nor its prefix leaks through the time of a refusal.
  const std::string presented = sha256(std::string_view(authorization).substr(kBearer.size()));
  if (presented.size() != token_digest_.size() ||
      CRYPTO_memcmp(presented.data(), token_digest_.data(), presented.size()) != 0) {
    return answer(AdminRefusal::bad_credential, 403, "the admin token is not this node's");
  }
  return HandlerResponse::Unhandled;
}

std::optional<AdminServer::Slots::iterator> AdminServer::admit(socket_t sock, const std::string& source,
                                                               AdminRefusal& why) {
  const std::lock_guard lock(mutex_);
  assert(held_ <= slots_.size());
  std::size_t& held = sources_[source];
  if (held >= limits_.max_per_source) {
    why = AdminRefusal::source_over_capacity;
    return std::nullopt;
  }
  if (held_ >= limits_.max_connections) {
    // Evicted ones still closing count against a second max_connections:
    // the threads alive stay bounded however fast clients connect.
    const auto victim = std::find_if(slots_.begin(), slots_.end(),
                                     [](const Slot& slot) { return slot.state == SlotState::waiting; });
    if (victim == slots_.end() || slots_.size() - held_ >= limits_.max_connections) {
      if (held == 0) sources_.erase(source);
      why = AdminRefusal::over_capacity;
      return std::nullopt;
    }
    // Its fd is open: its thread closes it only after moving it to closing,
    // under this lock. The 503 first, then the thread's read ends at once.
    answer_busy(victim->fd);
    ::shutdown(victim->fd, SHUT_RDWR);
    victim->state = SlotState::evicted;
    --held_;
    if (const auto it = sources_.find(victim->source); --it->second == 0 && it->first != source) sources_.erase(it);
    refuse(AdminRefusal::evicted_waiting);
  }
  ++held;
  ++held_;
  return slots_.insert(slots_.end(), Slot{sock, source});
}

bool AdminServer::answering() {
  auto* const slot = static_cast<Slot*>(tl_slot);
  assert(slot != nullptr);
  const std::lock_guard lock(mutex_);
  if (slot->state == SlotState::waiting) slot->state = SlotState::answering;
  return slot->state == SlotState::answering;
}

bool AdminServer::closing(Slots::iterator slot) {
  const std::lock_guard lock(mutex_);
  const bool evicted = slot->state == SlotState::evicted;
  if (!evicted) {
    --held_;
    const auto it = sources_.find(slot->source);
    if (--it->second == 0) sources_.erase(it);
  }
  slot->state = SlotState::closing;
  return evicted;
}

void AdminServer::release(Slots::iterator slot) {
  const std::lock_guard lock(mutex_);
  assert(slot->state == SlotState::closing);
  slots_.erase(slot);
  idle_.notify_all();
}

// On the accepting thread: nothing here waits on the client.
bool AdminServer::process_and_close_socket(socket_t sock) {
  std::string source;
  int port = 0;
  Stream(sock, limits_).get_remote_ip_and_port(source, port);
  AdminRefusal why = AdminRefusal::over_capacity;
  std::optional<Slots::iterator> slot = admit(sock, source, why);
  if (slot) {
    try {
      std::thread([this, at = *slot] { serve(at); }).detach();
    } catch (const std::system_error&) {  // no thread to be had (RLIMIT_NPROC, memory): busy
      (void)closing(*slot);
      release(*slot);
      slot.reset();
      why = AdminRefusal::over_capacity;
    }
  }
  if (!slot) {
    refuse(why);
    answer_busy(sock);
    close_gently(sock, std::chrono::milliseconds(0));
  }
  return slot.has_value();
}

void AdminServer::serve(Slots::iterator slot) {
  tl_slot = &*slot;
  const socket_t sock = slot->fd;
  Stream stream(sock, limits_, [this] { return answering(); });
  // One request a connection: a kept-alive connection would need a fresh
  // deadline per request, and nothing here is worth the connection reuse.
  bool closed = false;
  const bool ok = process_request(stream, /*close_connection=*/true, closed, [](httplib::Request&) {});
  const bool evicted = closing(slot);  // from here no eviction touches the fd
  if (stream.timed_out() && !evicted) refuse(AdminRefusal::request_deadline);
  if (stream.too_large() && !evicted) refuse(AdminRefusal::request_too_large);
  if (ok && !evicted) served_.fetch_add(1, std::memory_order_relaxed);
  close_gently(sock, evicted ? std::chrono::milliseconds(0) : std::chrono::milliseconds(500));
  tl_slot = nullptr;
  release(slot);  // last: shut_down's wait may end here, and the server with it
}

std::size_t AdminServer::open_connections() const {
  const std::lock_guard lock(mutex_);
  return slots_.size();
}

std::string AdminServer::metrics_text() const {
  std::string text =
      "# HELP weft_admin_requests_total Admin requests answered.\n# TYPE weft_admin_requests_total counter\n"
      "weft_admin_requests_total " +
      std::to_string(served_.load(std::memory_order_relaxed)) +
      "\n# HELP weft_admin_refused_total Admin requests and connections refused, by reason.\n"
      "# TYPE weft_admin_refused_total counter\n";
  for (const AdminRefusal reason : kAllAdminRefusals) {
    text += "weft_admin_refused_total{reason=\"" + std::string(to_string(reason)) + "\"} " +
            std::to_string(refused_[static_cast<std::size_t>(reason)].load(std::memory_order_relaxed)) + "\n";
  }
  text += "# HELP weft_admin_connections Admin connections open now.\n# TYPE weft_admin_connections gauge\n"
          "weft_admin_connections " +
          std::to_string(open_connections()) + "\n";
  return text;
}

}  // namespace weft::daemon
