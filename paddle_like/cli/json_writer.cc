#include "paddle_like/cli/json_writer.h"

#include <cmath>
#include <cstdio>

namespace paddle_like {
namespace cli {

std::string JsonQuote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

void JsonWriter::Indent() {
  out_ += '\n';
  out_.append(2 * has_members_.size(), ' ');
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (has_members_.empty()) return;
  if (has_members_.back()) out_ += ',';
  has_members_.back() = true;
  Indent();
}

void JsonWriter::Open(char c) {
  BeforeValue();
  out_ += c;
  has_members_.push_back(false);
}

void JsonWriter::Close(char c) {
  const bool had_members = has_members_.back();
  has_members_.pop_back();
  if (had_members) Indent();
  out_ += c;
  if (has_members_.empty()) out_ += '\n';
}

JsonWriter& JsonWriter::BeginObject() {
  Open('{');
  return *this;
}
JsonWriter& JsonWriter::EndObject() {
  Close('}');
  return *this;
}
JsonWriter& JsonWriter::BeginArray() {
  Open('[');
  return *this;
}
JsonWriter& JsonWriter::EndArray() {
  Close(']');
  return *this;
}

JsonWriter& JsonWriter::Key(const std::string& key) {
  BeforeValue();
  out_ += JsonQuote(key);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(const std::string& v) { return Raw(JsonQuote(v)); }
JsonWriter& JsonWriter::Int(int64_t v) { return Raw(std::to_string(v)); }
JsonWriter& JsonWriter::Double(double v) {
  if (!std::isfinite(v)) return Null();
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return Raw(buf);
}
JsonWriter& JsonWriter::Bool(bool v) { return Raw(v ? "true" : "false"); }
JsonWriter& JsonWriter::Null() { return Raw("null"); }

JsonWriter& JsonWriter::Raw(const std::string& json) {
  BeforeValue();
  out_ += json;
  return *this;
}

}  // namespace cli
}  // namespace paddle_like
