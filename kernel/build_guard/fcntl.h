#error "kernel/ is pure state: it must not include fcntl.h (see docs/architecture.md)"
