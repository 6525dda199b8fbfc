// JsonWriter: builds an indented JSON document value by value, placing commas itself.
//
//   JsonWriter w;
//   w.BeginObject().Key("type").String("relu").Key("kernels").BeginArray().EndArray().EndObject();
//   std::cout << w.str();
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace paddle_like {
namespace cli {

// `s` as a JSON string literal, quotes included.
std::string JsonQuote(const std::string& s);

class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  // The key of the next member of the current object.
  JsonWriter& Key(const std::string& key);

  JsonWriter& String(const std::string& v);
  JsonWriter& Int(int64_t v);
  // A finite number with up to 6 significant digits after the point (null when not finite).
  JsonWriter& Double(double v);
  JsonWriter& Bool(bool v);
  JsonWriter& Null();
  // An already-serialised JSON value (e.g. from framework::AttrToJson).
  JsonWriter& Raw(const std::string& json);

  // The document so far, with a trailing newline once the top-level value is closed.
  const std::string& str() const { return out_; }

 private:
  void BeforeValue();
  void Open(char c);
  void Close(char c);
  void Indent();

  std::string out_;
  std::vector<bool> has_members_;  // One entry per open object or array.
  bool after_key_ = false;
};

}  // namespace cli
}  // namespace paddle_like
