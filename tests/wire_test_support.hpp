// Shared helpers for the wire tests: encoding to owned bytes, a sample of
// each message, and a builder over msgpack-c (an independent MessagePack
// implementation) for hand-made, often malformed, payloads.
#pragma once

#include <gtest/gtest.h>
#include <msgpack.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/ids.hpp"
#include "kernel/wire/envelope.hpp"
#include "kernel/wire/frame.hpp"
#include "kernel/wire/handshake.hpp"

namespace weft::wire::testing {

using ByteVector = std::vector<std::uint8_t>;

// The payload (no frame header) of `message`, via the real encoder.
template <class Message>
ByteVector encode_payload(const Message& message) {
  ByteVector frame;
  EXPECT_EQ(append_frame(frame, message), WireError::none);
  return ByteVector(frame.begin() + kFrameHeaderBytes, frame.end());
}

// The whole frame (header and payload) of `message`: what a peer's write
// carries, for feeding a kernel's handle_bytes.
template <class Message>
ByteVector encode_frame(const Message& message) {
  ByteVector frame;
  EXPECT_EQ(append_frame(frame, message), WireError::none);
  return frame;
}

// Owns the bytes a sample message's views point into.
struct SampleBody {
  ByteVector bytes;
};

Envelope sample_envelope(MessageKind kind = MessageKind::ask);
Hello sample_hello();
// The hello a peer sends first on a link it dialled, unauthenticated. It
// views `cluster_name` and `peer`'s address: keep both alive while the
// hello is used.
Hello hello_from(std::string_view cluster_name, const MemberId& peer);

// msgpack-c packer over an owned buffer.
class Pack {
 public:
  Pack() : packer_(buffer_) {}
  msgpack::packer<msgpack::sbuffer>& p() { return packer_; }
  Pack& map(std::uint32_t n) { packer_.pack_map(n); return *this; }
  Pack& array(std::uint32_t n) { packer_.pack_array(n); return *this; }
  Pack& uint(std::uint64_t v) { packer_.pack_uint64(v); return *this; }
  Pack& sint(std::int64_t v) { packer_.pack_int64(v); return *this; }
  Pack& str(const std::string& s) { packer_.pack(s); return *this; }
  Pack& bin(const ByteVector& b) {
    packer_.pack_bin(static_cast<std::uint32_t>(b.size()));
    packer_.pack_bin_body(reinterpret_cast<const char*>(b.data()), static_cast<std::uint32_t>(b.size()));
    return *this;
  }
  Pack& nil() { packer_.pack_nil(); return *this; }
  Pack& boolean(bool b) { if (b) packer_.pack_true(); else packer_.pack_false(); return *this; }
  Pack& real(double d) { packer_.pack_double(d); return *this; }
  Pack& ref(const std::string& host, std::uint64_t port, const std::string& name) {
    return array(3).str(host).uint(port).str(name);
  }
  Pack& raw(std::initializer_list<std::uint8_t> bytes) {
    for (std::uint8_t b : bytes) buffer_.write(reinterpret_cast<const char*>(&b), 1);
    return *this;
  }
  ByteVector bytes() const {
    const auto* data = reinterpret_cast<const std::uint8_t*>(buffer_.data());
    return ByteVector(data, data + buffer_.size());
  }

 private:
  msgpack::sbuffer buffer_;
  msgpack::packer<msgpack::sbuffer> packer_;
};

std::string hex(const ByteVector& bytes);

}  // namespace weft::wire::testing
