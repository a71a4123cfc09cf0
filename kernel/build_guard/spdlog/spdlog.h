#error "kernel/ is pure state: it must not include spdlog/spdlog.h (see docs/architecture.md)"
