// libFuzzer target: weft::wire::decode_envelope on a raw frame payload.
//
// Any input: the typed MessagePack readers agree with skip_value on every
// value (see check_reader_walk); a failed decode leaves the value
// default-constructed. An accepted envelope validates, re-encodes to at most
// as many bytes, decodes back equal, re-encodes identically, and frames
// through append_frame and FrameDecoder unchanged.
#include <cstddef>
#include <cstdint>

#include "fuzz_common.hpp"
#include "kernel/wire/envelope.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const weft::wire::Bytes input(data, size);
  weft::fuzz::check_reader_walk(input);

  const weft::wire::Decoded<weft::wire::Envelope> decoded = weft::wire::decode_envelope(input);
  if (!decoded.ok()) {
    FUZZ_CHECK(decoded.value == weft::wire::Envelope{});
    return 0;
  }
  weft::fuzz::touch(decoded.value.body);
  weft::fuzz::touch(decoded.value.target.node.host);
  weft::fuzz::touch(decoded.value.target.name);
  weft::fuzz::touch(decoded.value.sender.node.host);
  weft::fuzz::touch(decoded.value.sender.name);
  weft::fuzz::check_round_trip(decoded.value, size, [](weft::wire::Bytes bytes) {
    return weft::wire::decode_envelope(bytes);
  });
  return 0;
}
