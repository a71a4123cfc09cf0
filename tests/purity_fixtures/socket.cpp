#include <sys/socket.h>  // expect: socket
#include <netinet/in.h>  // expect: socket
#include <arpa/inet.h>  // expect: socket
#include <netdb.h>  // expect: socket
#include <asio.hpp>  // expect: socket
#include <boost/asio/ip/tcp.hpp>  // expect: socket

int dial() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);  // expect: socket
  addrinfo* found = nullptr;
  getaddrinfo("seed", "7000", nullptr, &found);  // expect: socket
  ::connect(fd, found->ai_addr, found->ai_addrlen);  // expect: socket
  ::send(fd, "x", 1, 0);  // expect: socket
  return fd;
}
