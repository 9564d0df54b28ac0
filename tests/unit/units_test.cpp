#include <catch2/catch.hpp>

#include "sim/config/units.hpp"

using namespace torsim;

TEST_CASE("sizes parse with SI and binary units", "[units]") {
  CHECK(parse_quantity("4KiB", Quantity::size, "B") == 4096);
  CHECK(parse_quantity("4KB", Quantity::size, "B") == 4000);
  CHECK(parse_quantity("1.5 MiB", Quantity::size, "B") == 1572864);
  CHECK(parse_quantity("64", Quantity::size, "B") == 64);
  CHECK(parse_quantity("2", Quantity::size, "KiB") == 2048);
  CHECK_FALSE(parse_quantity("4 kilobytes", Quantity::size, "B"));
  CHECK_FALSE(parse_quantity("KiB", Quantity::size, "B"));
  CHECK_FALSE(parse_quantity("", Quantity::size, "B"));
}

TEST_CASE("rates parse exactly, including bits per second", "[units]") {
  CHECK(parse_quantity("9.375GB/s", Quantity::rate, "GB/s") == 9375000000);
  CHECK(parse_quantity("4.68GB/s", Quantity::rate, "GB/s") == 4680000000);
  CHECK(parse_quantity("425MB/s", Quantity::rate, "GB/s") == 425000000);
  CHECK(parse_quantity("56Gb/s", Quantity::rate, "GB/s") == 7000000000);
  CHECK(parse_quantity("2", Quantity::rate, "GB/s") == 2000000000);
  CHECK_FALSE(parse_quantity("2GB", Quantity::rate, "GB/s"));
}

TEST_CASE("times parse to picoseconds with rounding", "[units]") {
  CHECK(parse_quantity("105ns", Quantity::time, "ns") == 105000);
  CHECK(parse_quantity("1.27us", Quantity::time, "ns") == 1270000);
  CHECK(parse_quantity("0.0004ps", Quantity::time, "ns") == 0);
  CHECK(parse_quantity("1.5ps", Quantity::time, "ns") == 2);
  CHECK(parse_quantity("1e3ns", Quantity::time, "ns") == 1000000);
  CHECK(parse_quantity("3", Quantity::time, "ns") == 3000);
  CHECK_FALSE(parse_quantity("3 parsecs", Quantity::time, "ns"));
  CHECK_FALSE(parse_quantity("1e30s", Quantity::time, "ns"));  // overflows int64 picoseconds
}

TEST_CASE("sizes are whole bytes and times whole picoseconds", "[units]") {
  CHECK(whole_in_base_units("1.5KiB", Quantity::size, "B"));
  CHECK(whole_in_base_units("1.27us", Quantity::time, "ns"));
  CHECK(whole_in_base_units("0.001ns", Quantity::time, "ns"));
  CHECK(whole_in_base_units("1e-3", Quantity::time, "ns"));
  CHECK_FALSE(whole_in_base_units("0.4B", Quantity::size, "B"));
  CHECK_FALSE(whole_in_base_units("1.5B", Quantity::size, "B"));
  CHECK_FALSE(whole_in_base_units("0.4ps", Quantity::time, "ns"));
  CHECK_FALSE(whole_in_base_units("1e-40s", Quantity::time, "ns"));
  CHECK(whole_in_base_units("1.5B/s", Quantity::rate, "GB/s"));  // rates may have fractions
  CHECK(whole_in_base_units(1.27, Quantity::time, "us"));
  CHECK(whole_in_base_units(0.1, Quantity::time, "ns"));
  CHECK_FALSE(whole_in_base_units(0.0004, Quantity::time, "ns"));
  CHECK_FALSE(whole_in_base_units(2.5, Quantity::size, "B"));
}

TEST_CASE("numbers scale from the declared unit", "[units]") {
  CHECK(scale_to_base(1.27, Quantity::time, "us") == 1270000);
  CHECK(scale_to_base(0.1, Quantity::time, "ns") == 100);
  CHECK_FALSE(scale_to_base(-1, Quantity::time, "ns"));
}

TEST_CASE("quantities format readably", "[units]") {
  CHECK(format_size(4096) == "4KiB");
  CHECK(format_size(100) == "100B");
  CHECK(format_rate(9375000000) == "9.375GB/s");
  CHECK(format_time(1270000) == "1.27us");
  CHECK(format_time(105000) == "105ns");
}
