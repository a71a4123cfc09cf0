#include <thread>  // expect: thread
#include <mutex>  // expect: thread
#include <atomic>  // expect: thread
#include <future>  // expect: thread
#include <condition_variable>  // expect: thread
#include <pthread.h>  // expect: thread

std::mutex state_lock;  // expect: thread
std::atomic<int> ticks{0};  // expect: thread
thread_local int depth = 0;  // expect: thread

void spawn() {
  std::thread worker([] {});  // expect: thread
  const std::lock_guard<std::mutex> hold(state_lock);  // expect: thread
  auto later = std::async([] { return 1; });  // expect: thread
  std::this_thread::yield();  // expect: thread
  pthread_self();  // expect: thread
}
