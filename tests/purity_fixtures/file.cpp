#include <cstdio>  // expect: file
#include <stdio.h>  // expect: file
#include <fstream>  // expect: file
#include <iostream>  // expect: file
#include <filesystem>  // expect: file
#include <fcntl.h>  // expect: file
#include <sys/stat.h>  // expect: file
#include <string>

void save(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");  // expect: file
  std::fprintf(f, "state\n");  // expect: file
  printf("saved\n");  // expect: file
  std::fclose(f);  // expect: file
  std::ofstream out(path);  // expect: file
  std::cerr << "saved\n";  // expect: file
  const int fd = ::open(path.c_str(), O_RDONLY);  // expect: file
  ::close(fd);  // expect: file
  ::unlink(path.c_str());  // expect: file
  std::filesystem::remove(path);  // expect: file
  fputs("done", stderr);  // expect: file
}
