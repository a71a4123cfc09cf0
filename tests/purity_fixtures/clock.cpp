#include <chrono>  // expect: clock
#include <ctime>  // expect: clock
#include <time.h>  // expect: clock
#include <sys/time.h>  // expect: clock

long long now_ns() {
  const auto a = std::chrono::steady_clock::now();  // expect: clock
  const auto b = std::chrono::system_clock::now();  // expect: clock
  const auto c = std::chrono::high_resolution_clock::now();  // expect: clock
  const auto d = Clock::now();  // expect: clock
  const std::time_t e = time(nullptr);  // expect: clock
  timespec f;
  clock_gettime(CLOCK_MONOTONIC, &f);  // expect: clock
  usleep(10);  // expect: clock
  return clock();  // expect: clock
}
