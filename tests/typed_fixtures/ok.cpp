// Compiles: the control for the other fixtures here, which each add one clash.
#include "typed/typed.hpp"

struct A { int x = 0; MSGPACK_DEFINE(x) };
struct B { int y = 0; MSGPACK_DEFINE(y) };
using P = weft::typed::Protocol<weft::typed::Message<A, 1>, weft::typed::Message<B, 2>>;
static_assert(P::tag<B> == 2);
std::vector<std::uint8_t> f() { return P::encode(A{}); }
