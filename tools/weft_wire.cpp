// weft-wire: a tour of weft's wire format. Encodes a handshake and a tell,
// ask and reply; streams them through the incremental frame decoder in
// seeded random read sizes, as a socket would deliver them; then shows how
// malformed frames close a link with a named reason.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>
#include <variant>
#include <vector>

#include "kernel/prng.hpp"
#include "kernel/wire/frame.hpp"
#include "kernel/wire/message.hpp"

namespace {

using weft::wire::Bytes;
using ByteVector = std::vector<std::uint8_t>;

std::string hex(Bytes bytes, std::size_t limit) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (std::size_t i = 0; i < bytes.size() && i < limit; ++i) {
    if (i != 0 && i % 4 == 0) text += ' ';
    text += kDigits[bytes[i] >> 4];
    text += kDigits[bytes[i] & 15];
  }
  if (bytes.size() > limit) text += " ...";
  return text;
}

void print_message(std::size_t read, const weft::wire::Message& message) {
  if (!std::holds_alternative<weft::wire::Hello>(message) &&
      !std::holds_alternative<weft::wire::Envelope>(message)) {
    std::printf("   read %3zu: a control message\n", read);
    return;
  }
  if (const auto* hello = std::get_if<weft::wire::Hello>(&message)) {
    std::printf("   read %3zu: hello  cluster=%.*s from %s#%llu version=%u proof=%zuB\n", read,
                static_cast<int>(hello->cluster_name.size()), hello->cluster_name.data(),
                hello->address.to_owned().to_string().c_str(),
                static_cast<unsigned long long>(hello->incarnation), hello->protocol_version,
                hello->proof.size());
    return;
  }
  const auto& e = std::get<weft::wire::Envelope>(message);
  const std::string sender = e.sender.empty() ? "(nobody)" : e.sender.to_owned().to_string();
  std::printf("   read %3zu: %-6s to %s from %s correlation=%llu type=%u body=\"%.*s\"\n", read,
              std::string(to_string(e.kind)).c_str(), e.target.to_owned().to_string().c_str(), sender.c_str(),
              static_cast<unsigned long long>(e.correlation_id), e.type_tag,
              static_cast<int>(e.body.size()), reinterpret_cast<const char*>(e.body.data()));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"weft-wire: weft's wire format, end to end"};
  std::uint64_t seed = 42;
  std::uint32_t max_read = 16;
  app.add_option("--seed", seed, "seed for the read sizes")->capture_default_str();
  app.add_option("--max-read", max_read, "largest simulated socket read, in bytes")
      ->check(CLI::Range(1U, 1U << 20))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  std::printf("weft-wire --seed %llu --max-read %u\n\n", static_cast<unsigned long long>(seed), max_read);

  const std::string body_tell = "incr counter 3";
  const std::string body_ask = "get counter 3";
  const std::string body_reply = "17";
  const auto bytes_of = [](const std::string& s) {
    return Bytes(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
  };
  const weft::wire::ActorRefView counter{{"10.0.0.17", 7000}, "counter-shard-3"};
  const weft::wire::ActorRefView client{{"10.0.0.4", 7001}, "client"};

  weft::wire::Hello hello;
  hello.cluster_name = "demo";
  hello.address = client.node;
  hello.incarnation = 1;
  for (std::size_t i = 0; i < hello.nonce.size(); ++i) hello.nonce[i] = static_cast<std::uint8_t>(i * 17);

  weft::wire::Envelope tell{weft::wire::MessageKind::tell, counter, client, 0, 1, bytes_of(body_tell)};
  weft::wire::Envelope ask{weft::wire::MessageKind::ask, counter, client, 7, 2, bytes_of(body_ask)};
  weft::wire::Envelope reply{weft::wire::MessageKind::reply, client, counter, 7, 3, bytes_of(body_reply)};

  std::printf("1. Encoding: 4-byte big-endian length, then a MessagePack map\n");
  ByteVector stream;
  const auto add = [&](const auto& message, const char* name) {
    const std::size_t start = stream.size();
    if (weft::wire::append_frame(stream, message) != weft::wire::WireError::none) std::abort();
    const Bytes frame(stream.data() + start, stream.size() - start);
    std::printf("   %-6s %3zu bytes  %s\n", name, frame.size(), hex(frame, 24).c_str());
  };
  add(hello, "hello");
  add(tell, "tell");
  add(ask, "ask");
  add(reply, "reply");

  std::printf("\n2. Decoding the %zu-byte stream in random reads of 1..%u bytes\n", stream.size(), max_read);
  weft::Prng prng(seed);
  weft::wire::FrameDecoder decoder;
  std::size_t at = 0;
  std::size_t reads = 0;
  while (at < stream.size()) {
    const std::size_t n = std::min<std::size_t>(prng.below(max_read) + 1, stream.size() - at);
    ++reads;
    const weft::wire::WireError error = decoder.feed(Bytes(stream.data() + at, n), [&](Bytes payload) {
      const auto decoded = weft::wire::decode_message(payload);
      if (!decoded.ok()) {
        std::printf("   read %3zu: rejected: %s\n", reads, std::string(to_string(decoded.error)).c_str());
        return;
      }
      print_message(reads, decoded.value);
    });
    if (error != weft::wire::WireError::none) return 1;
    at += n;
  }

  std::printf("\n3. Malformed input closes the link with a named reason\n");
  const std::vector<std::pair<const char*, ByteVector>> bad = {
      {"declares a 4 GiB frame", {0xff, 0xff, 0xff, 0xff}},
      {"declares an empty frame", {0, 0, 0, 0}},
      {"frame holds an array, not a map", {0, 0, 0, 1, 0x90}},
      {"map with key 0 twice", {0, 0, 0, 5, 0x82, 0x00, 0x40, 0x00, 0x40}},
      {"kind 0x99", {0, 0, 0, 4, 0x81, 0x00, 0xcc, 0x99}},
  };
  for (const auto& [what, bytes] : bad) {
    weft::wire::FrameDecoder link;
    weft::wire::WireError message_error = weft::wire::WireError::none;
    const weft::wire::WireError frame_error = link.feed(bytes, [&](Bytes payload) {
      message_error = weft::wire::decode_message(payload).error;
    });
    const weft::wire::WireError reason =
        frame_error != weft::wire::WireError::none ? frame_error : message_error;
    std::printf("   %-34s -> close link: %s\n", what, std::string(to_string(reason)).c_str());
  }
  return 0;
}
