// Goal: weft-sim's JSON (--json, and the data inside an --html page) is
// valid whatever the text: strings escaped, control bytes and the characters
// that could end an HTML <script> written as \u escapes, and numbers that
// are not finite written as null.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sim_cli/json.hpp"

namespace weft::sim_cli {
namespace {

TEST(JsonWriter, NestsAndSeparates) {
  JsonWriter j;
  j.begin_object().key("a").value(std::uint64_t{1}).key("b").begin_array().value(true).null().value(-2).end_array();
  j.key("c").begin_object().end_object().end_object();
  EXPECT_EQ(j.text(), R"({"a":1,"b":[true,null,-2],"c":{}})");
}

TEST(JsonWriter, EscapesStrings) {
  static constexpr char text[] = "quote \" backslash \\ nl \n tab \t nul \0 bell \x07 </script>&";
  JsonWriter j;
  j.begin_array().value(std::string_view(text, sizeof text - 1)).end_array();
  EXPECT_EQ(j.text(),
            R"(["quote \" backslash \\ nl \n tab \t nul \u0000 bell \u0007 \u003c/script\u003e\u0026"])");
}

TEST(JsonWriter, WritesNoNanOrInfinity) {
  JsonWriter j;
  j.begin_array()
      .value(std::numeric_limits<double>::quiet_NaN())
      .value(std::numeric_limits<double>::infinity())
      .value(-std::numeric_limits<double>::infinity())
      .value(1.5, 3)
      .end_array();
  EXPECT_EQ(j.text(), "[null,null,null,1.500]");
}

}  // namespace
}  // namespace weft::sim_cli
