// libFuzzer target: weft::wire::decode_hello and decode_hello_proof on a raw
// frame payload, and decode_message against the per-kind decoders.
//
// Any input: the typed MessagePack readers agree with skip_value on every
// value (see check_reader_walk); decode_message returns peek_kind's error,
// or for a hello or user kind exactly what decode_hello or decode_envelope
// returns, and neither of those accepts another kind's payload. Anything
// decode_message accepts (control messages included) re-encodes to at most
// as many bytes and decodes back equal. An accepted hello (or envelope)
// validates, decodes back equal, re-encodes identically, and frames through
// append_frame and FrameDecoder unchanged.
#include <cstddef>
#include <cstdint>

#include "fuzz_common.hpp"
#include "kernel/wire/envelope.hpp"
#include "kernel/wire/handshake.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const weft::wire::Bytes input(data, size);
  weft::fuzz::check_reader_walk(input);
  weft::fuzz::check_message_agreement(input);

  const weft::wire::Decoded<weft::wire::Hello> hello = weft::wire::decode_hello(input);
  if (hello.ok()) {
    weft::fuzz::touch(hello.value.cluster_name);
    weft::fuzz::touch(hello.value.address.host);
    weft::fuzz::touch(hello.value.proof);
    weft::fuzz::check_round_trip(hello.value, size, [](weft::wire::Bytes bytes) {
      return weft::wire::decode_hello(bytes);
    });
    return 0;
  }
  const weft::wire::Decoded<weft::wire::HelloProof> proof = weft::wire::decode_hello_proof(input);
  if (proof.ok()) {
    weft::fuzz::touch(proof.value.proof);
    weft::fuzz::check_round_trip(proof.value, size, [](weft::wire::Bytes bytes) {
      return weft::wire::decode_hello_proof(bytes);
    });
    return 0;
  }
  // The payloads this target's corpus mixes in from the user side.
  const weft::wire::Decoded<weft::wire::Envelope> envelope = weft::wire::decode_envelope(input);
  if (envelope.ok()) {
    weft::fuzz::check_round_trip(envelope.value, size, [](weft::wire::Bytes bytes) {
      return weft::wire::decode_envelope(bytes);
    });
  }
  return 0;
}
