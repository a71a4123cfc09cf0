// Harness 6: where one remote tell's time goes. First the whole path is
// measured as in harness 2 (weft and raw, one pinned thread), noting the
// driver's writes, reads and timer ticks per message; then each stage is
// priced alone in a timer loop on the same CPU, per message:
//
//   send:     encode the envelope; frame it into the outbound buffer;
//             Kernel::tell whole (timed in place during the flood)
//   socket:   write() and read() on a loopback TCP pair, at the average
//             write and read sizes the flood made, per message carried
//   receive:  find frame boundaries; decode_message; the liveness
//             throttle; mailbox push + take + the behaviour's virtual call;
//             the kernel's whole receive path (handle_bytes on a handshaken
//             link, then ticks until dispatched), no socket
//   loop:     an asio handler turn (post + run_one) and a timer re-armed to
//             now and fired, times how many of each the flood made per message
//
// The sum of the whole-path rows is set against the measured cost; what is
// left is unattributed. The parts are listed under their whole so nothing
// is counted twice.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "kernel/actors/detached_context.hpp"
#include "bench/net/common.hpp"
#include "bench/net/flood.hpp"
#include "kernel/actors/mailbox.hpp"
#include "kernel/detection/liveness_throttle.hpp"
#include "kernel/drain.hpp"
#include "kernel/wire/envelope.hpp"
#include "kernel/wire/frame.hpp"
#include "kernel/wire/handshake.hpp"
#include "kernel/wire/message.hpp"

namespace weft::bench::net {
namespace {

constexpr std::size_t kPayloads[] = {64, 1024, 16384};

// Runs `body` (which handles `items` messages per call) until `min_seconds`
// have passed, `runs` times; the median ns per message.
template <class Body>
double price(const Options& options, double items, Body&& body) {
  const double min_seconds = options.quick ? 0.02 : 0.2;
  std::vector<double> per_item;
  for (int r = 0; r < options.runs; ++r) {
    body();  // warm
    std::int64_t calls = 0;
    const std::int64_t start = now_ns();
    std::int64_t end = start;
    while (end - start < static_cast<std::int64_t>(min_seconds * 1e9) && calls < 100'000'000) {
      body();
      ++calls;
      end = now_ns();
    }
    per_item.push_back(static_cast<double>(end - start) / static_cast<double>(calls) / items);
  }
  return median(per_item);
}

struct Flow {
  double weft_ns = 0;  // per message, whole path
  double raw_ns = 0;
  double tell_ns = 0;  // Kernel::tell in place
  double write_bytes = 0;  // average per write on a's link
  double read_bytes = 0;   // average per read on b's link
  double turns_per_message = 0;  // asio handlers run (reads, writes, ticks, pumps) per message
  double ticks_per_message = 0;
};

Flow measure_flow(const Options& options, std::size_t payload) {
  Flow flow;
  const double seconds = options.quick ? 0.1 : 0.5;
  asio::io_context io{1};
  NodePair pair(io, io, bench_config());
  pair.start();
  pair.wait_until_up(10);
  WeftFlood weft(pair, payload);
  RawFlood raw(payload);
  const std::uint64_t pilot = payload >= 16384 ? 2'000 : 20'000;
  const auto weft_count = count_for(static_cast<double>(pilot) / weft.run(pilot, 30), seconds, pilot, 50'000'000);
  const auto raw_count = count_for(static_cast<double>(pilot) / raw.run(pilot, 30), seconds, pilot, 200'000'000);
  std::vector<double> weft_ns, raw_ns, tell_ns;
  for (int r = 0; r < options.runs; ++r) {
    const io::DriverStats a0 = pair.a->stats(), b0 = pair.b->stats();
    const std::int64_t tell0 = weft.tell_ns();
    const std::uint64_t pumps0 = weft.pumps();
    const double t = weft.run(weft_count, 60);
    const io::DriverStats &a1 = pair.a->stats(), &b1 = pair.b->stats();
    const auto n = static_cast<double>(weft_count);
    weft_ns.push_back(t * 1e9 / n);
    tell_ns.push_back(static_cast<double>(weft.tell_ns() - tell0) / n);
    flow.write_bytes = static_cast<double>(a1.bytes_written - a0.bytes_written) / static_cast<double>(a1.writes - a0.writes);
    flow.read_bytes = static_cast<double>(b1.bytes_read - b0.bytes_read) / static_cast<double>(b1.reads - b0.reads);
    const auto ticks = static_cast<double>(a1.ticks - a0.ticks + b1.ticks - b0.ticks);
    const auto turns = static_cast<double>(a1.reads - a0.reads + b1.reads - b0.reads + a1.writes - a0.writes +
                                           b1.writes - b0.writes + weft.pumps() - pumps0) +
                       ticks;
    flow.turns_per_message = turns / n;
    flow.ticks_per_message = ticks / n;
    raw_ns.push_back(raw.run(raw_count, 60) * 1e9 / static_cast<double>(raw_count));
  }
  flow.weft_ns = median(weft_ns);
  flow.raw_ns = median(raw_ns);
  flow.tell_ns = median(tell_ns);
  return flow;
}

wire::Envelope tell_envelope(const std::vector<std::uint8_t>& body) {
  static const ActorRef target{{"127.0.0.1", 40001}, "sink"};
  return wire::Envelope{wire::MessageKind::tell, wire::ActorRefView::of(target), {}, 0, 1, body};
}

// A stream of whole frames of `envelope`, at least `bytes` long.
std::vector<std::uint8_t> stream_of(const wire::Envelope& envelope, std::size_t bytes, std::size_t& frames) {
  std::vector<std::uint8_t> out;
  frames = 0;
  while (out.size() < bytes) {
    (void)wire::append_frame(out, envelope);
    ++frames;
  }
  return out;
}

class Counter final : public Behavior {
 public:
  std::uint64_t bytes = 0;
  void receive(Context&, const Delivery& m) override { bytes += m.body.size(); }
};

struct Syscalls {
  double write_ns_per_byte = 0;
  double read_ns_per_byte = 0;
};

// write() of `write_size` bytes, then read() in `read_size` pieces until
// drained, over a loopback TCP pair in this thread (non-blocking, so a full
// buffer cannot hang it). Each call timed alone.
Syscalls price_syscalls(const Options& options, std::size_t write_size, std::size_t read_size) {
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  asio::ip::tcp::socket writer(io), reader(io);
  writer.connect(acceptor.local_endpoint());
  acceptor.accept(reader);
  driver_socket_options(writer);
  driver_socket_options(reader);
  writer.non_blocking(true);
  reader.non_blocking(true);
  const int w = writer.native_handle(), r = reader.native_handle();
  std::vector<std::uint8_t> out(write_size, 0x5a), in(std::max<std::size_t>(read_size, 1));
  const double min_seconds = options.quick ? 0.02 : 0.2;
  std::vector<double> write_costs, read_costs;
  for (int run = 0; run < options.runs; ++run) {
    std::int64_t write_ns = 0, read_ns = 0, written = 0, got = 0;
    const Deadline deadline(10);
    const std::int64_t start = now_ns();
    while (now_ns() - start < static_cast<std::int64_t>(min_seconds * 1e9)) {
      if (deadline.passed()) fail("stages: syscall loop overran");
      std::size_t off = 0;
      while (off < out.size()) {
        const std::int64_t t0 = now_ns();
        const ssize_t n = ::write(w, out.data() + off, out.size() - off);
        write_ns += now_ns() - t0;
        if (n <= 0) break;  // the buffer is full: drain what is there first
        off += static_cast<std::size_t>(n);
        written += n;
      }
      while (got < written) {
        if (deadline.passed()) fail("stages: read loop overran");
        const std::int64_t t0 = now_ns();
        const ssize_t n = ::read(r, in.data(), in.size());
        read_ns += now_ns() - t0;
        if (n > 0) got += n;
      }
    }
    write_costs.push_back(static_cast<double>(write_ns) / static_cast<double>(written));
    read_costs.push_back(static_cast<double>(read_ns) / static_cast<double>(got));
  }
  return {median(write_costs), median(read_costs)};
}

struct Column {
  Flow flow;
  double encode = 0, frame_with_encode = 0, write = 0, read = 0, decoder = 0, decode = 0, throttle = 0,
         mailbox = 0, kernel_receive = 0, turn = 0, timer = 0, cold_copy = 0;
};

Column measure(const Options& options, std::size_t payload) {
  Column c;
  c.flow = measure_flow(options, payload);
  const std::vector<std::uint8_t> body(payload, 0x5a);
  const wire::Envelope envelope = tell_envelope(body);
  const std::size_t payload_bytes = wire::encoded_size(envelope);
  const double frame_bytes = static_cast<double>(payload_bytes + wire::kFrameHeaderBytes);

  std::vector<std::uint8_t> scratch(payload_bytes);
  constexpr int kBatch = 64;  // items per timed call, so the clock read is noise
  c.encode = price(options, kBatch, [&] {
    for (int i = 0; i < kBatch; ++i) {
      const std::size_t size = wire::encoded_size(envelope);
      wire::Writer writer(scratch.data(), size);
      wire::encode(envelope, writer);
      asm volatile("" : : "r"(scratch.data()) : "memory");
    }
  });
  std::vector<std::uint8_t> outbound;
  outbound.reserve(Config{}.max_write_bytes + 20'000);
  c.frame_with_encode = price(options, kBatch, [&] {
    if (outbound.size() > Config{}.max_write_bytes) outbound.clear();
    for (int i = 0; i < kBatch; ++i) wire::append_encoded_frame(outbound, envelope, wire::encoded_size(envelope));
  });

  const Syscalls sys = price_syscalls(options, static_cast<std::size_t>(c.flow.write_bytes),
                                      static_cast<std::size_t>(c.flow.read_bytes));
  c.write = sys.write_ns_per_byte * frame_bytes;
  c.read = sys.read_ns_per_byte * frame_bytes;

  std::size_t frames = 0;
  const std::vector<std::uint8_t> stream = stream_of(envelope, 1 << 20, frames);
  const auto chunk = std::max<std::size_t>(1, static_cast<std::size_t>(c.flow.read_bytes));
  wire::FrameDecoder decoder;
  std::uint64_t seen = 0;
  c.decoder = price(options, static_cast<double>(frames), [&] {
    for (std::size_t off = 0; off < stream.size(); off += chunk) {
      (void)decoder.feed(wire::Bytes(stream.data() + off, std::min(chunk, stream.size() - off)),
                         [&](wire::Bytes) { ++seen; });
    }
  });
  std::vector<std::uint8_t> one;
  (void)wire::append_frame(one, envelope);
  const wire::Bytes payload_view(one.data() + wire::kFrameHeaderBytes, one.size() - wire::kFrameHeaderBytes);
  c.decode = price(options, kBatch, [&] {
    for (int i = 0; i < kBatch; ++i) {
      wire::Decoded<wire::Message> decoded = wire::decode_message(payload_view);
      asm volatile("" : : "r"(&decoded) : "memory");
    }
  });
  // Context for the larger payloads: one more copy of the frame through a
  // working set as large as the flood's (cache-cold), as a copy on the
  // path costs when the window of frames in flight outgrows the caches.
  {
    const std::size_t ring_bytes = 8U << 20;
    std::vector<std::uint8_t> ring(ring_bytes + one.size());
    std::vector<std::uint8_t> dst(one.size());
    std::size_t at = 0;
    c.cold_copy = price(options, kBatch, [&] {
      for (int i = 0; i < kBatch; ++i) {
        std::memcpy(dst.data(), ring.data() + at, one.size());
        asm volatile("" : : "r"(dst.data()) : "memory");
        at = (at + one.size()) % ring_bytes;
      }
    });
  }
  LivenessThrottle throttle;
  Instant t = Instant::from_ns(1'000'000'000);
  std::uint64_t passed = 0;
  c.throttle = price(options, kBatch, [&] {
    for (int i = 0; i < kBatch; ++i) {
      t += Duration::nanoseconds(100);
      passed += throttle.observe(t) ? 1U : 0U;
    }
  });

  Mailbox mailbox(Config{}.mailbox_capacity, MailboxOverflow::reject_new);
  MailboxSlot current;
  auto counter = std::make_unique<Counter>();
  Behavior* behavior = counter.get();
  const Delivery delivery{DeliveryKind::tell, {}, 0, 1, body};
  struct NullContext final : DetachedContext {
    ActorRef ref;
    const ActorRef& self() const override { return ref; }
    Instant now() const override { return Instant::from_ns(0); }
    SendResult tell(const ActorRef&, std::uint32_t, std::span<const std::uint8_t>) override { return SendResult::sent; }
    AskId ask(const ActorRef&, std::uint32_t, std::span<const std::uint8_t>, Duration) override { return 0; }
    SendResult reply(std::uint32_t, std::span<const std::uint8_t>) override { return SendResult::sent; }
  } context;
  c.mailbox = price(options, kBatch, [&] {
    for (int i = 0; i < kBatch; ++i) (void)mailbox.push(delivery);
    for (int i = 0; i < kBatch; ++i) {
      mailbox.take(current);
      behavior->receive(context, current.view());
    }
  });

  // The kernel's receive path without a socket: one read's worth of frames
  // into a handshaken inbound link, then ticks until all are dispatched.
  Config config = bench_config();
  config.self = NodeAddress{"127.0.0.1", 40001};
  Kernel kernel(config, 1);
  Instant now = Instant::from_ns(1'000'000'000);
  auto sink = std::make_unique<Counter>();
  Counter* sink_ptr = sink.get();
  kernel.spawn(now, "sink", std::move(sink));
  const LinkId link = kernel.handle_link_accepted(now);
  wire::Hello hello;
  hello.cluster_name = config.cluster_name;
  hello.address = {"127.0.0.1", 40000};
  hello.incarnation = 1;
  std::vector<std::uint8_t> handshake;
  (void)wire::append_frame(handshake, hello);
  // Without a key the sender is a stranger until the kernel's dial back to
  // its address is answered (kernel/membership/dial_backs.hpp): it asks to
  // join, and the dial is answered with its hello, so it is a member and
  // its frames are taken.
  std::vector<std::uint8_t> hello_and_join = handshake;
  (void)wire::append_frame(hello_and_join, wire::Join{});
  kernel.handle_bytes(now, link, hello_and_join);
  kernel.handle_tick(now);
  const auto drain_all = [&] {
    (void)drain(
        kernel,
        [&](LinkCommand&& command) {
          const auto* dial = std::get_if<ConnectCommand>(&command);
          if (dial == nullptr || dial->address != NodeAddress{"127.0.0.1", 40000}) return;
          kernel.handle_link_up(now, dial->link);
          kernel.handle_bytes(now, dial->link, handshake);
        },
        [&](const Transmit& tx) { kernel.handle_sent(now, tx.link); }, [](Event&&) { return true; });
  };
  drain_all();
  if (kernel.members().find(NodeAddress{"127.0.0.1", 40000}) == nullptr) fail("stages: the sender never joined");
  std::size_t read_frames = 0;
  const std::vector<std::uint8_t> read_stream =
      stream_of(envelope, static_cast<std::size_t>(std::min(c.flow.read_bytes, 60'000.0)), read_frames);
  const std::uint64_t expect_bytes = static_cast<std::uint64_t>(read_frames) * payload;
  c.kernel_receive = price(options, static_cast<double>(read_frames), [&] {
    const std::uint64_t before = sink_ptr->bytes;
    kernel.handle_bytes(now, link, read_stream);
    for (int i = 0; i < 1000 && sink_ptr->bytes - before < expect_bytes; ++i) {
      now += Duration::microseconds(1);
      kernel.handle_tick(now);
    }
    if (sink_ptr->bytes - before != expect_bytes) fail("stages: the kernel dropped frames");
    drain_all();
  });

  asio::io_context loop{1};
  c.turn = price(options, kBatch, [&] {
    for (int i = 0; i < kBatch; ++i) {
      asio::post(loop, [] {});
      loop.run_one();
    }
  });
  asio::steady_timer timer(loop);
  c.timer = price(options, kBatch, [&] {
    for (int i = 0; i < kBatch; ++i) {
      timer.expires_at(std::chrono::steady_clock::now());
      timer.async_wait([](const std::error_code&) {});
      loop.run_one();
    }
  });
  asm volatile("" : : "r"(seen), "r"(passed) : "memory");
  return c;
}

}  // namespace

void run_stages(const Options& options) {
  pin_thread(options.cpu);
  std::vector<Column> cols;
  for (const std::size_t p : kPayloads) {
    if (options.only_payload != 0 && options.only_payload != p) continue;
    cols.push_back(measure(options, p));
    progress("stages " + std::to_string(p) + " B: measured " + fmt_fixed(cols.back().flow.weft_ns, 0) + " ns/msg");
  }
  Table table("Hot path, one remote tell priced stage by stage, ns per message (harness 6)",
              {"stage", "64 B", "1 KB", "16 KB"});
  if (cols.size() != std::size(kPayloads)) fail("stages: --payload must be 64, 1024 or 16384 to print a table");
  const auto row = [&](const std::string& name, auto&& value, int decimals = 0) {
    std::vector<std::string> cells{name};
    for (const Column& c : cols) cells.push_back(fmt_fixed(value(c), decimals));
    table.row(cells);
  };
  const auto sum = [](const Column& c) {
    return c.flow.tell_ns + c.write + c.read + c.kernel_receive + c.turn * c.flow.turns_per_message +
           (c.timer - c.turn) * c.flow.ticks_per_message;
  };
  row("**measured: weft, whole path** (1 / harness 2 throughput)", [](const Column& c) { return c.flow.weft_ns; });
  row("measured: raw TCP, same bytes", [](const Column& c) { return c.flow.raw_ns; });
  row("**Kernel::tell** (timed in place during the flood)", [](const Column& c) { return c.flow.tell_ns; });
  row("&nbsp;&nbsp;of which: encode the envelope", [](const Column& c) { return c.encode; }, 1);
  row("&nbsp;&nbsp;of which: frame into the outbound buffer (beyond encode)",
      [](const Column& c) { return c.frame_with_encode - c.encode; }, 1);
  row("&nbsp;&nbsp;rest: ref checks, member lookup, outbound map, bounds",
      [](const Column& c) { return c.flow.tell_ns - c.frame_with_encode; }, 1);
  row("**write()** share (at the flood's average write size)", [](const Column& c) { return c.write; }, 1);
  row("**read()** share (at the flood's average read size)", [](const Column& c) { return c.read; }, 1);
  row("**kernel receive path** (handle_bytes + ticks, no socket)", [](const Column& c) { return c.kernel_receive; });
  row("&nbsp;&nbsp;of which: frame decoder", [](const Column& c) { return c.decoder; }, 1);
  row("&nbsp;&nbsp;of which: decode_message", [](const Column& c) { return c.decode; }, 1);
  row("&nbsp;&nbsp;of which: throttle observe", [](const Column& c) { return c.throttle; }, 1);
  row("&nbsp;&nbsp;of which: mailbox push + take + dispatch call", [](const Column& c) { return c.mailbox; }, 1);
  row("&nbsp;&nbsp;rest: link lookup, actor lookup, run queue, tick work",
      [](const Column& c) { return c.kernel_receive - c.decoder - c.decode - c.throttle - c.mailbox; }, 1);
  row("**asio handler turns** (post + run_one x turns/msg)",
      [](const Column& c) { return c.turn * c.flow.turns_per_message; }, 1);
  row("**timer re-arm + fire beyond a turn** (x ticks/msg)",
      [](const Column& c) { return (c.timer - c.turn) * c.flow.ticks_per_message; }, 1);
  row("**sum of the bold stages**", sum);
  row("unattributed: measured - sum", [&](const Column& c) { return c.flow.weft_ns - sum(c); });
  row("gap to raw: weft - raw", [](const Column& c) { return c.flow.weft_ns - c.flow.raw_ns; });
  row("context: one memcpy of the frame, cache-cold (8 MiB ring)", [](const Column& c) { return c.cold_copy; }, 1);
  row("context: average write (bytes)", [](const Column& c) { return c.flow.write_bytes; });
  row("context: average read (bytes)", [](const Column& c) { return c.flow.read_bytes; });
  row("context: handler turns per message", [](const Column& c) { return c.flow.turns_per_message; }, 3);
  row("context: timer ticks per message", [](const Column& c) { return c.flow.ticks_per_message; }, 3);
  table.note("one thread pinned to CPU " + std::to_string(options.cpu) + "; each price is the median of " +
             std::to_string(options.runs) + " timer loops; the whole path is harness 2's flood (defaults, window " +
             "= mailbox capacity), during which the driver's reads, writes and ticks are counted; syscall shares " +
             "are a non-blocking write() of the flood's average write size and read()s of its average read size on " +
             "a loopback pair, per byte, times the frame's bytes; turns = reads + writes + ticks on both nodes + " +
             "the harness's own pump posts");
  table.print();
  table.write_json(options.json_dir, "stages");
}

}  // namespace weft::bench::net
