// Goal: ReachabilityTable keeps one versioned row per observer, bumps the
// version on every real change, merges rows by (version, content), and never
// lets older gossip resurrect an entry its observer cleared.
#include "kernel/membership/reachability.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace weft {
namespace {

MemberId id(const std::string& host, std::uint64_t incarnation = 1) {
  return MemberId{NodeAddress{host, 7000}, Incarnation{incarnation}};
}

ReachabilityRow row(const MemberId& observer, std::uint64_t version, std::vector<MemberId> unreachable) {
  return ReachabilityRow{observer, version, std::move(unreachable)};
}

// By value, so a row that is missing fails the comparison instead of
// crashing the test binary on a null pointer.
std::optional<ReachabilityRow> row_of(const ReachabilityTable& t, const MemberId& observer) {
  const ReachabilityRow* r = t.row(observer);
  return r == nullptr ? std::nullopt : std::optional<ReachabilityRow>(*r);
}

std::optional<std::uint64_t> version_of(const ReachabilityTable& t, const MemberId& observer) {
  const ReachabilityRow* r = t.row(observer);
  return r == nullptr ? std::nullopt : std::optional<std::uint64_t>(r->version);
}

TEST(Reachability, EmptyTableFindsEveryoneReachable) {
  const ReachabilityTable t;
  EXPECT_TRUE(t.rows().empty());
  EXPECT_EQ(t.row(id("a")), nullptr);
  EXPECT_FALSE(t.is_unreachable(id("b")));
  EXPECT_TRUE(t.observers_of(id("b")).empty());
}

TEST(Reachability, MarkUnreachableCreatesTheRowAtVersionOne) {
  ReachabilityTable t;
  EXPECT_TRUE(t.mark_unreachable(id("a"), id("b")));
  ASSERT_NE(t.row(id("a")), nullptr);
  EXPECT_EQ(*t.row(id("a")), row(id("a"), 1, {id("b")}));
  EXPECT_TRUE(t.is_unreachable(id("b")));
  EXPECT_FALSE(t.is_unreachable(id("a")));
}

TEST(Reachability, MarkUnreachableTwiceChangesNothing) {
  ReachabilityTable t;
  ASSERT_TRUE(t.mark_unreachable(id("a"), id("b")));
  EXPECT_FALSE(t.mark_unreachable(id("a"), id("b")));
  EXPECT_EQ(version_of(t, id("a")), 1U);
}

TEST(Reachability, EveryChangeBumpsTheVersionAndKeepsSubjectsSorted) {
  ReachabilityTable t;
  EXPECT_TRUE(t.mark_unreachable(id("a"), id("d")));
  EXPECT_TRUE(t.mark_unreachable(id("a"), id("b")));
  EXPECT_TRUE(t.mark_unreachable(id("a"), id("c")));
  EXPECT_EQ(row_of(t, id("a")), row(id("a"), 3, {id("b"), id("c"), id("d")}));
  EXPECT_TRUE(t.mark_reachable(id("a"), id("c")));
  EXPECT_EQ(row_of(t, id("a")), row(id("a"), 4, {id("b"), id("d")}));
}

TEST(Reachability, MarkReachableOfAnUnknownSubjectOrObserverChangesNothing) {
  ReachabilityTable t;
  EXPECT_FALSE(t.mark_reachable(id("a"), id("b")));  // no row at all
  EXPECT_EQ(t.row(id("a")), nullptr);                // and none created
  ASSERT_TRUE(t.mark_unreachable(id("a"), id("b")));
  EXPECT_FALSE(t.mark_reachable(id("a"), id("c")));  // row, but not that subject
  EXPECT_EQ(version_of(t, id("a")), 1U);
}

TEST(Reachability, ClearedRowStaysWithAnEmptySetAndAHigherVersion) {
  ReachabilityTable t;
  t.mark_unreachable(id("a"), id("b"));
  EXPECT_TRUE(t.mark_reachable(id("a"), id("b")));
  ASSERT_NE(t.row(id("a")), nullptr);
  EXPECT_EQ(*t.row(id("a")), row(id("a"), 2, {}));
  EXPECT_FALSE(t.is_unreachable(id("b")));
}

TEST(Reachability, ClearedEntryIsNotResurrectedByOlderGossip) {
  ReachabilityTable observer;
  observer.mark_unreachable(id("a"), id("b"));
  const ReachabilityTable old_gossip = observer;  // carries (a, v1, {b})
  observer.mark_reachable(id("a"), id("b"));      // (a, v2, {})
  EXPECT_FALSE(observer.merge(old_gossip));
  ASSERT_NE(old_gossip.row(id("a")), nullptr);
  EXPECT_FALSE(observer.merge(*old_gossip.row(id("a"))));
  EXPECT_FALSE(observer.is_unreachable(id("b")));
  EXPECT_EQ(version_of(observer, id("a")), 2U);

  // A third node that saw both, in either order, ends clear too.
  ReachabilityTable late_first;
  late_first.merge(old_gossip);
  late_first.merge(observer);
  ReachabilityTable fresh_first;
  fresh_first.merge(observer);
  fresh_first.merge(old_gossip);
  EXPECT_EQ(late_first, fresh_first);
  EXPECT_FALSE(late_first.is_unreachable(id("b")));
}

TEST(Reachability, HigherVersionWinsEitherDirection) {
  ReachabilityTable t;
  EXPECT_TRUE(t.merge(row(id("a"), 3, {id("b")})));
  EXPECT_TRUE(t.merge(row(id("a"), 5, {id("c")})));
  EXPECT_EQ(row_of(t, id("a")), row(id("a"), 5, {id("c")}));
  EXPECT_FALSE(t.merge(row(id("a"), 4, {id("b"), id("d")})));
  EXPECT_EQ(row_of(t, id("a")), row(id("a"), 5, {id("c")}));
}

TEST(Reachability, EqualVersionTieBreakIsByContentAndOrderFree) {
  // Forged or buggy: two different rows with one version. Either merge order
  // keeps the same one (the larger content).
  const ReachabilityRow small = row(id("a"), 2, {id("b")});
  const ReachabilityRow large = row(id("a"), 2, {id("c")});
  ReachabilityTable x;
  x.merge(small);
  EXPECT_TRUE(x.merge(large));
  ReachabilityTable y;
  y.merge(large);
  EXPECT_FALSE(y.merge(small));
  EXPECT_EQ(x, y);
  EXPECT_EQ(row_of(x, id("a")), large);
}

TEST(Reachability, MergeTableUnionsObserversAndReportsChange) {
  ReachabilityTable x;
  x.mark_unreachable(id("a"), id("c"));
  ReachabilityTable y;
  y.mark_unreachable(id("b"), id("c"));
  y.mark_unreachable(id("b"), id("d"));
  EXPECT_TRUE(x.merge(y));
  EXPECT_EQ(x.rows().size(), 2U);
  EXPECT_EQ(x.observers_of(id("c")), (std::vector<MemberId>{id("a"), id("b")}));
  EXPECT_EQ(x.observers_of(id("d")), (std::vector<MemberId>{id("b")}));
  EXPECT_FALSE(x.merge(y));
  EXPECT_FALSE(x.merge(x));
  EXPECT_FALSE(x.merge(ReachabilityTable{}));
}

TEST(Reachability, IsUnreachableCountsOnlyAcceptedObservers) {
  ReachabilityTable t;
  t.mark_unreachable(id("a"), id("c"));
  t.mark_unreachable(id("b"), id("d"));
  const auto only_b = [](const MemberId& observer) { return observer == id("b"); };
  EXPECT_FALSE(t.is_unreachable(id("c"), only_b));
  EXPECT_TRUE(t.is_unreachable(id("d"), only_b));
  EXPECT_TRUE(t.is_unreachable(id("c")));
}

TEST(Reachability, SubjectsAreMemberIdsSoANewIncarnationIsJudgedAfresh) {
  ReachabilityTable t;
  t.mark_unreachable(id("a"), id("b", 1));
  EXPECT_TRUE(t.is_unreachable(id("b", 1)));
  EXPECT_FALSE(t.is_unreachable(id("b", 2)));
  // And a restarted observer writes a fresh row.
  EXPECT_TRUE(t.mark_unreachable(id("a", 2), id("c")));
  EXPECT_EQ(version_of(t, id("a", 2)), 1U);
  EXPECT_EQ(t.rows().size(), 2U);
}

TEST(Reachability, PruneDropsRowsAndEntriesOfGoneMembers) {
  ReachabilityTable t;
  t.mark_unreachable(id("a"), id("b"));
  t.mark_unreachable(id("a"), id("c"));
  t.mark_unreachable(id("b"), id("c"));
  t.mark_unreachable(id("d"), id("a"));
  const auto gone = [](const MemberId& m) { return m == id("b"); };
  // As seen by d: row b goes (1); a's entry about b is a's to drop, not d's.
  EXPECT_EQ(t.prune(gone, id("d")), 1U);
  EXPECT_EQ(t.row(id("b")), nullptr);
  ASSERT_NE(t.row(id("a")), nullptr);
  EXPECT_EQ(t.row(id("a"))->unreachable, (std::vector<MemberId>{id("b"), id("c")}));
  // As seen by a, the owner: its entry about b goes, as a versioned change.
  const std::uint64_t version = t.row(id("a"))->version;
  EXPECT_EQ(t.prune(gone, id("a")), 1U);
  EXPECT_EQ(row_of(t, id("a")), row(id("a"), version + 1, {id("c")}));
  EXPECT_EQ(t.observers_of(id("c")), (std::vector<MemberId>{id("a")}));
  EXPECT_EQ(t.prune(gone, id("a")), 0U);
}

TEST(Reachability, DigestEqualityFollowsTableEquality) {
  ReachabilityTable x;
  x.mark_unreachable(id("a"), id("b"));
  x.mark_unreachable(id("c"), id("b"));
  ASSERT_NE(x.row(id("a")), nullptr);
  ASSERT_NE(x.row(id("c")), nullptr);
  ReachabilityTable y;
  y.merge(*x.row(id("c")));
  y.merge(*x.row(id("a")));
  EXPECT_EQ(x, y);
  EXPECT_EQ(x.digest(), y.digest());

  const std::vector<ReachabilityTable> variants = [&] {
    std::vector<ReachabilityTable> v(5, x);
    v[0].mark_unreachable(id("a"), id("d"));                // one more subject
    v[1].merge(row(id("a"), 7, {id("b")}));                 // version only
    v[2].mark_reachable(id("a"), id("b"));                  // cleared
    v[3].merge(row(id("e"), 0, {}));                        // an empty row
    v[4] = ReachabilityTable{};
    return v;
  }();
  for (std::size_t i = 0; i < variants.size(); ++i) {
    EXPECT_NE(variants[i], x) << i;
    EXPECT_NE(variants[i].digest(), x.digest()) << i;
  }
}

// Regression: a prune must not be undone by gossip from a node that has not
// pruned yet. Only the row's owner prunes its entries, bumping the version,
// so the unpruned copy is older and loses.
TEST(Reachability, PrunedEntryIsNotResurrectedByUnprunedGossip) {
  ReachabilityTable pruned;
  pruned.mark_unreachable(id("a"), id("b"));
  pruned.mark_unreachable(id("a"), id("c"));
  const ReachabilityTable unpruned = pruned;  // another node, before the prune: (a, v2, {b, c})
  pruned.prune([](const MemberId& m) { return m == id("c"); }, id("a"));  // a's own: (a, v3, {b})
  ASSERT_FALSE(pruned.is_unreachable(id("c")));
  EXPECT_FALSE(pruned.merge(unpruned));
  EXPECT_FALSE(pruned.is_unreachable(id("c")));
  ReachabilityTable late = unpruned;
  EXPECT_TRUE(late.merge(pruned));  // and the prune spreads
  EXPECT_EQ(late, pruned);
}

}  // namespace
}  // namespace weft
