// Which property failed, and catch tests that insist on it.
//
// A catch test aims a property at a deliberately broken variant and expects
// a counterexample. "Some failure" is not enough: a stray exception, a
// harness precondition or a different property failing would each pass such
// a test while proving nothing about the property it names. So:
//
// - A property's own assertions are PROP_ASSERT(name, expression) (or
//   prop_fail for a message that already starts with the name, as the
//   simulator's failure lines do): the failure's message starts "NAME: ".
//   Plain RC_ASSERT stays for preconditions of the test itself (an encoder
//   that must succeed, a variant returning one verdict per frame), whose
//   failure says nothing about the property.
// - fails_as(name, description, property) passes only when rapidcheck's
//   final (shrunk) counterexample failed with a message starting "NAME: ",
//   and no case anywhere in the search, shrinking included, threw: an
//   exception is a defect of the variant or the harness, not a catch, even
//   if the search later also finds a real violation.
//
// It uses rapidcheck's detail API (CaseResult, RC_INTERNAL_CAPTURE,
// checkTestable, FailureResult) as Debian's librapidcheck 0~1033 ships it:
// RC_ASSERT and rc::check are built on the same names, so a change there
// breaks the build rather than silently weakening the checks.
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>

namespace weft::props {

namespace catches_detail {

template <class Expression>
void assert_holds(const char* name, const Expression& expression, const char* text, const char* file, int line) {
  if (static_cast<bool>(expression.value())) return;
  std::ostringstream message;
  message << name << ": " << text << "  (" << file << ":" << line << ")\nexpands to: ";
  expression.show(message);
  throw rc::detail::CaseResult(rc::detail::CaseResult::Type::Failure, message.str());
}

// Prefixed so no property's name can start a thrown case's message.
inline constexpr const char* kThrewPrefix = "(exception, not a property failure) ";

}  // namespace catches_detail

// An assertion of the property `name`: on failure the case fails with
// "name: expression  (file:line)" and rapidcheck's expansion of its operands.
#define PROP_ASSERT(name, expression)                                                                 \
  ::weft::props::catches_detail::assert_holds((name), RC_INTERNAL_CAPTURE(expression), #expression, \
                                              __FILE__, __LINE__)

// Fails the case with `message`, which must start with the property's name
// and ": " (e.g. a simulator failure line, "F5: n3's detectors took ...").
[[noreturn]] inline void prop_fail(std::string message) {
  throw rc::detail::CaseResult(rc::detail::CaseResult::Type::Failure, std::move(message));
}

// Runs `property` (a callable taking no arguments) under rapidcheck with the
// configured RC_PARAMS and asserts that it fails as the property `name`
// (see above). Use as EXPECT_TRUE(fails_as("S2", "...", [] { ... })).
template <class Property>
::testing::AssertionResult fails_as(const std::string& name, const std::string& description, Property&& property) {
  std::string first_exception;
  const auto guarded = [&] {
    try {
      property();
    } catch (const rc::detail::CaseResult&) {
      throw;  // a verdict: failure, discard or success
    } catch (const rc::GenerationFailure&) {
      throw;  // rapidcheck's own: the case is discarded
    } catch (const std::exception& e) {
      if (first_exception.empty()) first_exception = e.what();
      prop_fail(catches_detail::kThrewPrefix + std::string(e.what()));
    } catch (...) {
      if (first_exception.empty()) first_exception = "a non-standard exception";
      prop_fail(catches_detail::kThrewPrefix + std::string("a non-standard exception"));
    }
  };
  rc::detail::configuration();  // RC_PARAMS is read (and echoed) before our header line
  std::cerr << "\n- " << description << " (must fail as " << name << ")\n";
  rc::detail::TestMetadata metadata;
  metadata.id = description;
  metadata.description = description;
  const rc::detail::TestResult result = rc::detail::checkTestable(guarded, metadata);
  rc::detail::printResultMessage(result, std::cerr);
  std::cerr << "\n";

  if (!first_exception.empty()) {
    return ::testing::AssertionFailure() << description << ": a case threw instead of failing " << name << ": "
                                         << first_exception;
  }
  rc::detail::FailureResult failure;
  if (!result.match(failure)) {
    std::ostringstream how;
    rc::detail::printResultMessage(result, how);
    return ::testing::AssertionFailure() << description << ": no counterexample to " << name << ": " << how.str();
  }
  if (failure.description.rfind(name + ": ", 0) != 0) {
    return ::testing::AssertionFailure() << description << ": failed, but not as " << name << ":\n"
                                         << failure.description;
  }
  return ::testing::AssertionSuccess() << description << " failed as " << name;
}

}  // namespace weft::props
