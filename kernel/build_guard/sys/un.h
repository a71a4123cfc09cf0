#error "kernel/ is pure state: it must not include sys/un.h (see docs/architecture.md)"
