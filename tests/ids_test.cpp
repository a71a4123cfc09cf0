// Goal: addresses print and parse as inverses, reject malformed text, and
// identities order the same way on every run (no hashing, no pointers).
#include "kernel/ids.hpp"

#include <gtest/gtest.h>

#include <set>

namespace weft {
namespace {

TEST(NodeAddress, PrintAndParseAreInverses) {
  for (const NodeAddress& address : {NodeAddress{"127.0.0.1", 7000}, NodeAddress{"node-3.weft", 1},
                                     NodeAddress{"::1", 65535}}) {
    const auto parsed = NodeAddress::parse(address.to_string());
    ASSERT_TRUE(parsed.has_value()) << address.to_string();
    EXPECT_EQ(*parsed, address);
  }
  EXPECT_EQ((NodeAddress{"::1", 7000}).to_string(), "[::1]:7000");
}

TEST(NodeAddress, ParseRejectsMalformed) {
  for (const char* text : {"", "host", "host:", ":7000", "host:0", "host:65536", "host:7x",
                           "host:-1", "::1:7000", "[]:7000", "host:99999999999"}) {
    EXPECT_FALSE(NodeAddress::parse(text).has_value()) << text;
  }
}

TEST(Identities, OrderIsByValue) {
  std::set<MemberId> members = {
      {{"b", 1}, Incarnation{1}}, {{"a", 2}, Incarnation{9}}, {{"a", 2}, Incarnation{3}}};
  std::vector<std::string> order;
  for (const auto& m : members) order.push_back(m.to_string());
  EXPECT_EQ(order, (std::vector<std::string>{"a:2#3", "a:2#9", "b:1#1"}));
  EXPECT_EQ((ActorRef{{"h", 5}, "counter"}).to_string(), "h:5/counter");
  EXPECT_LT((Incarnation{1}), (Incarnation{2}));
}

}  // namespace
}  // namespace weft
