#!/usr/bin/env bash
# Goal: kernel/ stays pure state. Fails, naming each line, if kernel/ reads a
# clock, opens files or sockets, starts threads, draws unseeded randomness,
# hashes strings with std::hash, or includes io/, sim/ or tools/.
set -u
kernel_dir=${1:?usage: check_kernel_purity.sh KERNEL_DIR}
pattern='#include *[<"](asio|boost/asio|thread|mutex|atomic|future|fstream|iostream|filesystem|spdlog|fmt/|random|chrono|ctime|io/|sim/|tools/)'
pattern+='|steady_clock|system_clock|high_resolution_clock|random_device|[^a-z_]s?rand\(|getenv\(|std::hash<'
hits=$(grep -rnE "$pattern" "$kernel_dir" --include='*.hpp' --include='*.cpp' --include='*.h' \
         | grep -v '/build_guard/' | grep -vE '^[^:]+:[0-9]+: *//')
if [ -n "$hits" ]; then
  echo "kernel/ must stay pure; offending lines:"
  echo "$hits"
  exit 1
fi
count=$(find "$kernel_dir" -name '*.?pp' -not -path '*/build_guard/*' | wc -l)
echo "kernel purity: $count files clean"
