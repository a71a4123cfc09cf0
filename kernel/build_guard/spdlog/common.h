#error "kernel/ is pure state: it must not include spdlog/common.h (see docs/architecture.md)"
