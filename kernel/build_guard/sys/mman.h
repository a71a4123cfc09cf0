#error "kernel/ is pure state: it must not include sys/mman.h (see docs/architecture.md)"
