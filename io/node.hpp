// The real-IO driver: one asio::io_context on one thread drives one
// unmodified kernel over TCP, through the contract in kernel/kernel.hpp.
//
// Every input (an accepted or connected socket, bytes read, a write done, a
// link gone, the timer) is handed to the kernel stamped with steady time,
// and then the kernel is drained (kernel/drain.hpp): links to dial or
// close, bytes to write, events. Writes go out exactly as the kernel lends
// them, without a copy, one in flight per link (the kernel lends a link
// nothing more until handle_sent). One steady_timer is re-armed to
// next_deadline() only when that moved; how late it fires is measured.
//
// Completions arrive as error values (as_tuple), never as exceptions; each
// handler does one input and one drain, then returns to the io_context, so
// no link and no timer waits behind another for more than one turn.
//
// With NodeOptions::tls set, every link is TLS 1.3 with certificates checked
// both ways against one CA, and the TLS handshake finishes before the kernel
// hears of the link; a node with TLS never speaks plaintext, and nothing
// about it is negotiated with the peer.
#pragma once

#include <asio.hpp>
#include <asio/ssl.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "io/handler_memory.hpp"
#include "kernel/kernel.hpp"

namespace weft::io {

struct NodeOptions {
  Config config;                       // config.self is the advertised address
  asio::ip::tcp::endpoint bind;        // where to listen (0.0.0.0 or a local address; port may differ)
  std::uint64_t seed = 1;              // the kernel's PRNG
  // Every event the kernel emits, on the io thread, in order.
  std::function<void(const Event&)> on_event;
  // A timer that fires later than this is logged (through on_warning).
  Duration tick_lag_warning = Duration::milliseconds(100);
  std::function<void(const std::string&)> on_warning;
  // TCP_USER_TIMEOUT: unacknowledged data older than this drops the link.
  Duration tcp_user_timeout = Duration::seconds(10);
  // PEM files: this node's certificate (chain), its private key, and the CA
  // that signs every member's certificate. All empty: plaintext links. The
  // TLS handshake must finish within config.handshake_timeout.
  struct Tls {
    std::string cert;
    std::string key;
    std::string ca;
    // The peer's certificate must name the host it claims in its hello (an
    // acceptor's check) or the host we dialed (a dialer's): subjectAltName
    // IP addresses and DNS names. Off where NAT or port mapping make the
    // advertised address one no certificate names; the CA then alone says
    // who is a member.
    bool check_names = true;
    bool on() const { return !cert.empty() || !key.empty() || !ca.empty(); }
  } tls;
};

// Why a TLS handshake failed; each is counted.
enum class TlsFailure : std::uint8_t {
  timeout,      // no complete handshake within handshake_timeout (a silent peer)
  certificate,  // the peer's certificate did not verify against our CA, or it sent none
  alert,        // the peer refused the handshake (e.g. it does not trust our certificate)
  protocol,     // not TLS 1.3 (a plaintext peer's bytes, an older version, garbage)
  closed,       // the connection closed or failed during the handshake
};
inline constexpr std::array<TlsFailure, 5> kAllTlsFailures{TlsFailure::timeout, TlsFailure::certificate,
                                                          TlsFailure::alert, TlsFailure::protocol, TlsFailure::closed};
const char* to_string(TlsFailure failure);

// Counters the driver keeps beside the kernel's; read on the io thread.
struct DriverStats {
  std::uint64_t accepted = 0;
  std::uint64_t dialed = 0;
  std::uint64_t connect_failures = 0;
  // Accepts that failed (EMFILE, ENFILE, ENOBUFS: the process or host is out
  // of descriptors or memory), and the last such error's errno value.
  std::uint64_t accept_failures = 0;
  int last_accept_error = 0;
  std::uint64_t reads = 0;
  std::uint64_t writes = 0;
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;
  std::uint64_t ticks = 0;         // the timer fired
  std::uint64_t posted_ticks = 0;  // work was due at once: a tick ran without the timer
  std::uint64_t tls_handshakes = 0;  // completed, either side
  std::array<std::uint64_t, kAllTlsFailures.size()> tls_handshake_failures{};
  // TLS handshakes closed unfinished for a newer one, max_pending_handshakes
  // being in progress (the kernel's handshake_capacity, before TLS).
  std::uint64_t tls_handshakes_evicted = 0;
  // Tick lag, how late the timer fired: a histogram over these upper bounds
  // (ms), the last bucket unbounded.
  static constexpr std::array<std::int64_t, 8> kLagBoundsMs{1, 2, 5, 10, 25, 50, 100, 250};
  std::array<std::uint64_t, kLagBoundsMs.size() + 1> tick_lag{};
  std::int64_t tick_lag_sum_ns = 0;
  std::int64_t tick_lag_max_ns = 0;
};

class Node {
 public:
  Node(asio::io_context& io, NodeOptions options);
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // Listens and starts the kernel's timer. False, with `error` set, if the
  // bind address cannot be listened on or the TLS files do not load.
  bool start(std::string& error);
  // Closes every socket and the timer; the kernel stays as it was.
  void stop();
  // Reads the TLS files again (a renewed certificate, a CA bundle gaining
  // or losing a CA): handshakes from now on use them, links already up
  // keep theirs. False, with `error` set and the old files still in use,
  // if they do not load. Only where TLS is on.
  bool reload_tls(std::string& error);

  // The kernel, for user commands (spawn, tell, ask, leave) on the io
  // thread; call drain() after one.
  Kernel& kernel() { return kernel_; }
  void drain();
  Instant now() const;
  const DriverStats& stats() const { return stats_; }
  // The port the listener got (useful when bind's port was 0).
  std::uint16_t listening_port() const;

 private:
  struct Link;
  asio::awaitable<void> accept_loop();
  asio::awaitable<void> accept_tls(std::shared_ptr<Link> link);
  template <class Stream>
  asio::awaitable<void> read_loop(LinkId id, std::shared_ptr<Link> link, Stream& stream);
  asio::awaitable<void> connect(LinkId id, std::shared_ptr<Link> link, NodeAddress address);
  // Nothing when it completed (or when this node closed the link itself).
  asio::awaitable<std::optional<TlsFailure>> tls_handshake(const std::shared_ptr<Link>& link,
                                                           asio::ssl::stream_base::handshake_type type);
  void warn_tls(TlsFailure failure, const asio::ip::tcp::endpoint& peer, const std::error_code& ec);
  template <class Stream>
  void write(Stream& stream, const std::shared_ptr<Link>& link, LinkId id, std::span<const std::uint8_t> bytes);
  std::shared_ptr<asio::ssl::context> load_tls(std::string& error) const;
  // The names a link's verified peer certificate gives, for the kernel to
  // check (Kernel::handle_link_accepted); nullopt without TLS or the check.
  std::optional<std::vector<std::string>> peer_names(const Link& link) const;
  asio::awaitable<void> timer_loop();
  void on_command(LinkCommand&& command);
  void on_transmit(const Transmit& transmit);
  void link_down(LinkId id, LinkDownCause cause);
  void rearm();
  void post_tick();
  void set_socket_options(asio::ip::tcp::socket& socket);

  asio::io_context& io_;
  NodeOptions options_;
  Kernel kernel_;
  asio::ip::tcp::acceptor acceptor_;
  asio::steady_timer timer_;
  Instant armed_ = Instant::never();
  std::map<LinkId, std::shared_ptr<Link>> links_;
  std::shared_ptr<asio::ssl::context> tls_;  // null: plaintext; each link holds the one it shook hands with
  // Accepted, TLS not yet done (the kernel does not know them), by the order
  // they came: at max_pending_handshakes the oldest is closed for a new one.
  std::map<std::uint64_t, std::shared_ptr<Link>> handshaking_;
  std::uint64_t accepted_tls_ = 0;
  Instant last_tls_warning_ = Instant::never();
  std::uint64_t tls_warnings_suppressed_ = 0;
  DriverStats stats_;
  bool stopped_ = false;
  bool draining_ = false;
  bool tick_posted_ = false;
  HandlerMemory tick_memory_;  // the posted tick's operation
};

}  // namespace weft::io
