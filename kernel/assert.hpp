// Programmer-error assertions, on in every build (release, sim, props, bench).
//
// Two classes of error, two mechanisms: a broken invariant inside weft is a
// bug and stops the process here with the failing expression and location;
// bad input from a peer or a user is an operating error and travels as a value
// (see wire/errors.hpp). Never assert on peer bytes.
#pragma once

#include <cstddef>

namespace weft {

[[noreturn]] void assert_failed(const char* expression, const char* file, int line) noexcept;

// For the static_asserts that keep a hand-kept list of an enum's values (the
// kAll* arrays) in step with the enum: true if `values` holds 0, 1, 2, ...
// in order, each once. Paired with a check that its last element is the
// enum's last value, it says the list names every value exactly once.
template <class Values>
constexpr bool lists_values_in_order(const Values& values) {
  std::size_t expected = 0;
  for (const auto value : values) {
    if (static_cast<std::size_t>(value) != expected) return false;
    ++expected;
  }
  return true;
}

}  // namespace weft

#define WEFT_ASSERT(expression)                                          \
  do {                                                                   \
    if (!(expression)) [[unlikely]] {                                    \
      ::weft::assert_failed(#expression, __FILE__, __LINE__);            \
    }                                                                    \
  } while (false)
