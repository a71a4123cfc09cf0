#include <unistd.h>  // expect: process
#include <csignal>  // expect: process
#include <sys/wait.h>  // expect: process
#include <spawn.h>  // expect: process

int run(const char* command) {
  const int status = std::system(command);  // expect: process
  FILE* output = popen(command, "r");  // expect: process
  const pid_t child = fork();  // expect: process
  if (child == 0) execvp("sh", nullptr);  // expect: process
  ::kill(child, SIGTERM);  // expect: process
  std::raise(SIGINT);  // expect: process
  waitpid(child, nullptr, 0);  // expect: process
  std::exit(status);  // expect: process
}
