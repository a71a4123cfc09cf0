// weftd's admin endpoint as an HTTP server bounded like any server facing a
// network (docs/deploy.md, "The admin endpoint"). cpp-httplib parses; this
// class decides what a connection may cost before and while it is parsed:
//
// - One request per connection, read whole within `request_deadline` of the
//   accept (a slow client is cut off at the deadline, however it trickles)
//   and at most `max_request_bytes` of head and body; a body over
//   `max_body_bytes` is refused from its Content-Length, before a byte of it
//   is read; a body without a Content-Length (chunked, or to the end of
//   the stream) is refused (nothing here needs one).
// - At most `max_connections` connections at once, `max_per_source` from
//   one address. Past the source's cap the new connection is answered 503
//   and closed at once, on the accepting thread, so one client holding
//   many slow connections cannot keep another from /health. When all
//   `max_connections` are held, the connection that has waited longest
//   for its request (accepted first, its request not yet read whole) is
//   answered 503 and closed to admit the new one, the way the cluster
//   port's max_pending_handshakes evicts the oldest handshake: many
//   sources each holding slow connections would otherwise fill every slot
//   and starve /health, members and metrics for up to request_deadline at
//   a time. A connection whose request was read whole (it is being
//   answered) is never cut: if every slot is answering, or
//   `max_connections` evicted ones are still closing, the new one is the
//   one refused. Eviction rather than a reserve of slots: which routes a
//   connection wants is not known at the accept, and a reserve the slow
//   clients can also take fills the same way. The response has
//   `write_timeout` in all, however slowly the client reads.
// - Routes are read-only (GET: health, members, metrics) or control (POST:
//   they change state); a control request needs `Authorization: Bearer
//   <token>` when a token is set (compared in constant time), is refused
//   whole when control is off, and is refused if a browser sent it (an
//   Origin header: a web page the operator opens must not drive it).
// Every refusal is counted by reason (weft_admin_refused_total).
#pragma once

#include <httplib.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace weft::daemon {

struct AdminLimits {
  std::size_t max_connections = 64;
  std::size_t max_per_source = 16;
  std::chrono::milliseconds request_deadline{5000};
  std::chrono::milliseconds write_timeout{5000};
  std::size_t max_body_bytes = 64 * 1024;
  std::size_t max_request_bytes = 80 * 1024;  // head and body
};

enum class AdminRefusal : std::uint8_t {
  no_credential,     // a control route without a token (401)
  bad_credential,    // with a token that is not this node's (403)
  control_off,       // a control route while admin_control = false (403)
  body_too_large,    // Content-Length over max_body_bytes (413)
  length_required,   // a POST without a Content-Length, or chunked (411)
  browser_origin,    // a control request with an Origin header (403)
  request_too_large, // head and body past max_request_bytes: closed
  request_deadline,  // not read whole within request_deadline: closed
  over_capacity,     // max_connections held (503)
  source_over_capacity,  // max_per_source held by the same address (503)
  evicted_waiting,   // full: the oldest connection still sending its request (503)
};
inline constexpr std::array kAllAdminRefusals{
    AdminRefusal::no_credential,  AdminRefusal::bad_credential,    AdminRefusal::control_off,
    AdminRefusal::body_too_large, AdminRefusal::length_required,   AdminRefusal::browser_origin,
    AdminRefusal::request_too_large,
    AdminRefusal::request_deadline, AdminRefusal::over_capacity, AdminRefusal::source_over_capacity,
    AdminRefusal::evicted_waiting};
std::string_view to_string(AdminRefusal reason);

class AdminServer final : public httplib::Server {
 public:
  // `token`: the control credential (empty: control needs none, which
  // weftd allows on a loopback address alone); `control`: whether control
  // routes are served at all.
  AdminServer(AdminLimits limits, std::string token, bool control);
  ~AdminServer() override;

  // bind_to_port, then a listen backlog of max_connections (cpp-httplib
  // listens with 5, so a burst of connects would wait in SYN retries
  // for seconds instead of being answered or refused at once).
  bool bind(const std::string& host, int port);

  void read_only(const std::string& path, Handler handler);
  void control(const std::string& path, Handler handler);

  // Stops listening; from then on stopping() is true, so a handler waiting
  // on the node gives up. (httplib's is_running() stays true until every
  // connection has ended, which is what such a handler would wait for.)
  void shut_down();
  bool stopping() const { return stopping_.load(std::memory_order_acquire); }
  // The weft_admin_* lines of /metrics.
  std::string metrics_text() const;
  std::size_t open_connections() const;

 private:
  class Inline;
  class Stream;

  // One admitted connection. Moves (under mutex_): waiting -> answering
  // (its request read whole, or a response begun) -> closing; waiting ->
  // evicted (by the accepting thread) -> closing. Only a waiting one may
  // be evicted, and only before closing, while its fd is still open.
  enum class SlotState : std::uint8_t { waiting, answering, evicted, closing };
  struct Slot {
    socket_t fd;
    std::string source;
    SlotState state = SlotState::waiting;
  };
  using Slots = std::list<Slot>;  // in accept order: the front waited longest

  bool process_and_close_socket(socket_t sock) override;
  httplib::Server::HandlerResponse screen(const httplib::Request& req, httplib::Response& res);
  void refuse(AdminRefusal reason);
  // Takes a slot (the total and the source's), evicting the oldest waiting
  // connection when every slot is held; false if none can be had.
  std::optional<Slots::iterator> admit(socket_t sock, const std::string& source, AdminRefusal& why);
  // waiting -> answering for this thread's connection; false if evicted.
  bool answering();
  // -> closing; true if it was evicted (the evictor counted it).
  bool closing(Slots::iterator slot);
  void release(Slots::iterator slot);
  void serve(Slots::iterator slot);

  const AdminLimits limits_;
  const std::string token_digest_;  // SHA-256 of the token; empty: none
  const bool control_;
  std::map<std::string, bool> control_routes_;  // "POST /tell"
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;  // guards the slots; idle_ wakes httplib's queue shutdown
  std::condition_variable idle_;
  Slots slots_;           // every connection with a thread, evicted ones until they close
  std::size_t held_ = 0;   // slots_ not evicted: what max_connections bounds
  std::map<std::string, std::size_t> sources_;  // held_ by address
  std::array<std::atomic<std::uint64_t>, kAllAdminRefusals.size()> refused_{};
  std::atomic<std::uint64_t> served_{0};
};

}  // namespace weft::daemon
