#include "io/node.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <arpa/inet.h>

#include <asio/experimental/as_tuple.hpp>

#include <algorithm>

#include "io/clock.hpp"
#include "io/handler_memory.hpp"
#include "kernel/drain.hpp"

namespace weft::io {
namespace {

constexpr auto kAsTuple = asio::experimental::as_tuple(asio::use_awaitable);
// A link's read buffer starts at 64 KiB and doubles, up to the kernel's
// largest write (max_write_bytes, 256 KiB by default), each time a read
// fills it: an idle link keeps the small one, a link carrying batches reads
// each in one call.
// A link's read buffer starts at twice the largest frame a peer may send
// before its handshake is done (wire::kMaxHandshakeFrameBytes), so a
// connection that never says hello costs about a KiB of it, not 64; each
// read that fills the buffer doubles it, up to kReadBufferBytes or
// max_write_bytes, whichever is larger, in a few reads of real traffic.
constexpr std::size_t kFirstReadBytes = 2 * wire::kMaxHandshakeFrameBytes;
constexpr std::size_t kReadBufferBytes = 64 * 1024;

// OpenSSL's reason inside an asio ssl error code (0 when it is not one).
int ssl_reason(const std::error_code& ec) {
  if (ec.category() != asio::error::get_ssl_category()) return 0;
  return ERR_GET_REASON(static_cast<unsigned long>(static_cast<unsigned int>(ec.value())));
}

// A TLS peer that closes without close_notify is, to the kernel, a peer
// that closed; weftd never sends close_notify either.
bool truncated(const std::error_code& ec) {
  return ec == asio::ssl::error::stream_truncated || ssl_reason(ec) == SSL_R_UNEXPECTED_EOF_WHILE_READING;
}

LinkDownCause cause_of(const std::error_code& ec) {
  if (ec == asio::error::eof || ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
      truncated(ec)) {
    return LinkDownCause::closed_by_peer;
  }
  if (ec == asio::error::connection_refused) return LinkDownCause::refused;
  if (ec == asio::error::timed_out || ec == asio::error::host_unreachable || ec == asio::error::network_unreachable ||
      ec == asio::error::host_not_found || ec == asio::error::host_not_found_try_again) {
    return LinkDownCause::unreachable;
  }
  return LinkDownCause::io_error;
}

TlsFailure classify(const std::error_code& ec) {
  if (ec.category() != asio::error::get_ssl_category() || truncated(ec)) return TlsFailure::closed;
  const int reason = ssl_reason(ec);
  if (reason == SSL_R_CERTIFICATE_VERIFY_FAILED || reason == SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE) {
    return TlsFailure::certificate;
  }
  // OpenSSL reports an alert the peer sent as reason SSL_AD_REASON_OFFSET + the alert.
  if (reason >= SSL_AD_REASON_OFFSET) return TlsFailure::alert;
  return TlsFailure::protocol;
}

LinkDownCause cause_of(TlsFailure failure) {
  switch (failure) {
    case TlsFailure::timeout: return LinkDownCause::unreachable;
    case TlsFailure::closed: return LinkDownCause::closed_by_peer;
    case TlsFailure::certificate:
    case TlsFailure::alert:
    case TlsFailure::protocol: return LinkDownCause::io_error;
  }
  return LinkDownCause::io_error;
}

std::chrono::nanoseconds to_chrono(Duration d) { return std::chrono::nanoseconds(d.ns()); }

}  // namespace

const char* to_string(TlsFailure failure) {
  switch (failure) {
    case TlsFailure::timeout: return "timeout";
    case TlsFailure::certificate: return "certificate";
    case TlsFailure::alert: return "alert";
    case TlsFailure::protocol: return "protocol";
    case TlsFailure::closed: return "closed";
  }
  return "?";
}

// One TCP connection. `closed` is set when the kernel asked for the close:
// the kernel already knows, so a failing read or write reports nothing.
struct Node::Link {
  explicit Link(asio::io_context& io) : socket(io) {}
  asio::ip::tcp::socket socket;
  // With TLS on, layered over `socket` once TCP is connected; every read and
  // write then goes through it, while close and socket options stay on `socket`.
  std::shared_ptr<asio::ssl::context> tls_context;  // kept while the stream lives: a reload replaces Node::tls_
  std::unique_ptr<asio::ssl::stream<asio::ip::tcp::socket&>> tls;
  bool handshake_over = false;
  bool handshake_timed_out = false;
  std::uint64_t handshake_order = 0;  // its key in handshaking_ (accepted TLS links)
  std::vector<std::uint8_t> buffer;  // reused for every read
  HandlerMemory read_memory;         // the read in flight's operation
  HandlerMemory write_memory;        // the write in flight's operation
  bool connected = false;
  bool closed = false;
  bool reported_down = false;
};

Node::Node(asio::io_context& io, NodeOptions options)
    : io_(io),
      options_(std::move(options)),
      kernel_(options_.config, options_.seed),
      acceptor_(io),
      timer_(io) {}

Node::~Node() { stop(); }

Instant Node::now() const { return steady_now(); }

std::uint16_t Node::listening_port() const {
  std::error_code ec;
  const auto endpoint = acceptor_.local_endpoint(ec);
  return ec ? 0 : endpoint.port();
}

std::shared_ptr<asio::ssl::context> Node::load_tls(std::string& error) const {
  const NodeOptions::Tls& files = options_.tls;
  if (files.cert.empty() || files.key.empty() || files.ca.empty()) {
    error = "TLS needs a certificate, a key and a CA file together";
    return nullptr;
  }
  auto context = std::make_shared<asio::ssl::context>(asio::ssl::context::tls);
  SSL_CTX* native = context->native_handle();
  // Both ends are weftd: nothing older than 1.3 is ever needed, so there is
  // no older version for an on-path attacker to steer a handshake down to.
  SSL_CTX_set_min_proto_version(native, TLS1_3_VERSION);
  // Links live as long as the processes do: resumption would save nothing,
  // and tickets are one more key to protect.
  SSL_CTX_set_num_tickets(native, 0);
  std::error_code ec;
  // An encrypted key would make OpenSSL ask for a passphrase on the
  // terminal; with an empty one the load fails and says so.
  context->set_password_callback([](std::size_t, asio::ssl::context::password_purpose) { return std::string(); }, ec);
  const auto failed = [&](const std::string& what) {
    error = "TLS: " + what + ": " + ec.message();
    return nullptr;
  };
  context->use_certificate_chain_file(files.cert, ec);
  if (ec) return failed("cannot load the certificate " + files.cert);
  context->use_private_key_file(files.key, asio::ssl::context::pem, ec);
  if (ec) return failed("cannot load the key " + files.key);
  if (SSL_CTX_check_private_key(native) != 1) {
    error = "TLS: the key " + files.key + " does not belong to the certificate " + files.cert;
    return nullptr;
  }
  context->load_verify_file(files.ca, ec);
  if (ec) return failed("cannot load the CA " + files.ca);
  // Both directions: a dialed peer must show a certificate from the CA, and
  // so must a peer that dials us (no certificate, no link).
  context->set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert, ec);
  if (ec) return failed("cannot require peer certificates");
  return context;
}

std::optional<std::vector<std::string>> Node::peer_names(const Link& link) const {
  if (!options_.tls.check_names || !link.tls) return std::nullopt;
  std::vector<std::string> names;  // none: a certificate without names allows no host
  X509* cert = SSL_get0_peer_certificate(link.tls->native_handle());
  if (cert == nullptr) return names;
  auto* general = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; general != nullptr && i < sk_GENERAL_NAME_num(general); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(general, i);
    if (name->type == GEN_DNS) {
      const ASN1_IA5STRING* dns = name->d.dNSName;
      names.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(dns)),
                         static_cast<std::size_t>(ASN1_STRING_length(dns)));
    } else if (name->type == GEN_IPADD) {
      const ASN1_OCTET_STRING* ip = name->d.iPAddress;
      const int length = ASN1_STRING_length(ip);
      char text[INET6_ADDRSTRLEN] = {};
      if ((length == 4 || length == 16) &&
          ::inet_ntop(length == 4 ? AF_INET : AF_INET6, ASN1_STRING_get0_data(ip), text, sizeof text) != nullptr) {
        names.emplace_back(text);
      }
    }
  }
  GENERAL_NAMES_free(general);
  return names;
}

bool Node::reload_tls(std::string& error) {
  if (!tls_) {
    error = "TLS is off: turning it on takes a restart of every node";
    return false;
  }
  std::shared_ptr<asio::ssl::context> context = load_tls(error);
  if (!context) return false;
  tls_ = std::move(context);
  return true;
}

bool Node::start(std::string& error) {
  if (options_.tls.on() && !(tls_ = load_tls(error))) return false;
  std::error_code ec;
  acceptor_.open(options_.bind.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(options_.bind, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    error = "cannot listen on " + options_.bind.address().to_string() + ":" + std::to_string(options_.bind.port()) +
            ": " + ec.message();
    return false;
  }
  asio::co_spawn(io_, accept_loop(), asio::detached);
  asio::co_spawn(io_, timer_loop(), asio::detached);
  kernel_.handle_tick(now());  // the first input starts the kernel's membership
  drain();
  return true;
}

void Node::stop() {
  if (stopped_) return;
  stopped_ = true;
  std::error_code ignored;
  acceptor_.close(ignored);
  timer_.cancel();
  for (auto& [id, link] : links_) {
    link->closed = true;
    link->socket.close(ignored);
  }
  links_.clear();
  for (const auto& [order, link] : handshaking_) {
    link->closed = true;
    link->socket.close(ignored);
  }
  handshaking_.clear();
}

void Node::drain() {
  if (draining_ || stopped_) return;  // an event handler's command: the outer drain's next pass takes it
  draining_ = true;
  (void)weft::drain(
      kernel_, [this](LinkCommand&& command) { on_command(std::move(command)); },
      [this](const Transmit& transmit) { on_transmit(transmit); },
      [this](Event&& event) {
        if (options_.on_event) options_.on_event(event);
        return true;
      });
  draining_ = false;
  rearm();
}

void Node::rearm() {
  const Instant next = kernel_.next_deadline();
  if (stopped_) return;
  // Due already (typically messages left to dispatch): a posted tick runs
  // behind the handlers that are ready, as the timer's would, without the
  // two timer syscalls and the trip through epoll that arming it for now
  // and then for later would cost on every batch. The timer stays armed
  // for whatever it was.
  if (next <= now()) {
    post_tick();
    return;
  }
  if (next == armed_) return;
  armed_ = next;
  timer_.expires_at(to_steady(next));  // cancels the wait in timer_loop, which waits again
}

void Node::post_tick() {
  if (tick_posted_) return;
  tick_posted_ = true;
  asio::post(io_, asio::bind_allocator(HandlerAllocator<void>(tick_memory_), [this] {
                tick_posted_ = false;
                if (stopped_) return;
                ++stats_.posted_ticks;
                kernel_.handle_tick(now());
                drain();
              }));
}

asio::awaitable<void> Node::timer_loop() {
  while (!stopped_) {
    const Instant due = armed_;
    auto [ec] = co_await timer_.async_wait(kAsTuple);
    if (stopped_) co_return;
    const Instant at = now();
    if (ec == asio::error::operation_aborted || at < due || due == Instant::never()) continue;  // re-armed
    const Duration lag = at - due;
    ++stats_.ticks;
    std::size_t bucket = 0;
    while (bucket < DriverStats::kLagBoundsMs.size() && lag.ns() > DriverStats::kLagBoundsMs[bucket] * 1'000'000) {
      ++bucket;
    }
    ++stats_.tick_lag[bucket];
    stats_.tick_lag_sum_ns += lag.ns();
    stats_.tick_lag_max_ns = std::max(stats_.tick_lag_max_ns, lag.ns());
    if (lag > options_.tick_lag_warning && options_.on_warning) {
      options_.on_warning("timer fired " + std::to_string(lag.ms()) + " ms late (the io thread was busy or paused)");
    }
    armed_ = Instant::never();  // fired: whatever the kernel wants next is armed anew
    kernel_.handle_tick(at);
    drain();
  }
}

void Node::set_socket_options(asio::ip::tcp::socket& socket) {
  std::error_code ignored;
  socket.set_option(asio::ip::tcp::no_delay(true), ignored);
  socket.set_option(asio::socket_base::keep_alive(true), ignored);
  const auto timeout_ms = static_cast<unsigned>(options_.tcp_user_timeout.ms());
  ::setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_USER_TIMEOUT, &timeout_ms, sizeof timeout_ms);
}

asio::awaitable<void> Node::accept_loop() {
  while (!stopped_) {
    auto [ec, socket] = co_await acceptor_.async_accept(kAsTuple);
    if (stopped_) co_return;
    if (ec) {
      // Out of descriptors and the like: the listener stays; try again
      // after a breath rather than spinning. Counted, so weftd can say why
      // peers cannot connect (and its own dials fail the same way).
      ++stats_.accept_failures;
      stats_.last_accept_error = ec.value();
      asio::steady_timer pause(io_, std::chrono::milliseconds(50));
      co_await pause.async_wait(kAsTuple);
      continue;
    }
    ++stats_.accepted;
    set_socket_options(socket);
    auto link = std::make_shared<Link>(io_);
    link->socket = std::move(socket);
    if (tls_) {
      // The handshake runs beside the accept loop: one slow peer must not
      // hold up the next accept.
      if (handshaking_.size() >= options_.config.max_pending_handshakes) {
        const std::shared_ptr<Link> oldest = handshaking_.begin()->second;
        handshaking_.erase(handshaking_.begin());
        oldest->closed = true;  // its handshake ends without a failure counted
        std::error_code unused;
        oldest->socket.close(unused);
        ++stats_.tls_handshakes_evicted;
      }
      link->handshake_order = ++accepted_tls_;
      handshaking_.emplace(link->handshake_order, link);
      asio::co_spawn(io_, accept_tls(std::move(link)), asio::detached);
      continue;
    }
    link->connected = true;
    const LinkId id = kernel_.handle_link_accepted(now());
    links_[id] = link;
    asio::co_spawn(io_, read_loop(id, link, link->socket), asio::detached);
    drain();
  }
}

asio::awaitable<void> Node::accept_tls(std::shared_ptr<Link> link) {
  const std::optional<TlsFailure> failure = co_await tls_handshake(link, asio::ssl::stream_base::server);
  handshaking_.erase(link->handshake_order);
  if (failure || link->closed || stopped_) co_return;
  link->connected = true;
  const LinkId id = kernel_.handle_link_accepted(now(), peer_names(*link));
  links_[id] = link;
  drain();
  co_await read_loop(id, link, *link->tls);
}

asio::awaitable<std::optional<TlsFailure>> Node::tls_handshake(const std::shared_ptr<Link>& link,
                                                                 asio::ssl::stream_base::handshake_type type) {
  link->tls_context = tls_;
  link->tls = std::make_unique<asio::ssl::stream<asio::ip::tcp::socket&>>(link->socket, *link->tls_context);
  std::error_code ignored;
  const auto peer = link->socket.remote_endpoint(ignored);  // for the warning: a timed-out socket has none
  // A peer that connects and says nothing (or a plaintext dialer waiting
  // for our hello) would hold the socket forever: the deadline closes it.
  asio::steady_timer deadline(io_, to_chrono(options_.config.handshake_timeout));
  deadline.async_wait([link](const std::error_code& ec) {
    if (ec || link->handshake_over) return;
    link->handshake_timed_out = true;
    std::error_code unused;
    link->socket.close(unused);
  });
  auto [ec] = co_await link->tls->async_handshake(type, kAsTuple);
  link->handshake_over = true;
  deadline.cancel();
  if (link->closed || stopped_) co_return std::nullopt;  // we closed it ourselves: nothing to count
  if (!ec) {
    ++stats_.tls_handshakes;
    co_return std::nullopt;
  }
  const TlsFailure failure = link->handshake_timed_out ? TlsFailure::timeout : classify(ec);
  ++stats_.tls_handshake_failures[static_cast<std::size_t>(failure)];
  link->socket.close(ignored);
  warn_tls(failure, peer, ec);
  co_return failure;
}

// One line per failed handshake would let anyone who can reach the port
// fill the log: at most one a second, with a count of the ones left out.
void Node::warn_tls(TlsFailure failure, const asio::ip::tcp::endpoint& peer, const std::error_code& ec) {
  if (!options_.on_warning) return;
  const Instant at = now();
  if (last_tls_warning_ != Instant::never() && at - last_tls_warning_ < Duration::seconds(1)) {
    ++tls_warnings_suppressed_;
    return;
  }
  last_tls_warning_ = at;
  std::string text = "TLS handshake with " + peer.address().to_string() + ":" + std::to_string(peer.port()) +
                     " failed (" + to_string(failure) + "): " +
                     (failure == TlsFailure::timeout ? std::string("no handshake within handshake_timeout")
                                                     : ec.message());
  if (tls_warnings_suppressed_ > 0) {
    text += " (" + std::to_string(tls_warnings_suppressed_) + " more failed since the last line)";
    tls_warnings_suppressed_ = 0;
  }
  options_.on_warning(text);
}

template <class Stream>
asio::awaitable<void> Node::read_loop(LinkId id, std::shared_ptr<Link> link, Stream& stream) {
  link->buffer.resize(kFirstReadBytes);
  const std::size_t largest = std::max<std::size_t>(kReadBufferBytes, options_.config.max_write_bytes);
  while (true) {
    auto [ec, n] = co_await stream.async_read_some(
        asio::buffer(link->buffer), asio::bind_allocator(HandlerAllocator<void>(link->read_memory), kAsTuple));
    if (link->closed || stopped_) co_return;
    if (ec) {
      link_down(id, cause_of(ec));
      co_return;
    }
    ++stats_.reads;
    stats_.bytes_read += n;
    kernel_.handle_bytes(now(), id, std::span<const std::uint8_t>(link->buffer.data(), n));
    // The kernel keeps no view into the buffer past handle_bytes.
    if (n == link->buffer.size() && n < largest) link->buffer.resize(std::min(n * 2, largest));
    drain();
  }
}

asio::awaitable<void> Node::connect(LinkId id, std::shared_ptr<Link> link, NodeAddress address) {
  // Resolved on every dial, so a seed given by name follows its DNS.
  asio::ip::tcp::resolver resolver(io_);
  auto [resolve_error, endpoints] =
      co_await resolver.async_resolve(address.host, std::to_string(address.port), kAsTuple);
  if (link->closed || stopped_) co_return;
  if (resolve_error) {
    ++stats_.connect_failures;
    link_down(id, cause_of(resolve_error));
    co_return;
  }
  // Each address in turn, from the bind address when it names one, so a
  // multi-homed host (or a loopback address per node) dials from the
  // address its peers know.
  std::error_code connect_error = asio::error::host_not_found;
  for (const auto& entry : endpoints) {
    std::error_code ignored;
    link->socket.close(ignored);
    link->socket.open(entry.endpoint().protocol(), connect_error);
    if (!connect_error && !options_.bind.address().is_unspecified() &&
        options_.bind.address().is_v4() == entry.endpoint().address().is_v4()) {
      link->socket.bind(asio::ip::tcp::endpoint(options_.bind.address(), 0), connect_error);
    }
    if (!connect_error) std::tie(connect_error) = co_await link->socket.async_connect(entry.endpoint(), kAsTuple);
    if (link->closed || stopped_) co_return;
    if (!connect_error) break;
  }
  if (connect_error) {
    ++stats_.connect_failures;
    link_down(id, cause_of(connect_error));
    co_return;
  }
  set_socket_options(link->socket);
  if (tls_) {
    const std::optional<TlsFailure> failure = co_await tls_handshake(link, asio::ssl::stream_base::client);
    if (link->closed || stopped_) co_return;
    if (failure) {
      link_down(id, cause_of(*failure));
      co_return;
    }
  }
  link->connected = true;
  kernel_.handle_link_up(now(), id, link->tls ? peer_names(*link) : std::nullopt);
  drain();
  if (link->tls) {
    co_await read_loop(id, link, *link->tls);
  } else {
    co_await read_loop(id, link, link->socket);
  }
}

void Node::link_down(LinkId id, LinkDownCause cause) {
  const auto it = links_.find(id);
  if (it == links_.end() || it->second->reported_down) return;
  it->second->reported_down = true;
  std::error_code ignored;
  it->second->socket.close(ignored);
  links_.erase(it);
  kernel_.handle_link_down(now(), id, cause);
  drain();
}

void Node::on_command(LinkCommand&& command) {
  if (auto* connect_command = std::get_if<ConnectCommand>(&command)) {
    auto link = std::make_shared<Link>(io_);
    links_[connect_command->link] = link;
    ++stats_.dialed;
    asio::co_spawn(io_, connect(connect_command->link, link, std::move(connect_command->address)), asio::detached);
    return;
  }
  const auto& close = std::get<CloseCommand>(command);
  const auto it = links_.find(close.link);
  if (it == links_.end()) return;
  it->second->closed = true;
  std::error_code ignored;
  it->second->socket.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  it->second->socket.close(ignored);
  links_.erase(it);
}

void Node::on_transmit(const Transmit& transmit) {
  const auto it = links_.find(transmit.link);
  if (it == links_.end() || !it->second->connected) return;
  const std::shared_ptr<Link>& link = it->second;
  if (link->tls) {
    write(*link->tls, link, transmit.link, transmit.bytes);
  } else {
    write(link->socket, link, transmit.link, transmit.bytes);
  }
}

template <class Stream>
void Node::write(Stream& stream, const std::shared_ptr<Link>& link, LinkId id, std::span<const std::uint8_t> bytes) {
  const std::size_t size = bytes.size();
  // The kernel keeps the bytes still until handle_sent: written in place.
  asio::async_write(stream, asio::buffer(bytes.data(), size),
                    asio::bind_allocator(HandlerAllocator<void>(link->write_memory),
                                         [this, link, id, size](const std::error_code& ec, std::size_t) {
                                           if (link->closed || stopped_) return;
                                           if (ec) {
                                             link_down(id, cause_of(ec));
                                             return;
                                           }
                                           ++stats_.writes;
                                           stats_.bytes_written += size;
                                           kernel_.handle_sent(now(), id);
                                           drain();
                                         }));
}

}  // namespace weft::io
