// Identities as text: "host:port" (IPv6 bracketed) and its parser,
// "host:port#incarnation", "host:port/name".
#include "kernel/ids.hpp"

#include <charconv>

namespace weft {

namespace {

void append_number(std::string& out, std::uint64_t value) {
  char digits[20];
  const auto [end, error] = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, end);
}

}  // namespace

void NodeAddress::append_to(std::string& out) const {
  const bool bracket = host.find(':') != std::string::npos;
  if (bracket) out += '[';
  out += host;
  if (bracket) out += ']';
  out += ':';
  append_number(out, port);
}

std::string NodeAddress::to_string() const {
  std::string text;
  text.reserve(host.size() + 8);
  append_to(text);
  return text;
}

std::optional<NodeAddress> NodeAddress::parse(std::string_view text) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view host = text.substr(0, colon);
  const std::string_view port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return std::nullopt;  // an IPv6 host must be bracketed
  }
  if (host.empty() || port_text.empty()) return std::nullopt;
  unsigned port = 0;
  const auto [end, error] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (error != std::errc{} || end != port_text.data() + port_text.size()) return std::nullopt;
  if (port == 0 || port > 65535) return std::nullopt;
  return NodeAddress{std::string(host), static_cast<std::uint16_t>(port)};
}

void MemberId::append_to(std::string& out) const {
  address.append_to(out);
  out += '#';
  append_number(out, incarnation.value);
}

std::string MemberId::to_string() const {
  std::string text;
  text.reserve(address.host.size() + 28);
  append_to(text);
  return text;
}

std::string ActorRef::to_string() const { return node.to_string() + "/" + name; }

}  // namespace weft
