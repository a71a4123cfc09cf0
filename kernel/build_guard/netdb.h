#error "kernel/ is pure state: it must not include netdb.h (see docs/architecture.md)"
