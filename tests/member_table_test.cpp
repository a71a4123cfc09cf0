// Goal: MemberTable keeps one record per address, sorted, and merges by the
// documented order (newer incarnation, then status further along), reporting
// exactly when it changed; prune and digest behave as stated.
#include "kernel/membership/member_table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "kernel/prng.hpp"

namespace weft {
namespace {

NodeAddress addr(const std::string& host, std::uint16_t port = 7000) { return NodeAddress{host, port}; }

Member member(const std::string& host, std::uint64_t incarnation, MemberStatus status,
              std::uint16_t port = 7000) {
  return Member{MemberId{addr(host, port), Incarnation{incarnation}}, status};
}

MemberTable table_of(const std::vector<Member>& records) {
  MemberTable t;
  for (const Member& m : records) t.merge(m);
  return t;
}

std::vector<Member> records_of(const MemberTable& t) { return {t.members().begin(), t.members().end()}; }

// By value, so a record that is missing fails the comparison instead of
// crashing the test binary on a null pointer.
std::optional<Member> record(const MemberTable& t, const NodeAddress& address) {
  const Member* m = t.find(address);
  return m == nullptr ? std::nullopt : std::optional<Member>(*m);
}

std::optional<MemberStatus> status_of(const MemberTable& t, const NodeAddress& address) {
  const Member* m = t.find(address);
  return m == nullptr ? std::nullopt : std::optional<MemberStatus>(m->status);
}

TEST(MemberStatus, OrderIsTheDocumentedLifecycle) {
  for (std::size_t i = 1; i < kAllMemberStatuses.size(); ++i) {
    EXPECT_LT(kAllMemberStatuses[i - 1], kAllMemberStatuses[i]);
  }
  EXPECT_EQ(to_string(MemberStatus::joining), "joining");
  EXPECT_EQ(to_string(MemberStatus::removed), "removed");
  MemberStatus parsed = MemberStatus::joining;
  EXPECT_TRUE(parse_member_status(4, parsed));
  EXPECT_EQ(parsed, MemberStatus::down);
  EXPECT_FALSE(parse_member_status(6, parsed));
  EXPECT_EQ(parsed, MemberStatus::down);  // untouched on failure
  EXPECT_TRUE(is_live_status(MemberStatus::exiting));
  EXPECT_FALSE(is_live_status(MemberStatus::down));
  EXPECT_FALSE(is_live_status(MemberStatus::removed));
}

TEST(Member, SupersedesOrEqualsIsIncarnationThenStatus) {
  const Member a_up_1 = member("a", 1, MemberStatus::up);
  const Member a_down_1 = member("a", 1, MemberStatus::down);
  const Member a_joining_2 = member("a", 2, MemberStatus::joining);
  EXPECT_TRUE(supersedes_or_equals(a_up_1, a_up_1));
  EXPECT_TRUE(supersedes_or_equals(a_down_1, a_up_1));
  EXPECT_FALSE(supersedes_or_equals(a_up_1, a_down_1));
  // A new life beats any status of an older one, even removed.
  EXPECT_TRUE(supersedes_or_equals(a_joining_2, member("a", 1, MemberStatus::removed)));
  EXPECT_FALSE(supersedes_or_equals(member("a", 1, MemberStatus::removed), a_joining_2));
}

TEST(MemberTable, EmptyTable) {
  const MemberTable t;
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(t.size(), 0U);
  EXPECT_EQ(t.find(addr("a")), nullptr);
}

TEST(MemberTable, MergeInsertsInAddressOrder) {
  MemberTable t;
  EXPECT_TRUE(t.merge(member("c", 1, MemberStatus::up)));
  EXPECT_TRUE(t.merge(member("a", 1, MemberStatus::up)));
  EXPECT_TRUE(t.merge(member("b", 1, MemberStatus::up, 7001)));
  EXPECT_TRUE(t.merge(member("b", 1, MemberStatus::up, 7000)));
  ASSERT_EQ(t.size(), 4U);
  EXPECT_EQ(t.members()[0].address(), addr("a"));
  EXPECT_EQ(t.members()[1].address(), addr("b", 7000));
  EXPECT_EQ(t.members()[2].address(), addr("b", 7001));  // same host, port breaks the tie
  EXPECT_EQ(t.members()[3].address(), addr("c"));
}

TEST(MemberTable, FindReturnsTheRecordOrNull) {
  const MemberTable t = table_of({member("a", 1, MemberStatus::up), member("c", 3, MemberStatus::down)});
  ASSERT_NE(t.find(addr("c")), nullptr);
  EXPECT_EQ(*t.find(addr("c")), member("c", 3, MemberStatus::down));
  EXPECT_EQ(t.find(addr("b")), nullptr);               // between two records
  EXPECT_EQ(t.find(addr("d")), nullptr);               // past the end
  EXPECT_EQ(t.find(addr("a", 7001)), nullptr);         // right host, wrong port
  EXPECT_EQ(t.find(addr("0")), nullptr);               // before the start
}

TEST(MemberTable, LaterStatusOfTheSameIncarnationWins) {
  MemberTable t = table_of({member("a", 1, MemberStatus::up)});
  EXPECT_TRUE(t.merge(member("a", 1, MemberStatus::leaving)));
  EXPECT_EQ(status_of(t, addr("a")), MemberStatus::leaving);
  EXPECT_FALSE(t.merge(member("a", 1, MemberStatus::up)));  // older news
  EXPECT_EQ(status_of(t, addr("a")), MemberStatus::leaving);
  EXPECT_FALSE(t.merge(member("a", 1, MemberStatus::leaving)));  // same news
  EXPECT_EQ(t.size(), 1U);
}

TEST(MemberTable, NewerIncarnationWinsWhateverTheStatus) {
  MemberTable t = table_of({member("a", 1, MemberStatus::down)});
  EXPECT_TRUE(t.merge(member("a", 2, MemberStatus::joining)));
  EXPECT_EQ(record(t, addr("a")), member("a", 2, MemberStatus::joining));
  // The old life's later statuses are stale now.
  EXPECT_FALSE(t.merge(member("a", 1, MemberStatus::removed)));
  EXPECT_EQ(record(t, addr("a")), member("a", 2, MemberStatus::joining));
}

TEST(MemberTable, MergeTableTakesTheMaxPerAddress) {
  MemberTable a = table_of({member("a", 1, MemberStatus::up), member("b", 2, MemberStatus::up),
                            member("d", 1, MemberStatus::down)});
  const MemberTable b = table_of({member("a", 1, MemberStatus::leaving),
                                  member("b", 1, MemberStatus::removed),
                                  member("c", 1, MemberStatus::joining)});
  EXPECT_TRUE(a.merge(b));
  EXPECT_EQ(records_of(a), (std::vector<Member>{member("a", 1, MemberStatus::leaving),
                                                member("b", 2, MemberStatus::up),
                                                member("c", 1, MemberStatus::joining),
                                                member("d", 1, MemberStatus::down)}));
}

TEST(MemberTable, MergeTableIsCommutativeOnAnExample) {
  const MemberTable x = table_of({member("a", 1, MemberStatus::up), member("b", 2, MemberStatus::up)});
  const MemberTable y = table_of({member("a", 2, MemberStatus::joining), member("b", 2, MemberStatus::down),
                                  member("e", 1, MemberStatus::up)});
  MemberTable xy = x;
  xy.merge(y);
  MemberTable yx = y;
  yx.merge(x);
  EXPECT_EQ(xy, yx);
  EXPECT_EQ(xy.digest(), yx.digest());
}

TEST(MemberTable, MergeTableReportsNoChangeForOldOrEqualNews) {
  MemberTable a = table_of({member("a", 2, MemberStatus::up), member("b", 1, MemberStatus::down),
                            member("c", 1, MemberStatus::up)});
  const MemberTable before = a;
  EXPECT_FALSE(a.merge(MemberTable{}));
  EXPECT_FALSE(a.merge(a));  // self-merge
  EXPECT_FALSE(a.merge(before));
  // A subset, with older records only.
  EXPECT_FALSE(a.merge(
      table_of({member("a", 1, MemberStatus::removed), member("c", 1, MemberStatus::joining)})));
  EXPECT_EQ(a, before);
}

TEST(MemberTable, MergeTableReportsChangeForOneNewRecordAnywhere) {
  const MemberTable base = table_of({member("b", 1, MemberStatus::up), member("d", 1, MemberStatus::up)});
  for (const Member& news : {member("a", 1, MemberStatus::up), member("c", 1, MemberStatus::up),
                             member("e", 1, MemberStatus::up), member("b", 1, MemberStatus::leaving),
                             member("d", 2, MemberStatus::joining)}) {
    MemberTable t = base;
    EXPECT_TRUE(t.merge(table_of({news}))) << to_string(news.status) << " " << news.id.to_string();
    EXPECT_EQ(record(t, news.address()), news);
  }
}

TEST(MemberTable, MergeIntoEmptyCopiesTheTable) {
  const MemberTable src = table_of({member("a", 1, MemberStatus::up), member("b", 1, MemberStatus::up)});
  MemberTable t;
  EXPECT_TRUE(t.merge(src));
  EXPECT_EQ(t, src);
}

TEST(MemberTable, SmallerIncomingTableWithNewsIsMerged) {
  // Exercises the fast-path scan when the incoming table is smaller.
  MemberTable t = table_of({member("a", 1, MemberStatus::up), member("b", 1, MemberStatus::up),
                            member("c", 1, MemberStatus::up)});
  EXPECT_TRUE(t.merge(table_of({member("c", 1, MemberStatus::down)})));
  EXPECT_EQ(status_of(t, addr("c")), MemberStatus::down);
  EXPECT_EQ(t.size(), 3U);
}

TEST(MemberTable, PruneDropsWhatThePredicateSelects) {
  MemberTable t = table_of({member("a", 1, MemberStatus::removed), member("b", 1, MemberStatus::up),
                            member("c", 1, MemberStatus::removed), member("d", 1, MemberStatus::down)});
  EXPECT_EQ(t.prune([](const Member& m) { return m.status == MemberStatus::removed; }), 2U);
  EXPECT_EQ(records_of(t), (std::vector<Member>{member("b", 1, MemberStatus::up),
                                                member("d", 1, MemberStatus::down)}));
  EXPECT_EQ(t.prune([](const Member&) { return false; }), 0U);
  EXPECT_EQ(t.size(), 2U);
  EXPECT_NE(t.find(addr("d")), nullptr);
  EXPECT_EQ(t.find(addr("a")), nullptr);
}

TEST(MemberTable, PrunedTombstoneComesBackWithLateGossip) {
  // The documented trade: prune is outside the merge laws, so a pruned
  // record returns if gossip still carries it (hence tombstone_ttl).
  MemberTable t = table_of({member("a", 1, MemberStatus::removed)});
  t.prune([](const Member&) { return true; });
  EXPECT_TRUE(t.merge(member("a", 1, MemberStatus::up)));
  EXPECT_EQ(status_of(t, addr("a")), MemberStatus::up);
}

TEST(MemberTable, DigestIsEqualForEqualTablesBuiltInAnyOrder) {
  const std::vector<Member> records = {member("a", 1, MemberStatus::up), member("b", 2, MemberStatus::down),
                                       member("c", 1, MemberStatus::joining)};
  const MemberTable forward = table_of(records);
  const MemberTable backward = table_of({records[2], records[1], records[0]});
  EXPECT_EQ(forward, backward);
  EXPECT_EQ(forward.digest(), backward.digest());
  EXPECT_EQ(MemberTable{}.digest(), MemberTable{}.digest());
}

TEST(MemberTable, DigestDiffersForAnyOneFieldChanged) {
  const MemberTable base = table_of({member("a", 1, MemberStatus::up), member("b", 2, MemberStatus::up)});
  const std::vector<MemberTable> variants = {
      table_of({member("a", 1, MemberStatus::leaving), member("b", 2, MemberStatus::up)}),  // status
      table_of({member("a", 2, MemberStatus::up), member("b", 2, MemberStatus::up)}),       // incarnation
      table_of({member("a", 1, MemberStatus::up, 7001), member("b", 2, MemberStatus::up)}),  // port
      table_of({member("A", 1, MemberStatus::up), member("b", 2, MemberStatus::up)}),       // host
      table_of({member("a", 1, MemberStatus::up)}),                                         // one fewer
      table_of({member("a", 1, MemberStatus::up), member("b", 2, MemberStatus::up),
                member("c", 1, MemberStatus::up)}),                                         // one more
      MemberTable{},
  };
  for (std::size_t i = 0; i < variants.size(); ++i) {
    EXPECT_NE(variants[i], base) << i;
    EXPECT_NE(variants[i].digest(), base.digest()) << i;
  }
}

TEST(MemberTable, DigestSeparatesHostBytesFromPort) {
  // "ab":7000 vs "a" with the byte 'b' moved into the port must not collide
  // by concatenation.
  EXPECT_NE(table_of({member("ab", 1, MemberStatus::up, 7000)}).digest(),
            table_of({member("a", 1, MemberStatus::up, 7000)}).digest());
  EXPECT_NE(table_of({member("a", 1, MemberStatus::up), member("b", 1, MemberStatus::up)}).digest(),
            table_of({member("ab", 1, MemberStatus::up)}).digest());
}

}  // namespace
}  // namespace weft

namespace weft {
namespace {

// find() remembers where it found an address (PositionHints); records
// inserted before it move it along, and a later life replaces it, so every
// lookup after a change must still find exactly the record a search would.
// The digest is kept up to date by each merge (a sum of per-record prints)
// rather than summed again: after every step of a random history of merges
// of records and of tables, and prunes, it must equal the digest of a table
// built from the same records from scratch.
TEST(MemberTable, DigestFollowsEveryChangeAsASumFromScratchWould) {
  Prng prng(7);
  const std::array statuses = kAllMemberStatuses;
  auto random_member = [&] {
    return member("10.0.0." + std::to_string(prng.below(40)), 1 + prng.below(3),
                  statuses[prng.below(statuses.size())]);
  };
  for (int history = 0; history < 20; ++history) {
    MemberTable table;
    for (int step = 0; step < 80; ++step) {
      switch (prng.below(4)) {
        case 0:
        case 1: table.merge(random_member()); break;
        case 2: {
          MemberTable other;
          for (int i = 0, n = static_cast<int>(prng.below(12)); i < n; ++i) other.merge(random_member());
          table.merge(other);
          break;
        }
        default:
          table.prune([&](const Member& m) { return m.status == MemberStatus::removed && prng.below(2) == 0; });
          break;
      }
      ASSERT_EQ(table.digest(), MemberTable::from_sorted(records_of(table)).digest())
          << "history " << history << " step " << step;
    }
  }
}

TEST(MemberTable, FindAfterTheTableMovesStillFindsTheRecord) {
  MemberTable t;
  std::vector<Member> model;  // sorted by address, as the table
  const auto expect_all_found = [&] {
    for (const Member& m : model) EXPECT_EQ(record(t, m.address()), m) << m.id.to_string();
    EXPECT_EQ(record(t, addr("absent")), std::nullopt);
  };
  for (int i = 40; i >= 1; --i) {  // each insert lands in front, moving every record found so far
    const Member m = member("10.0.0." + std::to_string(i), 1, MemberStatus::up);
    t.merge(m);
    model.insert(model.begin(), m);
    std::sort(model.begin(), model.end(), [](const Member& a, const Member& b) { return a.address() < b.address(); });
    expect_all_found();
  }
  for (Member& m : model) {  // new lives, one at a time
    m = member(m.address().host, 2, MemberStatus::joining);
    t.merge(m);
    expect_all_found();
  }
  t.prune([](const Member& m) { return m.address().host.back() == '7'; });
  std::erase_if(model, [](const Member& m) { return m.address().host.back() == '7'; });
  expect_all_found();
}

}  // namespace
}  // namespace weft
