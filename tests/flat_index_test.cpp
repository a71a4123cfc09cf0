// Goal: a FlatIndex finds exactly the keys inserted and not yet erased, with
// their iterators, whatever the order of inserts and erases: through growth,
// runs that wrap the end of the slot array, and erases from the middle of a
// run (the backward shift). Keys are made to collide (every tag's home slot
// the same, or a few homes for many keys) so the probing paths are taken,
// and a model run of random operations agrees with a std::map step by step.
#include "kernel/links/flat_index.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <vector>

#include "kernel/prng.hpp"

namespace weft {
namespace {

using Records = std::map<std::uint64_t, int>;
using It = Records::iterator;

// Keys are their own tags (never 0); `spread` picks how they collide.
template <std::uint64_t Homes>
struct Colliding {
  static std::uint64_t tag(std::uint64_t key) { return key; }
  static std::uint64_t spread(std::uint64_t tag) { return Homes == 0 ? mix64(tag) : tag % Homes; }
  static bool matches(const It& it, std::uint64_t key) { return it->first == key; }
};

template <class Traits>
void expect_agrees(const FlatIndex<std::uint64_t, It, Traits>& index, Records& model, std::uint64_t up_to) {
  ASSERT_EQ(index.size(), model.size());
  for (std::uint64_t key = 1; key <= up_to; ++key) {
    const It* found = index.find(key);
    const auto in_model = model.find(key);
    if (in_model == model.end()) {
      EXPECT_EQ(found, nullptr) << "key " << key;
    } else {
      ASSERT_NE(found, nullptr) << "key " << key;
      EXPECT_EQ(*found, in_model) << "key " << key;
    }
  }
}

TEST(FlatIndex, EmptyFindsNothing) {
  FlatIndex<std::uint64_t, It, Colliding<0>> index;
  EXPECT_EQ(index.find(1), nullptr);
  EXPECT_FALSE(index.erase(1));
  EXPECT_EQ(index.size(), 0U);
}

TEST(FlatIndex, InsertsOnceAndErasesOnce) {
  Records records{{7, 0}};
  FlatIndex<std::uint64_t, It, Colliding<0>> index;
  EXPECT_TRUE(index.insert(7, records.begin()));
  EXPECT_FALSE(index.insert(7, records.begin()));
  EXPECT_EQ(index.size(), 1U);
  ASSERT_NE(index.find(7), nullptr);
  EXPECT_EQ(*index.find(7), records.begin());
  EXPECT_TRUE(index.erase(7));
  EXPECT_FALSE(index.erase(7));
  EXPECT_EQ(index.find(7), nullptr);
}

// Every key homes to slot 0: one run holds them all, and erasing from its
// front, middle and back must keep the rest reachable.
TEST(FlatIndex, ErasingFromOneLongRunKeepsTheRestFound) {
  Records model;
  FlatIndex<std::uint64_t, It, Colliding<1>> index;
  for (std::uint64_t key = 1; key <= 40; ++key) {
    const auto it = model.emplace(key, 0).first;
    ASSERT_TRUE(index.insert(key, it));
  }
  for (const std::uint64_t key : {1U, 20U, 40U, 2U, 39U, 21U, 19U}) {
    ASSERT_TRUE(index.erase(key));
    model.erase(key);
    expect_agrees(index, model, 41);
  }
}

// A few homes near the end of the slot array make runs that wrap to its
// front; erases inside them shift entries back across the wrap.
TEST(FlatIndex, RunsThatWrapTheEndSurviveErases) {
  struct NearTheEnd {
    static std::uint64_t tag(std::uint64_t key) { return key; }
    static std::uint64_t spread(std::uint64_t tag) { return 13 + tag % 3; }  // homes 13, 14, 15 of 16 slots
    static bool matches(const It& it, std::uint64_t key) { return it->first == key; }
  };
  Records model;
  FlatIndex<std::uint64_t, It, NearTheEnd> index;
  for (std::uint64_t key = 1; key <= 7; ++key) {  // stays under half of 16 slots: no growth
    ASSERT_TRUE(index.insert(key, model.emplace(key, 0).first));
  }
  for (const std::uint64_t key : {3U, 1U, 6U, 7U, 2U, 4U, 5U}) {
    ASSERT_TRUE(index.erase(key));
    model.erase(key);
    expect_agrees(index, model, 8);
  }
}

template <class Traits>
void run_model(std::uint64_t seed) {
  Prng prng(seed);
  Records model;
  FlatIndex<std::uint64_t, It, Traits> index;
  constexpr std::uint64_t kKeys = 300;
  for (int step = 0; step < 4000; ++step) {
    const std::uint64_t key = 1 + prng.below(kKeys);
    if (prng.below(3) != 0) {
      const auto [it, added] = model.emplace(key, step);
      ASSERT_EQ(index.insert(key, it), added) << "seed " << seed << " step " << step;
    } else {
      // The index first: it reads the record's key, so the record goes after (as LinkTable does).
      const bool erased = index.erase(key);
      ASSERT_EQ(erased, model.erase(key) == 1) << "seed " << seed << " step " << step;
    }
    if (step % 97 == 0) expect_agrees(index, model, kKeys + 1);
  }
  expect_agrees(index, model, kKeys + 1);
}

TEST(FlatIndex, AgreesWithAMapModel) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    run_model<Colliding<0>>(seed);   // well spread
    run_model<Colliding<7>>(seed);   // long runs from seven homes
  }
}

}  // namespace
}  // namespace weft
