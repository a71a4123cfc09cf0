// Goal: the two link state machines allow exactly the moves their diagrams
// draw (kernel/links/link_state.hpp): each legal move is listed here, each
// illegal one too, and together the lists cover every (from, to) pair.
#include "kernel/links/link_state.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace weft {
namespace {

using O = OutboundState;
using I = InboundState;

template <class State>
using Moves = std::vector<std::pair<State, State>>;

const Moves<O> kOutboundLegal = {
    {O::idle, O::dialing},           {O::idle, O::retired},
    {O::dialing, O::handshaking},    {O::dialing, O::idle},        {O::dialing, O::retired},
    {O::handshaking, O::established}, {O::handshaking, O::idle},   {O::handshaking, O::retired},
    {O::established, O::idle},       {O::established, O::retired},
    {O::retired, O::idle},
};

const Moves<O> kOutboundIllegal = {
    {O::idle, O::idle},                {O::idle, O::handshaking},        {O::idle, O::established},
    {O::dialing, O::dialing},          {O::dialing, O::established},
    {O::handshaking, O::dialing},      {O::handshaking, O::handshaking},
    {O::established, O::dialing},      {O::established, O::handshaking}, {O::established, O::established},
    {O::retired, O::dialing},          {O::retired, O::handshaking},     {O::retired, O::established},
    {O::retired, O::retired},
};

const Moves<I> kInboundLegal = {
    {I::awaiting_hello, I::awaiting_proof}, {I::awaiting_hello, I::established}, {I::awaiting_hello, I::closed},
    {I::awaiting_proof, I::established},    {I::awaiting_proof, I::closed},
    {I::established, I::closed},
};

const Moves<I> kInboundIllegal = {
    {I::awaiting_hello, I::awaiting_hello},
    {I::awaiting_proof, I::awaiting_hello}, {I::awaiting_proof, I::awaiting_proof},
    {I::established, I::awaiting_hello},    {I::established, I::awaiting_proof}, {I::established, I::established},
    {I::closed, I::awaiting_hello},         {I::closed, I::awaiting_proof},      {I::closed, I::established},
    {I::closed, I::closed},
};

template <class State>
std::string name(const std::pair<State, State>& move) {
  return std::string(to_string(move.first)) + " -> " + std::string(to_string(move.second));
}

template <class State>
void expect_table(const Moves<State>& legal, const Moves<State>& illegal, std::size_t count) {
  for (const auto& move : legal) EXPECT_TRUE(legal_move(move.first, move.second)) << name(move);
  for (const auto& move : illegal) EXPECT_FALSE(legal_move(move.first, move.second)) << name(move);
  // The two lists are disjoint and name every pair.
  std::set<std::pair<State, State>> all(legal.begin(), legal.end());
  all.insert(illegal.begin(), illegal.end());
  EXPECT_EQ(all.size(), legal.size() + illegal.size());
  EXPECT_EQ(all.size(), count * count);
}

TEST(LinkState, OutboundMovesAreExactlyTheDiagrams) {
  expect_table(kOutboundLegal, kOutboundIllegal, kOutboundStateCount);
}

TEST(LinkState, InboundMovesAreExactlyTheDiagrams) {
  expect_table(kInboundLegal, kInboundIllegal, kInboundStateCount);
}

// Only closed is final; every other state can still be left.
TEST(LinkState, OnlyClosedIsFinal) {
  for (std::size_t from = 0; from < kOutboundStateCount; ++from) {
    bool way_out = false;
    for (std::size_t to = 0; to < kOutboundStateCount; ++to) {
      way_out = way_out || legal_move(static_cast<O>(from), static_cast<O>(to));
    }
    EXPECT_TRUE(way_out) << to_string(static_cast<O>(from));
  }
  for (std::size_t from = 0; from < kInboundStateCount; ++from) {
    bool way_out = false;
    for (std::size_t to = 0; to < kInboundStateCount; ++to) {
      way_out = way_out || legal_move(static_cast<I>(from), static_cast<I>(to));
    }
    EXPECT_EQ(way_out, static_cast<I>(from) != I::closed) << to_string(static_cast<I>(from));
  }
}

TEST(LinkState, EveryStateHasItsOwnName) {
  std::set<std::string_view> names;
  for (std::size_t s = 0; s < kOutboundStateCount; ++s) names.insert(to_string(static_cast<O>(s)));
  EXPECT_EQ(names.size(), kOutboundStateCount);
  names.clear();
  for (std::size_t s = 0; s < kInboundStateCount; ++s) names.insert(to_string(static_cast<I>(s)));
  EXPECT_EQ(names.size(), kInboundStateCount);
  EXPECT_FALSE(names.contains(""));
}

}  // namespace
}  // namespace weft
