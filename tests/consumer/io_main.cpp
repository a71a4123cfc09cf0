// weft::io from an installed weft: compiles only if the package passes on
// Asio's definitions (ASIO_STANDALONE, ...), links only if it brings libssl,
// libcrypto and threads along. Runs a node on a loopback port and stops it.
#include <iostream>
#include <string>

#include "io/node.hpp"

int main() {
  asio::io_context io;
  weft::io::NodeOptions options;
  options.config.self = weft::NodeAddress{"127.0.0.1", 7000};
  options.config.seeds = {options.config.self};
  options.bind = asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0);
  weft::io::Node node(io, options);
  std::string error;
  if (!node.start(error)) {
    std::cerr << "consumer io: the node did not start: " << error << '\n';
    return 1;
  }
  const auto port = node.listening_port();
  node.stop();
  if (port == 0) {
    std::cerr << "consumer io: no listening port\n";
    return 1;
  }
  std::cout << "consumer io: a node listened on 127.0.0.1:" << port << '\n';
  return 0;
}
