#include "cli/bench_table.hpp"

#include <cmath>
#include <cstdio>

namespace torsim {

namespace {

using Json = nlohmann::json;

// A whole number with thousands separated: 1,048,576.
std::string count(double value) {
  std::string digits = std::to_string(static_cast<long long>(std::llround(value)));
  for (auto at = static_cast<std::ptrdiff_t>(digits.size()) - 3; at > (digits[0] == '-' ? 1 : 0); at -= 3)
    digits.insert(static_cast<std::size_t>(at), ",");
  return digits;
}
std::string count(const Json& value) { return count(value.get<double>()); }

// Three significant digits, without an exponent: 0.243, 61.2, 6,240.
std::string readable(double value) {
  if (std::fabs(value) >= 999.5) {
    const double unit = std::pow(10.0, std::floor(std::log10(std::fabs(value))) - 2);
    return count(std::round(value / unit) * unit);
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}
std::string readable(const Json& value) { return readable(value.get<double>()); }
std::string millions(const Json& value) { return readable(value.get<double>() / 1e6); }

std::string core_share(const Json& figures) { return percent_of_a_core(figures["core_share"]); }

// One row of the main table: figure | target | measured | baseline in the same run | command.
void row(std::ostream& out, const std::string& figure, const std::string& target, const std::string& measured,
         const std::string& baseline, const std::string& command) {
  out << "| " << figure << " | " << target << " | " << measured << " | " << baseline << " | `" << command << "` |\n";
}

void kernel_row(const Json& k, const std::string& command, std::ostream& out) {
  row(out,
      "kernel events/s (" + count(k["events"]) + " events: wake-ups of " + count(k["processes"]) +
          " coroutine processes)",
      ">= 5 M/s", "**" + millions(k["events_per_s"]) + " M/s** (" + core_share(k) + ")",
      "`std::priority_queue` doing the same pushes and pops: " + millions(k["baseline_heap_ops_per_s"]) +
          " M ops/s (kernel " + readable(k["ratio_to_baseline"]) + "x)",
      command);
}

// Every run's rate in millions: "0.238, 0.236, 0.223".
std::string run_rates(const Json& model) {
  std::string runs;
  for (const auto& rate : model["runs_messages_per_s"]) runs += (runs.empty() ? "" : ", ") + millions(rate);
  return runs;
}

void random_traffic_row(const Json& m, const std::string& command, std::ostream& out) {
  const Json& packet = m["packet"];
  row(out,
      "random 4 KiB messages/s, 16x16x16 torus, packet model (" + count(packet["messages"]) +
          " messages, 4 in flight per node; median of " + std::to_string(packet["runs_messages_per_s"].size()) +
          " runs)",
      ">= 1 M/s",
      "**" + millions(packet["messages_per_s"]) + " M/s** (runs " + run_rates(packet) + "; " + core_share(packet) + ")",
      "analytic model, run alternately: " + millions(m["analytic"]["messages_per_s"]) + " M/s (packet / analytic " +
          readable(m["ratio_packet_to_analytic"]) + ")",
      command);
}

// The same traffic with credit flow control, against the packet model without it (same run).
void credit_traffic_row(const Json& m, const std::string& command, std::ostream& out) {
  const Json& credit = m["credit"];
  row(out, "random 4 KiB messages/s, the same traffic on the packet model with credit flow control", ">= 0.5 M/s",
      "**" + millions(credit["messages_per_s"]) + " M/s** (runs " + run_rates(credit) + "; " + core_share(credit) + ")",
      "packet model without flow control, run alternately: " + millions(m["packet"]["messages_per_s"]) +
          " M/s (credit / packet " + readable(m["ratio_credit_to_packet"]) + ")",
      command);
}

void idle_ranks_row(const Json& i, const std::string& command, std::ostream& out) {
  row(out, "memory per idle rank (" + count(i["ranks"]) + " ranks, each blocked in a receive)", "<= 1 KB",
      "**" + readable(i["bytes_per_idle_rank"]) + " B**",
      "resident set before spawning the ranks (machine, network, layer): " + readable(i["resident_before_MB"]) + " MB",
      command);
}

void nqueens_rows(const Json& runs, const std::string& command, std::ostream& out) {
  for (const auto& n : runs)
    row(out,
        "N-Queens, " + count(n["board"]) + " queens on " + count(n["ranks"]) + " cores, `" +
            n["layer"].get<std::string>() + "`: wall time, peak memory",
        "< 2 min, < 4 GB",
        "**" + readable(n["wall_s"]) + " s, " + readable(n["peak_resident_MB"].get<double>() / 1e3) + " GB** (" +
            core_share(n) + ")",
        "none; " + millions(n["events"]) + " M events (" + millions(n["events_per_s"]) + " M/s), " +
            millions(n["messages"]) + " M messages",
        command);
}

void fft_rows(const Json& runs, const std::string& command, std::ostream& out) {
  for (const auto& f : runs) {
    const bool upc = f["variant"] == "upc_slabs";
    row(out,
        "NAS FT, " + count(f["planes"]) + " planes, one iteration on " + count(f["ranks"]) + " cores, `" +
            f["variant"].get<std::string>() + "`: wall time, peak memory",
        "< 2 min, memory reported",
        "**" + readable(f["wall_s"]) + " s, " + readable(f["peak_resident_MB"].get<double>() / 1e3) + " GB** (" +
            core_share(f) + ")",
        (upc ? std::string("the baseline: ") : readable(f["rate_vs_upc_slabs"]) + "x UPC slabs' rate; ") +
            millions(f["messages"]) + " M network messages (" + millions(f["messages_per_s"]) + " M/s), " +
            millions(f["events"]) + " M events",
        command);
  }
}

// The SimGrid side-by-side: a row of the main table for the largest case, then its own table.
void simgrid_rows(const Json& cases, const std::string& command, std::ostream& out) {
  const Json& largest = cases.back();
  if (largest["packet"]["ranks"].get<int>() >= 4096)
    row(out, "packet model vs SimGrid backend: " + largest["case"].get<std::string>(), ">= 50x faster",
        "**" + readable(largest["speedup_packet_over_simgrid"]) + "x** (packet model " +
            readable(largest["packet"]["wall_s"]) + " s, " + core_share(largest["packet"]) + ")",
        "SimGrid backend, same scenario: " + readable(largest["simgrid"]["wall_s"]) + " s (" +
            core_share(largest["simgrid"]) + ")",
        command);
  out << "\n| case | ranks | messages | packet wall (s) | packet messages/s | SimGrid wall (s) | SimGrid messages/s "
         "| packet faster by |\n|---|---|---|---|---|---|---|---|\n";
  for (const auto& c : cases)
    out << "| " << c["case"].get<std::string>() << " | " << count(c["packet"]["ranks"]) << " | "
        << count(c["packet"]["messages"]) << " | " << readable(c["packet"]["wall_s"]) << " | "
        << readable(c["packet"]["messages_per_s"]) << " | " << readable(c["simgrid"]["wall_s"]) << " | "
        << readable(c["simgrid"]["messages_per_s"]) << " | " << readable(c["speedup_packet_over_simgrid"]) << "x |\n";
}

}  // namespace

std::string percent_of_a_core(const Json& core_share) {
  return std::to_string(static_cast<int>(core_share.get<double>() * 100 + 0.5)) + " % of a core";
}

void print_performance_rows(const Json& results, const std::string& command, std::ostream& out) {
  out << "| figure | target | measured | baseline in the same run | command |\n|---|---|---|---|---|\n";
  if (results.contains("kernel")) kernel_row(results["kernel"], command, out);
  if (results.contains("random_4KiB_16x16x16")) {
    random_traffic_row(results["random_4KiB_16x16x16"], command, out);
    credit_traffic_row(results["random_4KiB_16x16x16"], command, out);
  }
  if (results.contains("idle_ranks")) idle_ranks_row(results["idle_ranks"], command, out);
  if (results.contains("nqueens")) nqueens_rows(results["nqueens"], command, out);
  if (results.contains("fft")) fft_rows(results["fft"], command, out);
  if (results.contains("packet_vs_simgrid")) simgrid_rows(results["packet_vs_simgrid"], command, out);
}

}  // namespace torsim
