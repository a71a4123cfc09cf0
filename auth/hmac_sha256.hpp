// HMAC-SHA256 from OpenSSL's libcrypto: the MAC the real driver and the
// simulator inject into the kernel (Config::auth.mac). The kernel never links
// a crypto library; this is the one place weft calls libcrypto's MAC.
#pragma once

#include <cstdint>
#include <span>

#include "kernel/authentication.hpp"

namespace weft::auth {

// A pure function: the same key and message always give the same proof.
Proof hmac_sha256(std::span<const std::uint8_t> key, std::span<const std::uint8_t> message);

}  // namespace weft::auth
