#error "kernel/ is pure state: it must not include dlfcn.h (see docs/architecture.md)"
