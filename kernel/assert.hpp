// Programmer-error assertions, on in every build (release, sim, props, bench).
//
// Two classes of error, two mechanisms: a broken invariant inside weft is a
// bug and stops the process here with the failing expression and location;
// bad input from a peer or a user is an operating error and travels as a value
// (see wire/errors.hpp). Never assert on peer bytes.
#pragma once

namespace weft {

[[noreturn]] void assert_failed(const char* expression, const char* file, int line) noexcept;

}  // namespace weft

#define WEFT_ASSERT(expression)                                          \
  do {                                                                   \
    if (!(expression)) [[unlikely]] {                                    \
      ::weft::assert_failed(#expression, __FILE__, __LINE__);            \
    }                                                                    \
  } while (false)
