// 128-bit integers for exact products of 64-bit values (PRNG bounds, sums of
// squared nanoseconds). A GCC/Clang extension; named once here.
#pragma once

namespace weft {

__extension__ typedef unsigned __int128 uint128;
__extension__ typedef __int128 int128;

}  // namespace weft
