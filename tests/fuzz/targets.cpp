#include "tests/fuzz/targets.hpp"

#include <cstdlib>
#include <stdexcept>
#include <string>

#include <unistd.h>
#include <fstream>

#include "models/apps/replay/trace.hpp"
#include "run/scenario.hpp"
#include "run/simulation.hpp"
#include "run/trace.hpp"
#include "sim/config/units.hpp"

namespace torsim::fuzz {

namespace {

[[noreturn]] void bug(const std::string& what) {
  // An abort is what libFuzzer and the replaying unit test report, with the input.
  std::fprintf(stderr, "fuzz target: %s\n", what.c_str());
  std::abort();
}

}  // namespace

void load_scenario(std::string_view text) {
  try {
    const Json doc = parse_json_text(std::string(text), "fuzz.json");
    const Scenario scenario(doc, "fuzz.json");
    const auto points = scenario.points();
    for (const auto& point : points) {
      try {
        const Simulation sim(point.doc, Where(scenario.file()), scenario.seed());
        const Json output = point.doc.value("output", Json::object());
        if (const auto trace = trace_settings(output, Where(scenario.file()) / "output", "")) {
          trace->check_points(points.size());
          trace->check(sim.job());
        }
      } catch (const InputError& e) {
        scenario.reraise(e);
      }
    }
  } catch (const InputError&) {
    // Bad input, reported as it should be.
  } catch (const std::exception& e) {
    bug(std::string("an exception other than an input error: ") + e.what());
  }
}

void parse_units(std::string_view text) {
  for (const Quantity q : {Quantity::size, Quantity::rate, Quantity::time}) {
    for (const std::string_view bare : {"", "B", "ns", "GB/s"}) {
      const auto value = parse_quantity(text, q, bare);
      if (!value) continue;
      if (*value < 0) bug("a negative quantity");
      // Formatting keeps three decimals of the unit it picks: parsing it back is within 0.05 %.
      const std::string formatted = q == Quantity::size   ? format_size(*value)
                                    : q == Quantity::rate ? format_rate(*value)
                                                          : format_time(*value);
      const auto again = parse_quantity(formatted, q, "");
      if (!again) bug("'" + formatted + "' (formatted) does not parse");
      const double error = std::abs(static_cast<double>(*again) - static_cast<double>(*value));
      if (error > 0.0005 * static_cast<double>(*value) + 1) bug("'" + formatted + "' is not the value it formats");
    }
  }
}

namespace {

// The readers map files: the input goes into a file of this process's own.
std::string input_file(std::string_view content, const char* suffix) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string path =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/torsim-fuzz-" + std::to_string(::getpid()) + suffix;
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(content.data(), static_cast<std::streamsize>(content.size()));
  return path;
}

void read_trace(std::string_view content, const char* suffix, replay::Format format) {
  const std::string path = input_file(content, suffix);
  try {
    const auto trace = replay::open_trace(path, format, Where("fuzz"));
    replay::Call call;
    for (std::int32_t r = 0; r < trace->ranks(); ++r) {
      auto cursor = trace->cursor(r);
      while (cursor->next(call)) {
        if (call.bytes < 0 && call.type != replay::CallType::other) bug("a negative size decoded");
      }
    }
  } catch (const InputError&) {
    // Bad input, reported as it should be.
  } catch (const std::exception& e) {
    std::remove(path.c_str());
    bug(std::string("an exception other than an input error: ") + e.what());
  }
  std::remove(path.c_str());
}

}  // namespace

void read_dumpi(std::string_view bytes) { read_trace(bytes, ".bin", replay::Format::dumpi); }

void read_ti(std::string_view text) { read_trace(text, ".txt", replay::Format::time_independent); }

}  // namespace torsim::fuzz
