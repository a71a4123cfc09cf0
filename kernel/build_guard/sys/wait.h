#error "kernel/ is pure state: it must not include sys/wait.h (see docs/architecture.md)"
