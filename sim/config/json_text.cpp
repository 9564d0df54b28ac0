#include "sim/config/json_text.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <vector>

namespace torsim {

namespace {

std::string position(std::size_t line, std::size_t column) {
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// One pass over the text, before the parser sees it: nesting beyond kMaxJsonDepth. Strings are
// skipped, escapes included. Returns the offset of the first NUL byte (which the parser takes for
// the end of the input), or npos.
std::size_t check_bounds(const std::string& text, const Where& where) {
  std::size_t depth = 0, line = 1, column = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++column;
    if (c == '\0') return i;
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
  return std::string::npos;
}

// Follows the parser's events: the path of the value being read (for errors the parser finds)
// and duplicate keys. The parser copies its callback, so the frames are shared.
class PathTracker {
 public:
  explicit PathTracker(Where where) : where_(std::move(where)), frames_(std::make_shared<std::vector<Frame>>()) {}

  bool operator()(int, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
        frames_->push_back({false, 0, "", false, {}});
        break;
      case Json::parse_event_t::array_start:
        frames_->push_back({true, 0, "", false, {}});
        break;
      case Json::parse_event_t::key:
        key(parsed.get<std::string>());
        break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        frames_->pop_back();
        element_done();
        break;
      case Json::parse_event_t::value:
        element_done();
        break;
    }
    return true;
  }

  /// Where the parser is: the value being read (its key read, or its place in a list).
  Where path() const {
    Where at = where_;
    for (const auto& f : *frames_) {
      if (f.array)
        at = at / f.index;
      else if (f.key_pending)
        at = at / f.key;
      else
        break;
    }
    return at;
  }

 private:
  struct Frame {
    bool array;
    std::size_t index;
    std::string key;
    bool key_pending;  // the key is read, its value not yet
    std::set<std::string> keys;
  };

  void key(const std::string& name) {
    Frame& object = frames_->back();
    object.key = name;
    object.key_pending = true;
    if (!object.keys.insert(name).second)
      path().fail("duplicate key '" + name + "': the object gives it twice (JSON keys must be unique)");
  }

  void element_done() {
    if (frames_->empty()) return;
    Frame& f = frames_->back();
    if (f.array)
      ++f.index;
    else
      f.key_pending = false;
  }

  Where where_;
  std::shared_ptr<std::vector<Frame>> frames_;
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

std::string position_of(const std::string& text, std::size_t offset) {
  const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
  const auto last_newline = offset == 0 ? std::string::npos : text.rfind('\n', offset - 1);
  const auto column = offset - (last_newline == std::string::npos ? 0 : last_newline + 1) + 1;
  return position(static_cast<std::size_t>(line), column);
}

// The path of the value the parser is in at `offset`: the text before it parsed (it fails
// there, having followed the document that far).
Where path_at(const std::string& text, std::size_t offset, const Where& where) {
  PathTracker tracker(where);
  try {
    [[maybe_unused]] const Json prefix = Json::parse(text.substr(0, offset), tracker);
  } catch (const Json::exception&) {
  } catch (const InputError&) {
  }
  return tracker.path();
}

Json parse_checked(const std::string& text, const Where& where) {
  if (const std::size_t nul = check_bounds(text, where); nul != std::string::npos)
    path_at(text, nul, where)
        .fail("a NUL byte at " + position_of(text, nul) + ": JSON text holds none (in a string, write \\u0000)");
  PathTracker tracker(where);
  try {
    return Json::parse(text, tracker);
  } catch (const Json::parse_error& e) {
    const auto offset = std::min(text.size(), static_cast<std::size_t>(e.byte > 0 ? e.byte - 1 : 0));
    tracker.path().fail("malformed JSON at " + position_of(text, offset) + ": " + parse_error_reason(e));
  } catch (const Json::exception& e) {  // a number too large for a double, say
    tracker.path().fail("malformed JSON: " + parse_error_reason(e));
  }
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

Json parse_json_text(const std::string& text, const std::string& file) { return parse_checked(text, Where(file)); }

std::optional<Json> parse_json_value(const std::string& text, const Where& where) {
  if (const std::size_t nul = check_bounds(text, where); nul != std::string::npos)
    where.fail("a NUL byte at " + position_of(text, nul) + ": JSON text holds none");
  try {
    return Json::parse(text, PathTracker(where));
  } catch (const Json::exception&) {
    return std::nullopt;
  }
}

}  // namespace torsim
