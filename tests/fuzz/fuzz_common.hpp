// Shared checks for the wire fuzz targets.
//
// A violated invariant prints what failed and aborts; libFuzzer reports the
// abort as a crash and writes the input as an artifact. Sanitizer findings
// (ASan, UBSan) and WEFT_ASSERT failures inside the kernel abort the same way.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "kernel/wire/control.hpp"
#include "kernel/wire/envelope.hpp"
#include "kernel/wire/errors.hpp"
#include "kernel/wire/fields.hpp"
#include "kernel/wire/frame.hpp"
#include "kernel/wire/handshake.hpp"
#include "kernel/wire/message.hpp"
#include "kernel/wire/msgpack.hpp"

namespace weft::fuzz {

[[noreturn]] inline void check_failed(const char* expression, const char* file, int line) {
  std::fprintf(stderr, "weft fuzz: invariant violated: %s (%s:%d)\n", expression, file, line);
  std::fflush(stderr);
  std::abort();
}

}  // namespace weft::fuzz

#define FUZZ_CHECK(expression)                                        \
  do {                                                                \
    if (!(expression)) {                                              \
      ::weft::fuzz::check_failed(#expression, __FILE__, __LINE__);    \
    }                                                                 \
  } while (false)

namespace weft::fuzz {

using wire::Bytes;
using wire::WireError;

// Reads every byte of a view the decoder handed out, so a view reaching past
// its buffer is an ASan report rather than a silent wrong answer.
inline volatile std::uint8_t touch_sink = 0;
inline void touch(Bytes bytes) {
  std::uint8_t acc = 0;
  for (const std::uint8_t b : bytes) acc = static_cast<std::uint8_t>(acc ^ b);
  touch_sink = acc;
}
inline void touch(std::string_view text) {
  touch(Bytes(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

// Walks `input` as a flat sequence of MessagePack values (a container header
// is one step, its elements the following steps) and holds the typed readers
// to what skip_value says about the same bytes. The message decoders read
// each field with the typed readers while peek_kind steps over fields with
// skip_value, so the two must agree on every value's extent; and the walk
// reaches every encoding of every type, including the out-of-line forms
// (str16, bin32, map32, ...) that weft's own messages rarely carry.
// O(input) per call: containers are never skipped whole unless the walk
// stops there.
inline void check_reader_walk(Bytes input) {
  wire::Reader reader(input);
  while (!reader.at_end()) {
    FUZZ_CHECK(reader.position() < input.size());
    const std::uint8_t marker = input[reader.position()];
    wire::Reader skipper = reader;  // the same position, for skip_value

    const bool is_uint = marker <= 0x7f || (marker >= wire::format::kUint8 &&
                                            marker <= wire::format::kInt64);
    const bool is_str = (marker >= 0xa0 && marker <= 0xbf) || marker == wire::format::kStr8 ||
                        marker == wire::format::kStr16 || marker == wire::format::kStr32;
    const bool is_bin = marker == wire::format::kBin8 || marker == wire::format::kBin16 ||
                        marker == wire::format::kBin32;
    const bool is_array = (marker >= 0x90 && marker <= 0x9f) ||
                          marker == wire::format::kArray16 || marker == wire::format::kArray32;
    const bool is_map = (marker >= 0x80 && marker <= 0x8f) || marker == wire::format::kMap16 ||
                        marker == wire::format::kMap32;

    if (is_array || is_map) {
      std::uint32_t count = 0;
      const WireError typed =
          is_array ? reader.read_array_header(count) : reader.read_map_header(count);
      if (typed == WireError::none) {
        // The reader's promise: a count beyond the bytes left is refused.
        FUZZ_CHECK(count <= reader.remaining());
        FUZZ_CHECK(reader.position() <= input.size());
        continue;  // walk into the elements
      }
      FUZZ_CHECK(typed == WireError::truncated);
      FUZZ_CHECK(skipper.skip_value() == WireError::truncated);
      return;
    }

    WireError typed = WireError::wrong_type;  // no typed reader for this marker
    if (is_uint) {
      std::uint64_t value = 0;
      typed = reader.read_uint(value);
    } else if (is_str) {
      std::string_view value;
      typed = reader.read_str(value);
      if (typed == WireError::none) touch(value);
    } else if (is_bin) {
      Bytes value;
      typed = reader.read_bin(value);
      if (typed == WireError::none) touch(value);
    } else if (marker == wire::format::kNil) {
      FUZZ_CHECK(reader.try_read_nil());
      typed = WireError::none;
    } else {
      FUZZ_CHECK(!reader.try_read_nil());
    }

    const WireError skipped = skipper.skip_value();
    if (typed == WireError::none) {
      FUZZ_CHECK(skipped == WireError::none);
      FUZZ_CHECK(reader.position() == skipper.position());
      FUZZ_CHECK(reader.position() <= input.size());
      continue;
    }
    // A scalar's typed read and skip_value see the same extent.
    if (typed == WireError::truncated) FUZZ_CHECK(skipped == WireError::truncated);
    if (skipped != WireError::none) return;
    FUZZ_CHECK(skipper.position() <= input.size());
    reader = skipper;  // e.g. a negative integer, a float, an ext: step over it
  }
  FUZZ_CHECK(!reader.try_read_nil());
  FUZZ_CHECK(reader.remaining() == 0);
}

template <class T>
std::vector<std::uint8_t> encode_to_vector(const T& value) {
  std::vector<std::uint8_t> bytes(wire::encoded_size(value));
  wire::Writer writer(bytes.data(), bytes.size());
  wire::encode(value, writer);
  FUZZ_CHECK(writer.unused() == 0);
  return bytes;
}

// For a value a decoder accepted from `input_size` bytes: it validates, its
// encoding is no longer than the input (the writer picks the shortest form of
// everything the decoder accepts), decodes back to an equal value, and
// re-encodes to the same bytes; append_frame frames exactly those bytes and
// refuses, leaving its output alone, when the maximum is one byte short.
template <class T, class Decode>
void check_round_trip(const T& value, std::size_t input_size, Decode decode) {
  FUZZ_CHECK(wire::validate(value) == WireError::none);
  const std::vector<std::uint8_t> bytes = encode_to_vector(value);
  FUZZ_CHECK(!bytes.empty());
  FUZZ_CHECK(bytes.size() <= input_size);

  const wire::Decoded<T> again = decode(Bytes(bytes));
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again.value == value);
  FUZZ_CHECK(encode_to_vector(again.value) == bytes);

  const wire::Decoded<wire::Message> message = wire::decode_message(Bytes(bytes));
  FUZZ_CHECK(message.ok());
  const T* held = std::get_if<T>(&message.value);
  FUZZ_CHECK(held != nullptr);
  FUZZ_CHECK(*held == value);

  std::vector<std::uint8_t> out = {0xa5};  // bytes already there must survive
  FUZZ_CHECK(wire::append_frame(out, value) == WireError::none);
  FUZZ_CHECK(out.size() == 1 + wire::kFrameHeaderBytes + bytes.size());
  FUZZ_CHECK(out[0] == 0xa5);
  FUZZ_CHECK(wire::load_be32(out.data() + 1) == bytes.size());
  FUZZ_CHECK(std::equal(bytes.begin(), bytes.end(), out.begin() + 1 + wire::kFrameHeaderBytes));

  std::vector<std::uint8_t> refused = out;
  const auto short_max = static_cast<std::uint32_t>(bytes.size() - 1);
  if (short_max > 0) {
    FUZZ_CHECK(wire::append_frame(refused, value, short_max) == WireError::frame_too_large);
    FUZZ_CHECK(refused == out);
  }

  // The frame decodes to the same payload.
  wire::FrameDecoder decoder(static_cast<std::uint32_t>(bytes.size()));
  std::size_t frames = 0;
  const WireError framed = decoder.feed(Bytes(out).subspan(1), [&](Bytes payload) {
    ++frames;
    FUZZ_CHECK(std::equal(payload.begin(), payload.end(), bytes.begin(), bytes.end()));
  });
  FUZZ_CHECK(framed == WireError::none);
  FUZZ_CHECK(frames == 1);
  FUZZ_CHECK(decoder.buffered_bytes() == 0);
}

// The kind a decoded message carries.
inline wire::MessageKind kind_of_message(const wire::Message& message) {
  return std::visit(
      [](const auto& value) -> wire::MessageKind {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, wire::Hello>) {
          return wire::MessageKind::hello;
        } else if constexpr (std::is_same_v<T, wire::Envelope>) {
          return value.kind;
        } else {
          return wire::kind_of(value);
        }
      },
      message);
}

// For any message decode_message accepted from `input_size` bytes, whatever
// its kind (control messages included): the encoding is no longer than the
// input, decodes back to an equal message and re-encodes to the same bytes.
inline void check_message_round_trip(const wire::Message& message, std::size_t input_size) {
  const std::vector<std::uint8_t> bytes =
      std::visit([](const auto& value) { return encode_to_vector(value); }, message);
  FUZZ_CHECK(!bytes.empty());
  FUZZ_CHECK(bytes.size() <= input_size);
  const wire::Decoded<wire::Message> again = wire::decode_message(Bytes(bytes));
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again.value == message);
  FUZZ_CHECK(kind_of_message(again.value) == kind_of_message(message));
  const std::vector<std::uint8_t> bytes_again =
      std::visit([](const auto& value) { return encode_to_vector(value); }, again.value);
  FUZZ_CHECK(bytes_again == bytes);
}

// decode_message must agree with the kind's own decoder. peek_kind names the
// kind (or the error before it is known, which decode_message returns); for
// a hello or a user kind decode_message returns exactly what decode_hello or
// decode_envelope does; a decoder never accepts another kind's payload; a
// failed decode leaves the value default-constructed.
inline void check_message_agreement(Bytes input) {
  const wire::Decoded<wire::Message> message = wire::decode_message(input);
  const wire::Decoded<wire::Hello> hello = wire::decode_hello(input);
  const wire::Decoded<wire::Envelope> envelope = wire::decode_envelope(input);

  if (!message.ok()) {
    const wire::Hello* held = std::get_if<wire::Hello>(&message.value);
    FUZZ_CHECK(held != nullptr && *held == wire::Hello{});
  }
  if (!hello.ok()) FUZZ_CHECK(hello.value == wire::Hello{});
  if (!envelope.ok()) FUZZ_CHECK(envelope.value == wire::Envelope{});

  wire::MessageKind kind{};
  const WireError peeked = wire::peek_kind(input, kind);
  if (peeked != WireError::none) {
    FUZZ_CHECK(message.error == peeked);
    FUZZ_CHECK(!hello.ok());
    FUZZ_CHECK(!envelope.ok());
    return;
  }

  if (message.ok()) {
    FUZZ_CHECK(kind_of_message(message.value) == kind);
    check_message_round_trip(message.value, input.size());
  }
  if (kind == wire::MessageKind::hello) {
    FUZZ_CHECK(message.error == hello.error);
    FUZZ_CHECK(!envelope.ok());
    if (message.ok()) {
      const wire::Hello* held = std::get_if<wire::Hello>(&message.value);
      FUZZ_CHECK(held != nullptr && *held == hello.value);
    }
  } else if (wire::is_user(kind)) {
    FUZZ_CHECK(message.error == envelope.error);
    FUZZ_CHECK(!hello.ok());
    if (message.ok()) {
      const wire::Envelope* held = std::get_if<wire::Envelope>(&message.value);
      FUZZ_CHECK(held != nullptr && *held == envelope.value);
    }
  } else {  // a control kind: neither of these decoders may take it
    FUZZ_CHECK(!hello.ok());
    FUZZ_CHECK(!envelope.ok());
  }
}

}  // namespace weft::fuzz
