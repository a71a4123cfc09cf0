#error "kernel/ is pure state: it must not include poll.h (see docs/architecture.md)"
