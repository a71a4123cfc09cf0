// Replaces the global operator new and delete to count allocations and the
// bytes they hold (see alloc_counter.hpp). Linked into benchmark binaries only.
#include "bench/alloc_counter.hpp"

#include <atomic>
#include <cstdlib>
#include <malloc.h>
#include <new>

namespace {

std::atomic<std::uint64_t> g_allocations{0};
// Bytes held: the allocator's usable size of every block, so what the heap
// really gives (rounding included), not only what was asked for.
std::atomic<std::int64_t> g_live_bytes{0};

void* counted(void* p) {
  g_live_bytes.fetch_add(static_cast<std::int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  return p;
}

void counted_free(void* p) {
  if (p == nullptr) return;
  g_live_bytes.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  std::free(p);
}

void* counted_alloc(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return counted(p);
  throw std::bad_alloc();
}

void* counted_aligned_alloc(std::size_t size, std::align_val_t alignment) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  const auto align = static_cast<std::size_t>(alignment);
  // aligned_alloc wants a size that is a multiple of the alignment.
  const std::size_t rounded = ((size == 0 ? 1 : size) + align - 1) / align * align;
  if (void* p = std::aligned_alloc(align, rounded)) return counted(p);
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t size) { return counted_alloc(size); }
void* operator new[](std::size_t size) { return counted_alloc(size); }
void* operator new(std::size_t size, std::align_val_t alignment) {
  return counted_aligned_alloc(size, alignment);
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return counted_aligned_alloc(size, alignment);
}
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { counted_free(p); }


namespace weft::bench {

std::uint64_t allocations() { return g_allocations.load(std::memory_order_relaxed); }
std::int64_t live_bytes() { return g_live_bytes.load(std::memory_order_relaxed); }

void report_allocations(benchmark::State& state, std::uint64_t before) {
  const std::uint64_t during = allocations() - before;
  state.counters["allocs/op"] =
      benchmark::Counter(static_cast<double>(during), benchmark::Counter::kAvgIterations);
}

}  // namespace weft::bench
