#error "kernel/ is pure state: it must not include sys/time.h (see docs/architecture.md)"
