#include "shard/region_actor.hpp"

#include <memory>
#include <utility>

#include "shard/envelope.hpp"
#include "shard/region.hpp"

namespace weft::shard {

ActorKind region_actor(EntityKind kind) {
  std::string name = region_name(kind.name);
  return ActorKind{std::move(name), [kind = std::move(kind)](const ActorStart& start) {
                     EntityKind planted = kind;
                     RegionMutations& m = planted.mutations;
                     m.keep_moved = m.keep_moved || start.planted_defect("shard_keep_moved");
                     m.drop_handoff_state = m.drop_handoff_state || start.planted_defect("shard_drop_handoff_state");
                     m.no_handoff_wait = m.no_handoff_wait || start.planted_defect("shard_no_handoff_wait");
                     m.unordered = m.unordered || start.planted_defect("shard_unordered");
                     m.vote_without_promise =
                         m.vote_without_promise || start.planted_defect("shard_vote_without_promise");
                     m.ignore_joins = m.ignore_joins || start.planted_defect("shard_ignore_joins");
                     m.endless_wait = m.endless_wait || start.planted_defect("shard_endless_wait");
                     m.done_ends_every_wait =
                         m.done_ends_every_wait || start.planted_defect("shard_done_ends_every_wait");
                     m.no_resend = m.no_resend || start.planted_defect("shard_no_resend");
                     m.rejoin_forgets_handoffs =
                         m.rejoin_forgets_handoffs || start.planted_defect("shard_rejoin_forgets_handoffs");
                     m.forget_returned = m.forget_returned || start.planted_defect("shard_forget_returned");
                     m.return_past_third_owner =
                         m.return_past_third_owner || start.planted_defect("shard_return_past_third_owner");
                     m.done_for_any_life = m.done_for_any_life || start.planted_defect("shard_done_for_any_life");
                     m.keep_stale = m.keep_stale || start.planted_defect("shard_keep_stale");
                     m.votes_behind_user = m.votes_behind_user || start.planted_defect("shard_votes_behind_user");
                     m.batch_skips_inbox = m.batch_skips_inbox || start.planted_defect("shard_batch_skips_inbox");
                     m.ask_overtakes_batch =
                         m.ask_overtakes_batch || start.planted_defect("shard_ask_overtakes_batch");
                     MajorityOptions& majority = planted.majority;
                     if (planted.consistency == Consistency::majority && majority.voters.empty()) {
                       majority.voters.assign(start.seeds.begin(), start.seeds.end());
                     }
                     return std::make_unique<Region>(std::move(planted));
                   }};
}

std::vector<PlantedDefect> region_defects() {
  return {
      {.name = "shard_keep_moved", .property = "SHARD1", .branch = "whose views agree"},
      {.name = "shard_drop_handoff_state", .property = "COUNTER", .branch = "increments were acknowledged"},
      {.name = "shard_no_handoff_wait", .property = "COUNTER", .branch = "increments were acknowledged"},
      {.name = "shard_unordered", .property = "ORDER", .branch = "after"},
      {.name = "shard_vote_without_promise", .property = "SHARD2", .branch = "at once"},
      {.name = "shard_ignore_joins", .property = "REBALANCE", .branch = "another view"},
      {.name = "shard_done_ends_every_wait",
       .property = "COUNTER",
       .branch = "increments were acknowledged",
       .scenario_only = "entities_lagging_view.scenario"},
      {.name = "shard_no_resend",
       .property = "COUNTER",
       .branch = "increments were acknowledged",
       .scenario_only = "entities_dropped_handoff.scenario"},
      {.name = "shard_rejoin_forgets_handoffs",
       .property = "COUNTER",
       .branch = "increments were acknowledged",
       .scenario_only = "entities_rejoined_sender.scenario"},
      {.name = "shard_forget_returned",
       .property = "COUNTER",
       .branch = "increments were acknowledged",
       .unit_test_only = "tests/region_take_back_test.cpp (RegionTakeBack)"},
      {.name = "shard_return_past_third_owner",
       .property = "COUNTER",
       .branch = "increments were acknowledged",
       .scenario_only = "entities_third_owner.scenario"},
      {.name = "shard_done_for_any_life",
       .property = "COUNTER",
       .branch = "increments were acknowledged",
       .scenario_only = "entities_stale_done.scenario"},
      {.name = "shard_keep_stale",
       .property = "ORDER",
       .branch = "in one epoch",
       .scenario_only = "entities_stale_lives.scenario"},
      {.name = "shard_votes_behind_user",
       .property = "COUNTER",
       .branch = "no Add was acknowledged",
       .scenario_only = "entities_flooded_votes.scenario"},
      {.name = "shard_batch_skips_inbox", .property = "ORDER", .branch = "after"},
      {.name = "shard_ask_overtakes_batch",
       .property = "ORDER",
       .branch = "after",
       .unit_test_only = "tests/region_batch_test.cpp (RegionBatch)"},
      {.name = "shard_endless_wait",
       .property = "REBALANCE",
       .branch = "after the last fault",
       .scenario_only = "entities_crash.scenario"},
  };
}

}  // namespace weft::shard
