#error "kernel/ is pure state: it must not include fmt/core.h (see docs/architecture.md)"
