#error "kernel/ is pure state: it must not include spawn.h (see docs/architecture.md)"
