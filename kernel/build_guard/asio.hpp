#error "kernel/ is pure state: it must not include asio.hpp (see docs/architecture.md)"
