#include <catch2/catch.hpp>

#include "models/machine.hpp"
#include "sim/config/provenance.hpp"

using namespace torsim;

TEST_CASE("a citation's tag gives its source class; a calibration point takes precedence", "[provenance]") {
  CHECK(classify_source("[C] 16 application cores: Kerbyson et al.").label() == "cited");
  CHECK(classify_source("[D] ten incoming links: 10 x 2 GB/s").label() == "cited");
  CHECK(classify_source("[C a simulator's calibration] NIC tx 50 ns").label() == "cited");
  CHECK(classify_source("[C-code] PAMI mu2/global/ResourceManager.h").label() == "read in code");
  CHECK(classify_source("[E] GNI_SmsgSendWTag; assumption").label() == "assumption");
  CHECK(classify_source("[assumption] dimension order").label() == "assumption");
  // Any part said to be assumed makes the whole an assumption.
  CHECK(classify_source("[C-code] 12 KB vbufs in MVAPICH 1.2; MVAPICH2's not found, assumed the same").label() ==
        "assumption");
  CHECK(classify_source("[D] same NIC rate as injection (assumed symmetric)").label() == "assumption");
  CHECK(classify_source("[D] calibrated: 8 B in 2.75 us, the middle of what is quoted ([E], unconfirmed)").label() ==
        "assumption");
  const Provenance calibrated = classify_source(
      "[D] calibrated: 1.27 us measured (calibration point K2); that it splits evenly is an assumption");
  CHECK(calibrated.source_class == SourceClass::calibrated);
  CHECK(calibrated.calibration_point == "K2");
  CHECK(calibrated.label() == "calibrated on K2");
  CHECK(classify_source("VIA latency (calibration point KV1)").label() == "calibrated on KV1");
  CHECK(classify_source("-").label() == "structural");
  CHECK(classify_source("- the Blue Gene/Q message unit").label() == "structural");
  CHECK(classify_source("").label() == "unsourced");
  CHECK(classify_source("a note without a tag").label() == "unsourced");
}

TEST_CASE("a machine parameter's citation is its own, its list-free path's, or the nearest enclosing one",
          "[provenance]") {
  const Json machine = {{"sources",
                         {{"nic.bte_setup", "[E] set-up"},
                          {"topology.dims.link_latency", "[C] per hop"},
                          {"node.modes", "[C] SMP, DUAL, VN"}}}};
  CHECK(machine_citation(machine, "nic.bte_setup") == "[E] set-up");
  CHECK(machine_citation(machine, "topology.dims.2.link_latency") == "[C] per hop");
  CHECK(machine_citation(machine, "node.modes.VN") == "[C] SMP, DUAL, VN");
  CHECK(machine_citation(machine, "nic.cq_poll_cpu").empty());
}

TEST_CASE("a read log notes the values handed out while it exists, not while paused", "[provenance]") {
  constexpr ParamSpec specs[] = {{"a", ParamKind::integer, "1", "", "", "", "a", "[E] guessed"},
                                 {"b", ParamKind::integer, "2", "", "", "", "b", "preset"}};
  const ParamTable table{"t", "t", specs};
  const Json object = {{"a", 5}};
  const ParamReader r(object, Where("f", "/machine/x"), table);
  ReadLog log;
  CHECK(r.integer("a") == 5);
  {
    ReadLog::Pause pause;
    CHECK(r.integer("b") == 2);
  }
  REQUIRE(log.reads().size() == 1);
  const ParamRead& a = log.reads().at("/machine/x/a");
  CHECK(a.given);
  CHECK(a.table_source == "[E] guessed");
  CHECK(r.integer("b") == 2);
  CHECK_FALSE(log.reads().at("/machine/x/b").given);
  CHECK(log.reads().at("/machine/x/b").default_value == "2");
}
