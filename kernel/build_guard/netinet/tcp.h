#error "kernel/ is pure state: it must not include netinet/tcp.h (see docs/architecture.md)"
