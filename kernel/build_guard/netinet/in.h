#error "kernel/ is pure state: it must not include netinet/in.h (see docs/architecture.md)"
