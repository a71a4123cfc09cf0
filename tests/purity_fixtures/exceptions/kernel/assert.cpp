// Matches the reviewed exceptions for kernel/assert.cpp in part: the two
// excused lines below pass, the unexcused fputs is reported, and the
// excused fprintf line, absent here, is reported as a stale exception.
#include <cstdio>
  std::fflush(stderr);
  std::fputs("weft: assertion failed\n", stderr);  // expect: file
