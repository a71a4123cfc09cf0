// Memory for Asio's operations, one at a time, reused: the driver's
// operations that are never more than one in flight (a link's read, its
// write, the posted tick) each get a block, so running them allocates
// nothing. Asio's own per-thread cache keeps two blocks per kind of
// operation, and with reads, writes, timers and posts in turn it missed
// about once per batch. A second block at once, or a larger one (TLS
// stacks its operations), still comes from that cache.
#pragma once

#include <asio/recycling_allocator.hpp>

#include <cstddef>

namespace weft::io {

class HandlerMemory {
 public:
  void* allocate(std::size_t bytes) {
    if (!in_use_ && bytes <= sizeof storage_) {
      in_use_ = true;
      return storage_;
    }
    return asio::recycling_allocator<unsigned char>().allocate(bytes);
  }
  void deallocate(void* block, std::size_t bytes) {
    if (block == storage_) {
      in_use_ = false;
      return;
    }
    asio::recycling_allocator<unsigned char>().deallocate(static_cast<unsigned char*>(block), bytes);
  }

 private:
  alignas(std::max_align_t) unsigned char storage_[512];
  bool in_use_ = false;
};

// For asio::bind_allocator: hands out a HandlerMemory's block.
template <class T>
class HandlerAllocator {
 public:
  using value_type = T;
  explicit HandlerAllocator(HandlerMemory& memory) : memory_(&memory) {}
  template <class U>
  HandlerAllocator(const HandlerAllocator<U>& other) noexcept : memory_(other.memory_) {}
  T* allocate(std::size_t n) { return static_cast<T*>(memory_->allocate(sizeof(T) * n)); }
  void deallocate(T* block, std::size_t n) { memory_->deallocate(block, sizeof(T) * n); }
  friend bool operator==(const HandlerAllocator& a, const HandlerAllocator& b) { return a.memory_ == b.memory_; }

 private:
  template <class U>
  friend class HandlerAllocator;
  HandlerMemory* memory_;
};

}  // namespace weft::io
