// Goal: a region's table of active entities (shard/entity_table.hpp) finds
// by key through its index and walks in key order, both kept in step across
// emplace and erase, and gives its index's buckets back as it empties (so
// passivated keys cost nothing).
#include "shard/entity_table.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace weft::shard {
namespace {

std::vector<std::string> walk(const EntityTable<int>& table) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : table) keys.push_back(key);
  return keys;
}

TEST(EntityTable, FindsWhatItHoldsAndWalksInKeyOrder) {
  EntityTable<int> table;
  for (const char* key : {"order-3", "order-1", "order-2"}) EXPECT_TRUE(table.emplace(key, 7).second);
  const auto again = table.emplace("order-2", 9);
  EXPECT_FALSE(again.second);
  EXPECT_EQ(again.first->second, 7);  // the first value stays
  EXPECT_EQ(walk(table), (std::vector<std::string>{"order-1", "order-2", "order-3"}));
  ASSERT_NE(table.find("order-1"), table.end());
  EXPECT_EQ(table.find("order-1")->first, "order-1");
  EXPECT_EQ(table.find("order-4"), table.end());
  EXPECT_EQ(table.find(""), table.end());
}

TEST(EntityTable, EraseKeepsIndexAndOrderInStep) {
  EntityTable<int> table;
  for (int i = 0; i < 10; ++i) table.emplace("k" + std::to_string(i), i);
  // Erase every other key while walking, as passivation does.
  int i = 0;
  for (auto it = table.begin(); it != table.end(); ++i) it = i % 2 == 0 ? table.erase(it) : std::next(it);
  EXPECT_EQ(walk(table), (std::vector<std::string>{"k1", "k3", "k5", "k7", "k9"}));
  for (int k = 0; k < 10; ++k) {
    const std::string key = "k" + std::to_string(k);
    EXPECT_EQ(table.find(key) != table.end(), k % 2 == 1) << key;
  }
  // A key erased and added again is found at its new entry.
  table.emplace("k0", 42);
  ASSERT_NE(table.find("k0"), table.end());
  EXPECT_EQ(table.find("k0")->second, 42);
}

TEST(EntityTable, EmptiedTableGivesBackItsBuckets) {
  EntityTable<int> table;
  for (int i = 0; i < 10'000; ++i) table.emplace("key-" + std::to_string(i), i);
  const std::size_t full = table.index_buckets();
  EXPECT_GE(full, 10'000u);
  while (!table.empty()) table.erase(table.begin());
  EXPECT_LE(table.index_buckets(), 64u);
  table.emplace("again", 1);
  EXPECT_NE(table.find("again"), table.end());
}

}  // namespace
}  // namespace weft::shard
