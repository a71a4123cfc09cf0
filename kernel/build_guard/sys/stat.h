#error "kernel/ is pure state: it must not include sys/stat.h (see docs/architecture.md)"
