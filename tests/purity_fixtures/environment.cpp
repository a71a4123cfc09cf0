#include <clocale>  // expect: environment
#include <cstdlib>

extern char** environ;  // expect: environment

const char* home() {
  setenv("WEFT_MODE", "fast", 1);  // expect: environment
  std::setlocale(LC_ALL, "");  // expect: environment
  return std::getenv("HOME");  // expect: environment
}
