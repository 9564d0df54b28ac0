// PCI Express between host memory and one device (an InfiniBand HCA, a GPU): a link of its own
// with two directions, each a timeline of the transaction-layer packets (TLPs) booked on it.
//
// Bytes on the link: every TLP carries a header (16 B for a memory request with 64-bit
// addresses, 12 B for a completion), a 2 B sequence number, a 4 B LCRC and its framing (2 B up
// to gen2; a 4 B start token in gen3's 128b/130b framing), and at most `max_payload` bytes of
// data. The link moves lanes x transfer rate x coding efficiency: gen2 5 GT/s with 8b/10b is
// 500 MB/s per lane and direction, gen3 8 GT/s with 128b/130b 984.6 MB/s (PCI-SIG, PCI Express
// Base Specification 2.0 and 3.0).
//
// Three transactions, seen from the device:
//  - write_to_memory: posted memory writes (a received message's data, a completion entry):
//    TLPs towards memory; done one link latency after the last one;
//  - write_to_device: the host's posted writes into the device's registers (a doorbell, a work
//    request written by the CPU), in 64 B write-combined pieces towards the device;
//  - read_from_memory: DMA reads: read requests of at most `max_read_request` bytes towards
//    memory, answered after the root complex's and memory's latency by completions of at most
//    `max_payload` bytes towards the device. At most `read_tags` requests are outstanding, so
//    reads are also bounded by read_tags x max_read_request per round trip.
// Data link layer packets (acknowledgements, flow-control updates) are not modelled.
#pragma once

#include "models/network/link_timeline.hpp"
#include "sim/config/params.hpp"
#include "sim/core/kernel.hpp"

namespace torsim::nic {

// Every field is read by parse_pcie from its declaration in pcie.cpp, which holds the default.
struct PcieParams {
  int generation = 0;  // 1, 2 or 3
  int lanes = 0;
  Bytes max_payload = 0;
  Bytes max_read_request = 0;
  Bytes request_header = 0;
  Bytes completion_header = 0;
  Time latency = 0;       // one way, a TLP across the link and the root complex
  Time read_latency = 0;  // from a read request's arrival at the root complex to its first completion
  int read_tags = 0;
};

extern const ParamTable kPcieParams;
PcieParams parse_pcie(const ParamReader& r);

/// Bytes per second on one direction of the link (TLP bytes): lanes x rate x coding.
Rate pcie_link_rate(int generation, int lanes);
/// Per-TLP bytes besides header and data: sequence number, LCRC, framing.
Bytes pcie_tlp_overhead(int generation);

class PcieLink {
 public:
  PcieLink(const Kernel& kernel, const PcieParams& params);
  const PcieParams& params() const { return p_; }
  Rate rate() const { return rate_; }

  /// Link bytes of `bytes` of data in TLPs of at most `max_tlp` data bytes with `header`.
  Bytes tlp_bytes(Bytes bytes, Bytes max_tlp, Bytes header) const;
  /// Data bytes per second of a long write (towards memory) or read (completions): the ceiling
  /// a stream through this link cannot exceed.
  Rate write_throughput() const;
  Rate read_throughput() const;

  /// The device writes `bytes` to host memory from `from` (now or later) on: when the last
  /// byte is there.
  Time write_to_memory(Time from, Bytes bytes);
  /// The host writes `bytes` into the device from `from` on: when the last byte is there.
  Time write_to_device(Time from, Bytes bytes);
  /// The device reads `bytes` of host memory, asking at `from`: when the last byte is in.
  Time read_from_memory(Time from, Bytes bytes);

  /// Time booked so far in each direction.
  Time busy_to_memory() const { return to_memory_.busy(); }
  Time busy_to_device() const { return to_device_.busy(); }

 private:
  Time book(net::LinkTimeline& direction, Time from, Bytes link_bytes);

  const Kernel& kernel_;
  PcieParams p_;
  Rate rate_;
  Bytes overhead_;
  Time round_trip_;  // request out, memory, completion back: the read-tag bound's period
  net::LinkTimeline to_memory_, to_device_;
};

}  // namespace torsim::nic
