#error "kernel/ is pure state: it must not include spdlog/tweakme.h (see docs/architecture.md)"
