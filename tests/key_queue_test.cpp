// Goal: a KeyQueue hands its map entries out least key first whatever the
// order they were pushed in, each once per push; drop_if removes exactly the
// entries it selects and keeps the others' order; and a model run of random
// pushes, pops and drops agrees with a std::set step by step.
#include "kernel/links/key_queue.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "kernel/prng.hpp"

namespace weft {
namespace {

struct Record {
  bool queued = false;
};
using Records = std::map<int, Record>;
using It = Records::iterator;

Records records_of(int count) {
  Records records;
  for (int key = 0; key < count; ++key) records.emplace(key, Record{});
  return records;
}

// Every key the queue hands out, in order, until it is empty.
std::vector<int> drain(KeyQueue<It>& queue) {
  std::vector<int> keys;
  It it;
  while (queue.pop(it)) {
    it->second.queued = false;
    keys.push_back(it->first);
  }
  return keys;
}

TEST(KeyQueue, EmptyQueueHandsOutNothing) {
  KeyQueue<It> queue;
  It it;
  EXPECT_TRUE(queue.empty());
  EXPECT_FALSE(queue.pop(it));
  EXPECT_FALSE(queue.pop(it));  // and stays usable
}

TEST(KeyQueue, HandsOutLeastKeyFirstWhateverThePushOrder) {
  Records records = records_of(10);
  KeyQueue<It> queue;
  for (const int key : {7, 2, 9, 0, 5}) queue.push(records.find(key));
  EXPECT_EQ(queue.size(), 5U);
  EXPECT_EQ(drain(queue), (std::vector<int>{0, 2, 5, 7, 9}));
  EXPECT_TRUE(queue.empty());
}

TEST(KeyQueue, AKeyPushedMidwayComesOutInItsPlace) {
  Records records = records_of(10);
  KeyQueue<It> queue;
  for (const int key : {1, 4, 8}) queue.push(records.find(key));
  It it;
  ASSERT_TRUE(queue.pop(it));
  EXPECT_EQ(it->first, 1);
  queue.push(records.find(3));  // less than what is left: handed out next
  queue.push(records.find(1));  // handed out already, so it may come again
  EXPECT_EQ(drain(queue), (std::vector<int>{1, 3, 4, 8}));
}

TEST(KeyQueue, DropIfRemovesTheSelectedAndKeepsTheOrder) {
  Records records = records_of(10);
  KeyQueue<It> queue;
  for (const int key : {6, 1, 3, 8, 4}) queue.push(records.find(key));
  It it;
  ASSERT_TRUE(queue.pop(it));
  EXPECT_EQ(it->first, 1);
  queue.drop_if([](const It& queued) { return queued->first % 2 == 0; });
  EXPECT_EQ(queue.size(), 1U);
  EXPECT_EQ(drain(queue), (std::vector<int>{3}));
}

TEST(KeyQueue, AKeyQueuedTwiceIsCaughtWhenHandedOut) {
  EXPECT_DEATH(
      {
        Records records = records_of(3);
        KeyQueue<It> queue;
        queue.push(records.find(2));
        queue.push(records.find(1));
        queue.push(records.find(2));  // the caller's flag should have stopped this
        It it;
        while (queue.pop(it)) {
        }
      },
      "assertion failed");
}

// Random pushes (of keys not queued), pops and drops, checked against a
// std::set of the queued keys after every step.
TEST(KeyQueue, AgreesWithASetModel) {
  constexpr int kKeys = 40;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Records records = records_of(kKeys);
    KeyQueue<It> queue;
    std::set<int> model;
    Prng prng(seed);
    for (int step = 0; step < 2000; ++step) {
      const std::uint64_t action = prng.below(10);
      if (action < 5) {
        const int key = static_cast<int>(prng.below(kKeys));
        Record& record = records.at(key);
        if (record.queued) continue;
        record.queued = true;
        queue.push(records.find(key));
        model.insert(key);
      } else if (action < 9) {
        It it;
        const bool popped = queue.pop(it);
        ASSERT_EQ(popped, !model.empty()) << "seed " << seed << " step " << step;
        if (!popped) continue;
        ASSERT_EQ(it->first, *model.begin()) << "seed " << seed << " step " << step;
        it->second.queued = false;
        model.erase(model.begin());
      } else {
        const int modulus = static_cast<int>(prng.below(3)) + 2;
        queue.drop_if([&](const It& queued) {
          if (queued->first % modulus != 0) return false;
          queued->second.queued = false;
          model.erase(queued->first);
          return true;
        });
      }
      ASSERT_EQ(queue.size(), model.size()) << "seed " << seed << " step " << step;
    }
  }
}

}  // namespace
}  // namespace weft
