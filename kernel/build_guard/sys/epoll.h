#error "kernel/ is pure state: it must not include sys/epoll.h (see docs/architecture.md)"
