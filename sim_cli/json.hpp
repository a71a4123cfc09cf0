// A minimal JSON writer for weft-sim's --json and the data of its --html
// page. Strings are escaped per RFC 8259, and '<', '>' and '&' as \u00XX
// too, so the text can sit inside an HTML <script> element; numbers that are
// not finite are written as null, which JSON has, never NaN or inf, which it
// has not.
#pragma once

#include <cmath>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace weft::sim_cli {

class JsonWriter {
 public:
  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  // The next value is this member's.
  JsonWriter& key(std::string_view name) {
    separate();
    append_string(name);
    out_ += ':';
    after_key_ = true;
    return *this;
  }
  JsonWriter& value(std::string_view text) {
    separate();
    append_string(text);
    return *this;
  }
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(bool b) {
    separate();
    out_ += b ? "true" : "false";
    return *this;
  }
  // Any integer (one template, so no two overloads name the same type on
  // platforms where std::uint64_t is unsigned long long).
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  JsonWriter& value(T n) {
    if constexpr (std::is_signed_v<T>) {
      return raw(std::to_string(static_cast<long long>(n)));
    } else {
      return raw(std::to_string(static_cast<unsigned long long>(n)));
    }
  }
  // Fixed-point with `decimals` places (seconds to the nanosecond need 9).
  JsonWriter& value(double d, int decimals = 6) {
    if (!std::isfinite(d)) return null();
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, d);
    return raw(text);
  }
  JsonWriter& null() { return raw("null"); }
  // A value already in JSON form.
  JsonWriter& raw(std::string_view json) {
    separate();
    out_ += json;
    return *this;
  }

  const std::string& text() const { return out_; }

 private:
  JsonWriter& open(char c) {
    separate();
    out_ += c;
    first_.push_back(true);
    return *this;
  }
  JsonWriter& close(char c) {
    out_ += c;
    first_.pop_back();
    return *this;
  }
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (first_.empty()) return;
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
  void append_string(std::string_view s) {
    out_ += '"';
    for (const char ch : s) {
      const auto c = static_cast<unsigned char>(ch);
      switch (c) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\n': out_ += "\\n"; break;
        case '\r': out_ += "\\r"; break;
        case '\t': out_ += "\\t"; break;
        default:
          if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x7f) {
            char esc[8];
            std::snprintf(esc, sizeof esc, "\\u%04x", c);
            out_ += esc;
          } else {
            out_ += ch;  // UTF-8 passes through; weft's own text is ASCII
          }
      }
    }
    out_ += '"';
  }

  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace weft::sim_cli
