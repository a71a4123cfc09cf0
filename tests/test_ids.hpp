// Member ids for unit tests: member n listens at 10.0.0.n:7000, so ids sort
// as their numbers do for n up to 9 (the address is compared as text).
#pragma once

#include <cstdint>
#include <string>

#include "kernel/ids.hpp"

namespace weft::test {

inline MemberId member_id(int n, std::uint64_t incarnation = 1) {
  return MemberId{NodeAddress{"10.0.0." + std::to_string(n), 7000}, Incarnation{incarnation}};
}

}  // namespace weft::test
