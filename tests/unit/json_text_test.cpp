#include <catch2/catch.hpp>

#include <string>

#include "sim/config/json_text.hpp"
#include "tests/support/input_error.hpp"

using namespace torsim;
using torsim::test::input_error_of;

TEST_CASE("JSON nested 100,000 levels deep is an error, not a stack overflow", "[json]") {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const InputError e = input_error_of([&] { parse_json_text(deep, "d.json"); });
  CHECK(e.file() == "d.json");
  CHECK(e.message() == "nested more than 64 levels deep at line 1, column 65; expected at most 64");
  const std::string inside_a_string = "{\"a\": \"" + std::string(1000, '[') + "\"}";
  CHECK(parse_json_text(inside_a_string, "s.json")["a"].get<std::string>().size() == 1000);
  const std::string just_deep_enough = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  CHECK(parse_json_text(just_deep_enough, "s.json").is_array());
}

TEST_CASE("a duplicate key is an error naming its path", "[json]") {
  const InputError e = input_error_of([] { parse_json_text(R"({"a": [1, {"b": 1, "c": 2, "b": 3}]})", "s.json"); });
  CHECK(e.path() == "/a/1/b");
  CHECK(e.message() == "duplicate key 'b': the object gives it twice (JSON keys must be unique)");
  CHECK(parse_json_text(R"({"a": {"b": 1}, "c": {"b": 2}})", "s.json")["c"]["b"] == 2);  // one per object
  CHECK(input_error_of([] { parse_json_text(R"({"x": 1, "x": 1})", "s.json"); }).path() == "/x");
}

TEST_CASE("NUL bytes are errors wherever they are", "[json]") {
  const std::string after = std::string("{\"a\": 1}\n\0\0", 11);
  CHECK(input_error_of([&] { parse_json_text(after, "s.json"); }).message() ==
        "a NUL byte at line 2, column 1: JSON text holds none (in a string, write \\u0000)");
  const std::string inside = std::string("{\"a\": \"x\0\"}", 11);
  CHECK_THAT(input_error_of([&] { parse_json_text(inside, "s.json"); }).message(),
             Catch::StartsWith("a NUL byte at line 1, column 9"));
}

TEST_CASE("malformed JSON says why, with what the parser read", "[json]") {
  const auto message = [](const std::string& text) {
    return input_error_of([&] { parse_json_text(text, "s.json"); }).message();
  };
  CHECK_THAT(message("[NaN]"), Catch::Contains("invalid literal") && Catch::Contains("NaN and Infinity are not JSON"));
  CHECK_THAT(message("[Infinity]"), Catch::StartsWith("malformed JSON at line 1, column 2: invalid literal"));
  CHECK_THAT(message("{\"a\": \"\xff\"}"), Catch::Contains("ill-formed UTF-8 byte, having read '\"\\xff'"));
  CHECK_THAT(message("{\"a\": }"), Catch::Contains("unexpected '}'"));
  CHECK(message("[1e400]") == "malformed JSON: number overflow parsing '1e400'");
}

TEST_CASE("a command-line value is JSON within the same bounds, or text", "[json]") {
  const Where where("command line", "--set a=...");
  CHECK(parse_json_value("[8, 64]", where)->size() == 2);
  CHECK_FALSE(parse_json_value("16KiB", where).has_value());
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  CHECK_THAT(input_error_of([&] { parse_json_value(deep, where); }).message(),
             Catch::StartsWith("nested more than 64"));
  CHECK(input_error_of([] { parse_json_value(R"({"a": 1, "a": 2})", Where("command line", "--set x")); }).path() ==
        "--set x/a");
}
