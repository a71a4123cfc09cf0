#!/usr/bin/env bash
# Goal: kernel/ stays pure state. Fails, naming each offending line as
# "FILE:LINE: CATEGORY: TEXT", if the sources under PATH read a clock, touch
# files, sockets, threads, the environment or the process, draw unseeded
# randomness, use std::hash (its values differ between standard libraries),
# or include io/, sim/, sim_cli/, app/, daemon/, typed/, tools/ or a driver
# library.
#
#   tests/check_kernel_purity.sh PATH...   # directories or files; exit 0 clean,
#                                          # 1 offending lines, 2 no sources found
#
# Two layers, because neither is enough alone:
# - kernel/build_guard/ is first on weft_kernel's include path, so including
#   any header it shadows is a compile error that no script can miss: asio,
#   spdlog, fmt, <thread> <mutex> <shared_mutex> <atomic> <future>
#   <condition_variable> <semaphore> <latch> <barrier> <stop_token>, <chrono>
#   <ctime> <sys/time.h>, <random>, <fstream> <iostream> <filesystem>
#   <fcntl.h> <sys/stat.h> <sys/mman.h>, <sys/socket.h> <sys/un.h>
#   <netinet/in.h> <netinet/tcp.h> <arpa/inet.h> <netdb.h> <poll.h>
#   <sys/epoll.h>, <sys/wait.h> <spawn.h> <csignal> <signal.h> <dlfcn.h>.
#   (tests/CMakeLists.txt holds that list and proves each one fires.)
# - It cannot shadow what libstdc++ itself includes from <string>, <memory>
#   and friends: <cstdio> <stdio.h> <cstdlib> <unistd.h> <pthread.h>
#   <time.h> <sys/types.h> <sys/select.h> <clocale> <ostream>. Those, and
#   every call (fopen, ::now(), getenv, fork, rand, ...), which a header
#   guard cannot see because the declarations arrive transitively anyway,
#   are this script's alone.
#
# A line is judged with its // comment removed; lines inside /* */ blocks
# that start with * are skipped. The first matching category is reported.
set -u

if [ $# -eq 0 ]; then
  echo "usage: check_kernel_purity.sh PATH..." >&2
  exit 2
fi

inc='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]'
# A call of NAME that is not a member call (x.NAME(, x->NAME() nor part of a
# longer identifier; std:: and :: qualified forms included.
call() { echo "(^|[^[:alnum:]_.>:]|std::|[^[:alnum:]_]::)($1)[[:space:]]*\\("; }
# A global-namespace call only (::NAME(), for POSIX names a kernel method or
# a standard algorithm may share (a member send(), std::remove).
global_call() { echo "(^|[^[:alnum:]_])::($1)[[:space:]]*\\("; }

# category<TAB>extended regex; order matters only for the reported category.
rules=$(cat <<EOF
layering	${inc}(io|sim|sim_cli|app|daemon|typed|tools|bench|props|tests)/
layering	${inc}(spdlog|fmt)/
socket	${inc}(asio|boost/asio)[/.>]
socket	${inc}(sys/socket\.h|sys/un\.h|netinet/|arpa/|netdb\.h|poll\.h|sys/epoll\.h|sys/select\.h)
socket	$(call 'socket|socketpair|getaddrinfo|freeaddrinfo|gethostbyname|gethostbyaddr|inet_pton|inet_ntop|inet_addr|setsockopt|getsockopt|epoll_create1?|epoll_ctl|epoll_wait')
socket	$(global_call 'bind|listen|accept4?|connect|send|sendto|sendmsg|recv|recvfrom|recvmsg|poll|select|shutdown')
thread	${inc}(thread|mutex|shared_mutex|atomic|future|condition_variable|semaphore|latch|barrier|stop_token|pthread\.h|threads\.h)>
thread	std::(thread|jthread|this_thread|async|mutex|recursive_mutex|timed_mutex|recursive_timed_mutex|shared_mutex|shared_timed_mutex|lock_guard|unique_lock|shared_lock|scoped_lock|condition_variable|condition_variable_any|atomic[[:alnum:]_]*|future|shared_future|promise|packaged_task|counting_semaphore|binary_semaphore|latch|barrier|stop_token|stop_source)([^[:alnum:]_]|$)
thread	(^|[^[:alnum:]_])(pthread_[[:alnum:]_]+|thread_local)([^[:alnum:]_]|$)
clock	${inc}(chrono|ctime|time\.h|sys/time\.h|sys/times\.h)>
clock	(steady_clock|system_clock|high_resolution_clock|file_clock|utc_clock|tai_clock|gps_clock)
clock	::now[[:space:]]*\(
clock	$(call 'time|clock|clock_gettime|gettimeofday|timespec_get|localtime|localtime_r|gmtime|gmtime_r|mktime|difftime|ctime|asctime|strftime|sleep|usleep|nanosleep|__rdtsc|rdtsc')
environment	${inc}(clocale|locale)>
environment	$(call 'getenv|secure_getenv|setenv|unsetenv|putenv|clearenv|setlocale')
environment	(^|[^[:alnum:]_])(environ|std::locale)([^[:alnum:]_]|$)
process	${inc}(unistd\.h|spawn\.h|sys/wait\.h|sys/resource\.h|csignal|signal\.h|dlfcn\.h)>
process	$(call 'system|popen|pclose|fork|vfork|execl|execlp|execle|execv|execvp|execvpe|execve|fexecve|posix_spawnp?|waitpid|sigaction|exit|_exit|_Exit|quick_exit|atexit|at_quick_exit|getpid|getppid|dlopen|dlsym')
process	$(global_call 'wait|pipe|dup2?|ioctl|signal|raise|kill')
process	std::(signal|raise)[[:space:]]*\(
file	${inc}(cstdio|stdio\.h|fstream|iostream|filesystem|fcntl\.h|sys/stat\.h|sys/mman\.h)>
file	$(call 'fopen|freopen|fdopen|fclose|fread|fwrite|fgets|fputs|fgetc|fputc|fprintf|printf|vprintf|vfprintf|puts|putchar|getchar|perror|scanf|fscanf|tmpfile|tmpnam|mmap|creat|openat|opendir|readdir')
file	$(global_call 'open|read|write|close|fsync|lseek|remove|rename|stat|lstat|fstat|unlink|mkdir')
file	std::rename[[:space:]]*\(
file	(std::(cout|cerr|clog|cin|wcout|wcerr|ifstream|ofstream|fstream|filebuf|filesystem)|(^|[^[:alnum:]_])(stdin|stdout|stderr))([^[:alnum:]_]|$)
randomness	${inc}random>
randomness	random_device|/dev/u?random
randomness	$(call 'rand|srand|rand_r|random|srandom|drand48|erand48|lrand48|nrand48|mrand48|jrand48|srand48|arc4random|arc4random_uniform|arc4random_buf|getrandom|getentropy')
randomness	std::(mt19937|mt19937_64|minstd_rand0?|default_random_engine|ranlux24|ranlux48|ranlux24_base|ranlux48_base|knuth_b|[[:alnum:]_]+_distribution)([^[:alnum:]_]|$)
hash	std::hash[[:space:]]*<
EOF
)

# Reviewed exceptions: PATH-SUFFIX<TAB>exact line. Each names a line that
# must exist; an exception whose line is gone fails the check, so the list
# cannot outlive what it excuses.
# - kernel/assert.cpp: a broken invariant stops the process (assert.hpp);
#   writing the failed expression to stderr as it dies changes no state a
#   run could observe afterwards.
exceptions=$(cat <<'EOF'
kernel/assert.cpp	#include <cstdio>
kernel/assert.cpp	  std::fprintf(stderr, "weft: assertion failed: %s (%s:%d)\n", expression, file, line);
kernel/assert.cpp	  std::fflush(stderr);
EOF
)

mapfile -d '' files < <(find "$@" -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.h' \
                          -o -name '*.ipp' -o -name '*.inl' \) -not -path '*/build_guard/*' -print0 \
                        | sort -z)
if [ ${#files[@]} -eq 0 ]; then
  echo "kernel purity: no C++ sources under $*" >&2
  exit 2
fi

PURITY_RULES=$rules PURITY_EXCEPTIONS=$exceptions awk '
  # PATH is FILE itself or its tail after a "/".
  function ends_with(file, path,    whole) {
    whole = "/" file
    return substr(whole, length(whole) - length(path)) == "/" path
  }
  BEGIN {
    n = split(ENVIRON["PURITY_RULES"], rule_lines, "\n")
    for (i = 1; i <= n; i++) {
      tab = index(rule_lines[i], "\t")
      category[i] = substr(rule_lines[i], 1, tab - 1)
      pattern[i] = substr(rule_lines[i], tab + 1)
    }
    m = split(ENVIRON["PURITY_EXCEPTIONS"], exception_lines, "\n")
    for (i = 1; i <= m; i++) {
      tab = index(exception_lines[i], "\t")
      exception_path[i] = substr(exception_lines[i], 1, tab - 1)
      exception_text[i] = substr(exception_lines[i], tab + 1)
    }
    hits = 0
  }
  FNR == 1 { ++scanned; seen_files[FILENAME] = 1 }
  {
    for (i = 1; i <= m; i++) {
      if ($0 == exception_text[i] && ends_with(FILENAME, exception_path[i])) {
        used[i] = 1
        next
      }
    }
    code = $0
    sub(/\/\/.*/, "", code)
    if (code ~ /^[[:space:]]*(\/\*|\*)/) next
    for (i = 1; i <= n; i++) {
      if (code ~ pattern[i]) {
        text = $0
        sub(/^[[:space:]]+/, "", text)
        printf "%s:%d: %s: %s\n", FILENAME, FNR, category[i], text
        ++hits
        offending[FILENAME] = 1
        break
      }
    }
  }
  END {
    for (i = 1; i <= m; i++) {
      if (used[i]) continue
      for (f in seen_files) {
        if (ends_with(f, exception_path[i])) {
          printf "%s: stale exception in check_kernel_purity.sh, line gone: %s\n", f, exception_text[i]
          ++hits
        }
      }
    }
    if (hits > 0) {
      files_hit = 0
      for (f in offending) ++files_hit
      printf "kernel purity: %d offending lines in %d files (kernel/ must stay pure state)\n", hits, files_hit
      exit 1
    }
    printf "kernel purity: %d files clean\n", scanned
  }
' "${files[@]}"
