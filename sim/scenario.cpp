// What a scenario needs beside its generation (scenario_generate.cpp), its
// text (scenario_text.cpp) and its run (scenario_run.cpp): the smaller
// schedules a shrinker tries, and the keys its nodes hold.
#include "sim/scenario.hpp"

#include <algorithm>
#include <vector>

#include "auth/hmac_sha256.hpp"

namespace weft::sim {

std::vector<Scenario> smaller_schedules(const Scenario& s) {
  std::vector<Scenario> out;
  const std::size_t n = s.faults.size();
  for (std::size_t chunk = n / 2; chunk >= 1; chunk /= 2) {
    for (std::size_t start = 0; start < n; start += chunk) {
      Scenario t = s;
      t.faults.erase(t.faults.begin() + static_cast<std::ptrdiff_t>(start),
                     t.faults.begin() + static_cast<std::ptrdiff_t>(std::min(n, start + chunk)));
      out.push_back(std::move(t));
    }
    if (chunk == 1) break;
  }
  if (n == 1) {
    Scenario none = s;
    none.faults.clear();
    out.push_back(std::move(none));
  }
  return out;
}

Authentication scenario_auth(AuthMode mode, std::uint64_t seed, const NodeAddress& node) {
  Authentication auth;
  if (mode == AuthMode::off) return auth;
  auth.mac = &auth::hmac_sha256;
  Prng draw = Prng::derive(seed, 12);
  AuthKey old_key{};
  AuthKey new_key{};
  for (auto& b : old_key) b = static_cast<std::uint8_t>(draw.next_u64());
  for (auto& b : new_key) b = static_cast<std::uint8_t>(draw.next_u64());
  if (mode == AuthMode::shared) {
    auth.keys = {old_key};
  } else if (!node.host.empty() && node.host.back() % 2 == 0) {
    auth.keys = {new_key, old_key};  // already signs with the new key
  } else {
    auth.keys = {old_key, new_key};
  }
  return auth;
}

}  // namespace weft::sim
