#include "sim/config/json_text.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <vector>

namespace torsim {

namespace {

std::string position(std::size_t line, std::size_t column) {
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// One pass over the text, before the parser sees it: NUL bytes (which the parser takes for the
// end of the input) and nesting beyond kMaxJsonDepth. Strings are skipped, escapes included.
void check_bounds(const std::string& text, const Where& where) {
  std::size_t depth = 0, line = 1, column = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    ++column;
    if (c == '\0')
      where.fail("a NUL byte at " + position(line, column) + ": JSON text holds none (in a string, write \\u0000)");
    if (c == '\n') line += 1, column = 0;
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        where.fail("nested more than " + std::to_string(kMaxJsonDepth) + " levels deep at " + position(line, column) +
                   "; expected at most " + std::to_string(kMaxJsonDepth));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

// Duplicate keys, found as the parser reports each key: the path of every open container and
// the keys each open object has had so far.
class DuplicateKeys {
 public:
  explicit DuplicateKeys(Where where) : where_(std::move(where)) {}

  bool operator()(int, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
        frames_.push_back({false, 0, "", {}});
        break;
      case Json::parse_event_t::array_start:
        frames_.push_back({true, 0, "", {}});
        break;
      case Json::parse_event_t::key:
        key(parsed.get<std::string>());
        break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        frames_.pop_back();
        element_done();
        break;
      case Json::parse_event_t::value:
        element_done();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool array;
    std::size_t index;
    std::string key;
    std::set<std::string> keys;
  };

  void key(const std::string& name) {
    Frame& object = frames_.back();
    object.key = name;
    if (!object.keys.insert(name).second)
      path().fail("duplicate key '" + name + "': the object gives it twice (JSON keys must be unique)");
  }

  void element_done() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }

  Where path() const {
    Where at = where_;
    for (const auto& f : frames_) at = f.array ? at / f.index : at / f.key;
    return at;
  }

  Where where_;
  std::vector<Frame> frames_;
};

std::string printable(const std::string& text) {
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  for (const unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f)
      out += static_cast<char>(c);
    else
      out += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
  }
  return out;
}

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1,
// column 2: " prefix: the reason, and what the parser had read last (bytes it cannot show as
// text escaped).
std::string parse_error_reason(const Json::exception& e) {
  std::string what = e.what();
  if (const auto bracket = what.find("] "); what.rfind("[json.exception", 0) == 0 && bracket != std::string::npos)
    what = what.substr(bracket + 2);
  if (const auto column = what.find(", column "); what.rfind("parse error", 0) == 0 && column != std::string::npos)
    what = what.substr(what.find(": ", column) + 2);
  std::string last;
  if (const auto read = what.find("; last read: "); read != std::string::npos) {
    last = what.substr(read + 13);
    what.resize(read);
  }
  if (const auto dash = what.find(" - "); what.rfind("syntax error", 0) == 0 && dash != std::string::npos)
    what = what.substr(dash + 3);
  if (what.find("invalid literal") != std::string::npos)
    what += " (JSON values are objects, lists, strings, numbers, true, false and null; NaN and Infinity are not JSON)";
  return printable(what) + (last.empty() ? "" : ", having read " + printable(last));
}

Json parse_checked(const std::string& text, const Where& where) {
  check_bounds(text, where);
  return Json::parse(text, DuplicateKeys(where));
}

}  // namespace

Json read_json_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "", "cannot read the file: it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot read the file (does it exist?)");
  std::string text(kMaxJsonFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxJsonFileBytes)
    throw InputError(path, "",
                     "the file has more than " + std::to_string(kMaxJsonFileBytes >> 20) +
                         " MiB; expected a scenario, machine or registry file of at most that");
  return parse_json_text(text, path);
}

Json parse_json_text(const std::string& text, const std::string& file) {
  try {
    return parse_checked(text, Where(file));
  } catch (const Json::parse_error& e) {
    const auto offset = std::min(text.size(), static_cast<std::size_t>(e.byte > 0 ? e.byte - 1 : 0));
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
    const auto last_newline = text.rfind('\n', offset == 0 ? 0 : offset - 1);
    const auto column = offset - (last_newline == std::string::npos ? 0 : last_newline + 1) + 1;
    throw InputError(
        file, "",
        "malformed JSON at " + position(static_cast<std::size_t>(line), column) + ": " + parse_error_reason(e));
  } catch (const Json::exception& e) {  // a number too large for a double, say
    throw InputError(file, "", "malformed JSON: " + parse_error_reason(e));
  }
}

std::optional<Json> parse_json_value(const std::string& text, const Where& where) {
  try {
    return parse_checked(text, where);
  } catch (const Json::exception&) {
    return std::nullopt;
  }
}

}  // namespace torsim
