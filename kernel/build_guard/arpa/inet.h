#error "kernel/ is pure state: it must not include arpa/inet.h (see docs/architecture.md)"
