// M1 (merge is a semilattice: commutative, associative, idempotent) and M2
// (a record never moves backwards) for the member table, M1 for the
// reachability table, and a model-based test of MemberTable against a
// std::map with max semantics. Tables are drawn from small address and
// observer pools so that records collide.
//
// Each property is written against a merge function, so the same property
// is aimed at deliberately broken merges defined here (last writer wins,
// incarnation-blind, tie-break-free rows) and shown to fail.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "catches.hpp"
#include "kernel/membership/member_table.hpp"
#include "kernel/membership/reachability.hpp"

namespace weft {

// Counterexample printing (internal linkage: these are the props' own).
static std::ostream& operator<<(std::ostream& os, const MemberId& id) { return os << id.to_string(); }

static std::ostream& operator<<(std::ostream& os, const Member& m) {
  return os << m.id << " " << to_string(m.status);
}

static std::ostream& operator<<(std::ostream& os, const MemberTable& t) {
  os << "MemberTable{";
  for (const Member& m : t.members()) os << " [" << m << "]";
  return os << " }";
}

static std::ostream& operator<<(std::ostream& os, const ReachabilityRow& r) {
  os << r.observer << " v" << r.version << " {";
  for (const MemberId& s : r.unreachable) os << " " << s;
  return os << " }";
}

static std::ostream& operator<<(std::ostream& os, const ReachabilityTable& t) {
  os << "ReachabilityTable{";
  for (const ReachabilityRow& r : t.rows()) os << " [" << r << "]";
  return os << " }";
}

namespace props {
namespace {

// --- Generators: small pools, so tables share addresses and observers.

const std::vector<NodeAddress>& address_pool() {
  static const std::vector<NodeAddress> pool = [] {
    std::vector<NodeAddress> p;
    for (const char* host : {"10.0.0.1", "10.0.0.2", "10.0.0.3", "node-a"}) {
      for (const std::uint16_t port : {std::uint16_t{7000}, std::uint16_t{7001}}) p.push_back({host, port});
    }
    return p;
  }();
  return pool;
}

rc::Gen<Member> gen_member() {
  return rc::gen::exec([] {
    Member m;
    m.id.address = *rc::gen::elementOf(address_pool());
    m.id.incarnation = Incarnation{*rc::gen::inRange<std::uint64_t>(1, 4)};
    m.status = *rc::gen::elementOf(kAllMemberStatuses);
    return m;
  });
}

MemberTable table_of(const std::vector<Member>& records) {
  MemberTable t;
  for (const Member& m : records) t.merge(m);
  return t;
}

rc::Gen<MemberTable> gen_member_table() {
  return rc::gen::map(rc::gen::container<std::vector<Member>>(gen_member()), table_of);
}

const std::vector<MemberId>& member_id_pool() {
  static const std::vector<MemberId> pool = [] {
    std::vector<MemberId> p;
    for (const char* host : {"10.0.0.1", "10.0.0.2", "10.0.0.3"}) {
      for (const std::uint64_t incarnation : {std::uint64_t{1}, std::uint64_t{2}}) {
        p.push_back({{host, 7000}, Incarnation{incarnation}});
      }
    }
    return p;
  }();
  return pool;
}

rc::Gen<ReachabilityRow> gen_row() {
  return rc::gen::exec([] {
    ReachabilityRow r;
    r.observer = *rc::gen::elementOf(member_id_pool());
    r.version = *rc::gen::inRange<std::uint64_t>(0, 4);
    const auto mask = *rc::gen::inRange<std::uint32_t>(0, 1U << member_id_pool().size());
    for (std::size_t i = 0; i < member_id_pool().size(); ++i) {
      if ((mask >> i) & 1U) r.unreachable.push_back(member_id_pool()[i]);  // pool is sorted
    }
    return r;
  });
}

rc::Gen<ReachabilityTable> gen_reachability_table() {
  return rc::gen::map(rc::gen::container<std::vector<ReachabilityRow>>(gen_row()),
                      [](const std::vector<ReachabilityRow>& rows) {
                        ReachabilityTable t;
                        for (const ReachabilityRow& r : rows) t.merge(r);
                        return t;
                      });
}

// --- Merges under test: the real one and the broken ones, as values.

template <class Table>
using TableMerge = Table (*)(const Table&, const Table&);

template <class Table>
Table real_merge(const Table& a, const Table& b) {
  Table out = a;
  out.merge(b);
  return out;
}

// Broken on purpose: "last writer wins": for a shared address, always take
// the incoming record, whatever its incarnation or status.
MemberTable last_writer_wins_merge(const MemberTable& a, const MemberTable& b) {
  MemberTable out;
  for (const Member& m : a.members()) {
    if (b.find(m.address()) == nullptr) out.merge(m);
  }
  for (const Member& m : b.members()) out.merge(m);  // fresh addresses: plain inserts
  return out;
}

// Broken on purpose: compares statuses only, as if incarnations did not
// exist: an old life's "up" beats a new life's "joining".
MemberTable incarnation_blind_merge(const MemberTable& a, const MemberTable& b) {
  MemberTable out;
  for (const Member& m : a.members()) {
    const Member* theirs = b.find(m.address());
    out.merge(theirs != nullptr && theirs->status > m.status ? *theirs : m);
  }
  for (const Member& m : b.members()) {
    if (a.find(m.address()) == nullptr) out.merge(m);
  }
  return out;
}

// Broken on purpose: higher version wins, but an equal-version row keeps
// whichever arrived first (no content tie-break).
ReachabilityTable first_row_wins_merge(const ReachabilityTable& a, const ReachabilityTable& b) {
  ReachabilityTable out;
  std::vector<ReachabilityRow> rows(a.rows().begin(), a.rows().end());
  for (const ReachabilityRow& r : b.rows()) {
    const auto mine = std::find_if(rows.begin(), rows.end(),
                                   [&](const ReachabilityRow& x) { return x.observer == r.observer; });
    if (mine == rows.end()) {
      rows.push_back(r);
    } else if (r.version > mine->version) {
      *mine = r;
    }
  }
  for (const ReachabilityRow& r : rows) out.merge(r);
  return out;
}

// --- M1: semilattice laws, for any merge over any table type.

template <class Table>
void merge_is_commutative(TableMerge<Table> merge, rc::Gen<Table> gen) {
  const Table a = *gen;
  const Table b = *gen;
  const Table ab = merge(a, b);
  const Table ba = merge(b, a);
  PROP_ASSERT("M1", ab == ba);
  PROP_ASSERT("M1", ab.digest() == ba.digest());
}

template <class Table>
void merge_is_associative(TableMerge<Table> merge, rc::Gen<Table> gen) {
  const Table a = *gen;
  const Table b = *gen;
  const Table c = *gen;
  PROP_ASSERT("M1", merge(merge(a, b), c) == merge(a, merge(b, c)));
}

template <class Table>
void merge_is_idempotent(TableMerge<Table> merge, rc::Gen<Table> gen) {
  const Table a = *gen;
  const Table b = *gen;
  PROP_ASSERT("M1", merge(a, a) == a);
  const Table ab = merge(a, b);
  PROP_ASSERT("M1", merge(ab, b) == ab);  // old news changes nothing
  PROP_ASSERT("M1", merge(ab, a) == ab);
}

RC_GTEST_PROP(M1MemberTable, MergeIsCommutative, ()) {
  merge_is_commutative<MemberTable>(real_merge<MemberTable>, gen_member_table());
}

RC_GTEST_PROP(M1MemberTable, MergeIsAssociative, ()) {
  merge_is_associative<MemberTable>(real_merge<MemberTable>, gen_member_table());
}

RC_GTEST_PROP(M1MemberTable, MergeIsIdempotent, ()) {
  merge_is_idempotent<MemberTable>(real_merge<MemberTable>, gen_member_table());
}

// merge(table) reports a change exactly when the table changed, and agrees
// with merging the incoming records one at a time.
RC_GTEST_PROP(M1MemberTable, TableMergeEqualsRecordMergesAndReportsChange, ()) {
  const MemberTable a = *gen_member_table();
  const MemberTable b = *gen_member_table();
  MemberTable whole = a;
  const bool changed = whole.merge(b);
  MemberTable one_by_one = a;
  bool any = false;
  for (const Member& m : b.members()) any = one_by_one.merge(m) || any;
  PROP_ASSERT("M1", whole == one_by_one);
  PROP_ASSERT("M1", changed == (whole != a));
  PROP_ASSERT("M1", any == changed);
}

RC_GTEST_PROP(M1Reachability, MergeIsCommutative, ()) {
  merge_is_commutative<ReachabilityTable>(real_merge<ReachabilityTable>, gen_reachability_table());
}

RC_GTEST_PROP(M1Reachability, MergeIsAssociative, ()) {
  merge_is_associative<ReachabilityTable>(real_merge<ReachabilityTable>, gen_reachability_table());
}

RC_GTEST_PROP(M1Reachability, MergeIsIdempotent, ()) {
  merge_is_idempotent<ReachabilityTable>(real_merge<ReachabilityTable>, gen_reachability_table());
}

RC_GTEST_PROP(M1Reachability, MergeReportsChangeAndKeepsTheHigherVersion, ()) {
  const ReachabilityTable a = *gen_reachability_table();
  const ReachabilityTable b = *gen_reachability_table();
  ReachabilityTable merged = a;
  const bool changed = merged.merge(b);
  PROP_ASSERT("M1", changed == (merged != a));
  for (const ReachabilityRow& r : b.rows()) {
    const ReachabilityRow* kept = merged.row(r.observer);
    PROP_ASSERT("M1", kept != nullptr);
    PROP_ASSERT("M1", kept->version >= r.version);
  }
  for (const ReachabilityRow& r : a.rows()) PROP_ASSERT("M1", merged.row(r.observer)->version >= r.version);
}

TEST(M1Catches, LastWriterWinsMergeIsNotCommutative) {
  EXPECT_TRUE(fails_as("M1", "commutativity of a last-writer-wins member merge", [] {
    merge_is_commutative<MemberTable>(last_writer_wins_merge, gen_member_table());
  }));
}

TEST(M1Catches, LastWriterWinsMergeIsNotIdempotentOnOldNews) {
  EXPECT_TRUE(fails_as("M1", "idempotence of a last-writer-wins member merge", [] {
    merge_is_idempotent<MemberTable>(last_writer_wins_merge, gen_member_table());
  }));
}

TEST(M1Catches, RowMergeWithoutContentTieBreakIsNotCommutative) {
  EXPECT_TRUE(fails_as("M1", "commutativity of a first-row-wins reachability merge", [] {
    merge_is_commutative<ReachabilityTable>(first_row_wins_merge, gen_reachability_table());
  }));
}

// --- M2: merging any sequence of tables never moves a record backwards.

std::tuple<Incarnation, MemberStatus> progress(const Member& m) { return {m.incarnation(), m.status}; }

void records_never_move_backwards(TableMerge<MemberTable> merge) {
  const auto tables = *rc::gen::container<std::vector<MemberTable>>(gen_member_table());
  MemberTable state = *gen_member_table();
  for (const MemberTable& incoming : tables) {
    const MemberTable next = merge(state, incoming);
    for (const Member& before : state.members()) {
      const Member* after = next.find(before.address());
      PROP_ASSERT("M2", after != nullptr);  // nobody is forgotten by a merge
      PROP_ASSERT("M2", progress(*after) >= progress(before));
    }
    state = next;
  }
}

RC_GTEST_PROP(M2MemberTable, RecordsNeverMoveBackwards, ()) {
  records_never_move_backwards(real_merge<MemberTable>);
}

TEST(M2Catches, IncarnationBlindMerge) {
  EXPECT_TRUE(fails_as("M2", "monotonicity of an incarnation-blind member merge",
                       [] { records_never_move_backwards(incarnation_blind_merge); }));
}

TEST(M2Catches, LastWriterWinsMerge) {
  EXPECT_TRUE(fails_as("M2", "monotonicity of a last-writer-wins member merge",
                       [] { records_never_move_backwards(last_writer_wins_merge); }));
}

// --- Model-based: MemberTable against std::map with max semantics.

using Model = std::map<NodeAddress, Member>;

// The model's merge: keep the larger (incarnation, status), written without
// the kernel's supersedes_or_equals.
bool model_merge(Model& model, const Member& record) {
  const auto it = model.find(record.address());
  if (it != model.end() && progress(it->second) >= progress(record)) return false;
  model[record.address()] = record;
  return true;
}

// The system under test, with an optional planted bug so the model-based
// test can be shown to catch one: merging a single record as "last writer
// wins".
struct TableUnderTest {
  MemberTable table;
  bool last_writer_wins = false;

  bool merge(const Member& record) {
    if (!last_writer_wins) return table.merge(record);
    const Member* current = table.find(record.address());
    if (current != nullptr && *current == record) return false;
    table.prune([&](const Member& m) { return m.address() == record.address(); });
    return table.merge(record);
  }
};

void expect_matches_model(const Model& model, const MemberTable& table) {
  PROP_ASSERT("MODEL", table.size() == model.size());
  PROP_ASSERT("MODEL", table.empty() == model.empty());
  auto it = model.begin();
  for (const Member& m : table.members()) {  // same records, same order
    PROP_ASSERT("MODEL", m == it->second);
    ++it;
  }
  for (const NodeAddress& address : address_pool()) {
    const Member* found = table.find(address);
    const auto expected = model.find(address);
    if (expected == model.end()) {
      PROP_ASSERT("MODEL", found == nullptr);
    } else {
      PROP_ASSERT("MODEL", found != nullptr);
      PROP_ASSERT("MODEL", *found == expected->second);
    }
  }
  PROP_ASSERT("MODEL", table.find(NodeAddress{"not-in-the-pool", 1}) == nullptr);
}

struct MergeRecord : rc::state::Command<Model, TableUnderTest> {
  Member record = *gen_member();

  void apply(Model& model) const override { model_merge(model, record); }
  void run(const Model& model, TableUnderTest& sut) const override {
    Model next = model;
    const bool model_changed = model_merge(next, record);
    PROP_ASSERT("MODEL", sut.merge(record) == model_changed);
    expect_matches_model(next, sut.table);
  }
  void show(std::ostream& os) const override { os << "merge record " << record; }
};

struct MergeTable : rc::state::Command<Model, TableUnderTest> {
  std::vector<Member> records = *rc::gen::container<std::vector<Member>>(gen_member());

  void apply(Model& model) const override {
    Model incoming;
    for (const Member& m : records) model_merge(incoming, m);
    for (const auto& [address, m] : incoming) model_merge(model, m);
  }
  void run(const Model& model, TableUnderTest& sut) const override {
    Model next = model;
    apply(next);
    PROP_ASSERT("MODEL", sut.table.merge(table_of(records)) == (next != model));
    expect_matches_model(next, sut.table);
  }
  void show(std::ostream& os) const override {
    os << "merge table of";
    for (const Member& m : records) os << " [" << m << "]";
  }
};

struct PruneRemoved : rc::state::Command<Model, TableUnderTest> {
  void apply(Model& model) const override {
    std::erase_if(model, [](const auto& entry) { return entry.second.status == MemberStatus::removed; });
  }
  void run(const Model& model, TableUnderTest& sut) const override {
    Model next = model;
    apply(next);
    const std::size_t dropped =
        sut.table.prune([](const Member& m) { return m.status == MemberStatus::removed; });
    PROP_ASSERT("MODEL", dropped == model.size() - next.size());
    expect_matches_model(next, sut.table);
  }
  void show(std::ostream& os) const override { os << "prune removed"; }
};

void member_table_follows_the_model(bool last_writer_wins) {
  TableUnderTest sut;
  sut.last_writer_wins = last_writer_wins;
  rc::state::check(Model{}, sut, rc::state::gen::execOneOfWithArgs<MergeRecord, MergeTable, PruneRemoved>());
}

RC_GTEST_PROP(MemberTableModel, FollowsAMapWithMaxSemantics, ()) { member_table_follows_the_model(false); }

TEST(MemberTableModelCatches, LastWriterWinsRecordMerge) {
  EXPECT_TRUE(fails_as("MODEL", "member table with a last-writer-wins record merge against the model",
                       [] { member_table_follows_the_model(true); }));
}

}  // namespace
}  // namespace props
}  // namespace weft
