// rapidcheck generators for weft's wire values. Messages hold views, so the
// generators produce owning shapes and view() lends a message over them.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "kernel/ids.hpp"
#include "kernel/wire/envelope.hpp"
#include "kernel/wire/handshake.hpp"

namespace weft::props {

inline rc::Gen<std::string> gen_text(std::size_t min_bytes, std::size_t max_bytes) {
  return rc::gen::mapcat(rc::gen::inRange(min_bytes, max_bytes + 1), [](std::size_t n) {
    return rc::gen::container<std::string>(n, rc::gen::inRange<char>(33, 127));
  });
}

inline rc::Gen<NodeAddress> gen_address() {
  return rc::gen::build<NodeAddress>(
      rc::gen::set(&NodeAddress::host, gen_text(1, wire::kMaxHostBytes)),
      rc::gen::set(&NodeAddress::port, rc::gen::inRange<std::uint16_t>(1, 65535)));
}

inline rc::Gen<ActorRef> gen_actor_ref() {
  return rc::gen::build<ActorRef>(rc::gen::set(&ActorRef::node, gen_address()),
                                  rc::gen::set(&ActorRef::name, gen_text(1, wire::kMaxActorNameBytes)));
}

// Bodies mostly small, sometimes past the bin8 and bin16 boundaries.
inline rc::Gen<std::vector<std::uint8_t>> gen_body() {
  return rc::gen::mapcat(
      rc::gen::weightedOneOf<std::size_t>({{8, rc::gen::inRange<std::size_t>(0, 300)},
                                           {2, rc::gen::inRange<std::size_t>(0, 70'000)}}),
      [](std::size_t n) {
        return rc::gen::container<std::vector<std::uint8_t>>(n, rc::gen::arbitrary<std::uint8_t>());
      });
}

struct OwnedEnvelope {
  wire::MessageKind kind = wire::MessageKind::tell;
  ActorRef target;
  std::optional<ActorRef> sender;
  std::uint64_t correlation_id = 0;
  std::uint32_t type_tag = 0;
  std::vector<std::uint8_t> body;

  wire::Envelope view() const {
    wire::Envelope e;
    e.kind = kind;
    e.target = wire::ActorRefView::of(target);
    if (sender) e.sender = wire::ActorRefView::of(*sender);
    e.correlation_id = correlation_id;
    e.type_tag = type_tag;
    e.body = body;
    return e;
  }
};

inline rc::Gen<OwnedEnvelope> gen_envelope() {
  return rc::gen::exec([] {
    OwnedEnvelope e;
    e.kind = *rc::gen::element(wire::MessageKind::tell, wire::MessageKind::ask, wire::MessageKind::reply);
    e.target = *gen_actor_ref();
    if (e.kind == wire::MessageKind::ask || *rc::gen::arbitrary<bool>()) e.sender = *gen_actor_ref();
    if (e.kind != wire::MessageKind::tell) {
      e.correlation_id = *rc::gen::suchThat(rc::gen::arbitrary<std::uint64_t>(),
                                            [](std::uint64_t c) { return c != 0; });
    }
    e.type_tag = *rc::gen::arbitrary<std::uint32_t>();
    e.body = *gen_body();
    return e;
  });
}

struct OwnedHello {
  std::uint16_t protocol_version = 1;
  std::string cluster_name;
  NodeAddress address;
  std::uint64_t incarnation = 0;
  std::array<std::uint8_t, wire::kNonceBytes> nonce{};
  std::vector<std::uint8_t> proof;

  wire::Hello view() const {
    wire::Hello h;
    h.protocol_version = protocol_version;
    h.cluster_name = cluster_name;
    h.address = wire::AddressView::of(address);
    h.incarnation = incarnation;
    h.nonce = nonce;
    h.proof = proof;
    return h;
  }
};

inline rc::Gen<OwnedHello> gen_hello() {
  return rc::gen::exec([] {
    OwnedHello h;
    h.protocol_version = *rc::gen::inRange<std::uint16_t>(1, 65535);
    h.cluster_name = *gen_text(1, wire::kMaxClusterNameBytes);
    h.address = *gen_address();
    h.incarnation = *rc::gen::arbitrary<std::uint64_t>();
    for (auto& b : h.nonce) b = *rc::gen::arbitrary<std::uint8_t>();
    if (*rc::gen::arbitrary<bool>()) {
      h.proof = *rc::gen::container<std::vector<std::uint8_t>>(wire::kProofBytes,
                                                                rc::gen::arbitrary<std::uint8_t>());
    }
    return h;
  });
}

inline std::ostream& operator<<(std::ostream& os, const OwnedEnvelope& e) {
  return os << "Envelope{kind=" << static_cast<int>(e.kind) << " target=" << e.target.to_string()
            << " sender=" << (e.sender ? e.sender->to_string() : "none")
            << " correlation_id=" << e.correlation_id << " type_tag=" << e.type_tag
            << " body=" << e.body.size() << " bytes}";
}

inline std::ostream& operator<<(std::ostream& os, const OwnedHello& h) {
  return os << "Hello{version=" << h.protocol_version << " cluster=" << h.cluster_name
            << " address=" << h.address.to_string() << " incarnation=" << h.incarnation
            << " proof=" << h.proof.size() << " bytes}";
}

}  // namespace weft::props
