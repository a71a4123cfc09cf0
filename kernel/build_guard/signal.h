#error "kernel/ is pure state: it must not include signal.h (see docs/architecture.md)"
