#error "kernel/ is pure state: it must not include sys/socket.h (see docs/architecture.md)"
