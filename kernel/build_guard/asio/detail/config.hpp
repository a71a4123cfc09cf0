#error "kernel/ is pure state: it must not include asio/detail/config.hpp (see docs/architecture.md)"
