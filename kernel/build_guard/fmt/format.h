#error "kernel/ is pure state: it must not include fmt/format.h (see docs/architecture.md)"
