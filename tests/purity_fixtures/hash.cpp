#include <functional>
#include <string>
#include <string_view>

std::size_t bucket(const std::string& name) {
  return std::hash<std::string>{}(name);  // expect: hash
}

std::size_t bucket_of(std::string_view name) { return std::hash<std::string_view>()(name); }  // expect: hash
