// Must not compile: C is sent but not in the protocol.
#include "typed/typed.hpp"

struct A { int x = 0; MSGPACK_DEFINE(x) };
struct B { int y = 0; MSGPACK_DEFINE(y) };
struct C { int z = 0; MSGPACK_DEFINE(z) };
using P = weft::typed::Protocol<weft::typed::Message<A, 1>, weft::typed::Message<B, 2>>;
static_assert(P::tag<B> == 2);
std::vector<std::uint8_t> f() { return P::encode(C{}); }
