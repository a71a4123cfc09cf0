#include "auth/hmac_sha256.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdlib>

namespace weft::auth {

Proof hmac_sha256(std::span<const std::uint8_t> key, std::span<const std::uint8_t> message) {
  Proof proof{};
  unsigned int length = 0;
  const unsigned char* done = HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), message.data(),
                                   message.size(), proof.data(), &length);
  // HMAC fails only if libcrypto cannot allocate or SHA-256 is missing: no
  // proof could ever be checked again, so stopping beats a silent zero MAC.
  if (done == nullptr || length != proof.size()) std::abort();
  return proof;
}

}  // namespace weft::auth
