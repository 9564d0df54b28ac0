#include "models/nic/pcie.hpp"
#include "sim/config/fields.hpp"

#include <algorithm>

namespace torsim::nic {

namespace {

using P = PcieParams;
constexpr Field<P> kFields[] = {
    bind<&P::generation>({"generation", ParamKind::integer, kRequired, "", "1", "3",
                          "1: 2.5 GT/s per lane, 8b/10b; 2: 5 GT/s, 8b/10b; 3: 8 GT/s, 128b/130b",
                          "[C] PCI-SIG, PCI Express Base Specification 2.0 and 3.0"}),
    bind<&P::lanes>({"lanes", ParamKind::integer, kRequired, "", "1", "32", "link width (x8, x16)", "preset"}),
    bind<&P::max_payload>({"max_payload", ParamKind::size, "256B", "B", "128B", "4KiB",
                           "maximum payload size of a TLP (MPS), as the root complex and device negotiated",
                           "[E] 128 or 256 B on servers of the time; assumption"}),
    bind<&P::max_read_request>({"max_read_request", ParamKind::size, "512B", "B", "128B", "4KiB",
                                "maximum read request size (MRRS)", "[E] the common default; assumption"}),
    bind<&P::request_header>({"request_header", ParamKind::size, "16B", "B", "12B", "16B",
                              "header of a memory request TLP: 4 double words with 64-bit addresses",
                              "[C] PCI Express Base Specification"}),
    bind<&P::completion_header>({"completion_header", ParamKind::size, "12B", "B", "12B", "12B",
                                 "header of a completion TLP: 3 double words", "[C] PCI Express Base Specification"}),
    bind<&P::latency>({"latency", ParamKind::time, kRequired, "ns", "0ns", "100us",
                       "one-way latency of a TLP across the link and the root complex", "preset"}),
    bind<&P::read_latency>({"read_latency", ParamKind::time, kRequired, "ns", "0ns", "100us",
                            "from a read request's arrival at the root complex to its first completion (memory access)",
                            "preset"}),
    bind<&P::read_tags>(
        {"read_tags", ParamKind::integer, "32", "", "1", "2048", "read requests a device keeps outstanding",
         "[C] a 5-bit tag field allows 32 without the extended-tag option (PCI Express Base Specification); "
         "assumption that the option is off"}),
};
constexpr auto kSpecs = specs_of(kFields);

}  // namespace

const ParamTable kPcieParams{"machine.nic.pcie", "PCI Express link between host memory and a device.", kSpecs};

PcieParams parse_pcie(const ParamReader& r) { return parse_fields(r, kFields); }

// Transfer rate per lane in GT/s times the coding's data bits per transferred bits, over 8.
Rate pcie_link_rate(int generation, int lanes) {
  const std::int64_t transfers = generation == 1 ? 2'500'000'000 : generation == 2 ? 5'000'000'000 : 8'000'000'000;
  const std::int64_t data_bits = generation <= 2 ? 8 : 128;
  const std::int64_t coded_bits = generation <= 2 ? 10 : 130;
  return lanes * transfers * data_bits / (coded_bits * 8);
}

// Sequence number (2 B) and LCRC (4 B), and the framing: STP and END symbols (1 B each) with
// 8b/10b; gen3's 4 B STP token.
Bytes pcie_tlp_overhead(int generation) { return 2 + 4 + (generation <= 2 ? 2 : 4); }

PcieLink::PcieLink(const Kernel& kernel, const PcieParams& params)
    : kernel_(kernel),
      p_(params),
      rate_(pcie_link_rate(params.generation, params.lanes)),
      overhead_(pcie_tlp_overhead(params.generation)),
      round_trip_(2 * params.latency + params.read_latency) {}

Bytes PcieLink::tlp_bytes(Bytes bytes, Bytes max_tlp, Bytes header) const {
  const Bytes tlps = std::max<Bytes>(1, (bytes + max_tlp - 1) / max_tlp);
  return bytes + tlps * (header + overhead_);
}

Rate PcieLink::write_throughput() const {
  return static_cast<Rate>(Int128{rate_} * p_.max_payload / (p_.max_payload + p_.request_header + overhead_));
}

Rate PcieLink::read_throughput() const {
  const auto link =
      static_cast<Rate>(Int128{rate_} * p_.max_payload / (p_.max_payload + p_.completion_header + overhead_));
  if (round_trip_ == 0) return link;
  const auto tagged = static_cast<Rate>(Int128{p_.read_tags} * p_.max_read_request * kSecond / round_trip_);
  return std::min(link, tagged);
}

Time PcieLink::book(net::LinkTimeline& direction, Time from, Bytes link_bytes) {
  direction.forget_before(kernel_.now());
  const Time duration = transfer_time(link_bytes, rate_);
  const auto plan = direction.plan(from, duration);
  direction.book(plan);
  direction.add_busy(duration);
  return plan.end;
}

Time PcieLink::write_to_memory(Time from, Bytes bytes) {
  return book(to_memory_, from, tlp_bytes(bytes, p_.max_payload, p_.request_header)) + p_.latency;
}

Time PcieLink::write_to_device(Time from, Bytes bytes) {
  constexpr Bytes kWriteCombined = 64;  // the CPU's write-combining buffer
  return book(to_device_, from, tlp_bytes(bytes, std::min(kWriteCombined, p_.max_payload), p_.request_header)) +
         p_.latency;
}

// The requests go out as one burst; the completions can start once the first request has
// crossed and memory has answered, and stream at the lower of the link's rate and the
// read-tag bound (read_tags requests per round trip).
Time PcieLink::read_from_memory(Time from, Bytes bytes) {
  const Bytes requests = std::max<Bytes>(1, (bytes + p_.max_read_request - 1) / p_.max_read_request);
  const Bytes request_bytes = p_.request_header + overhead_;
  const Time requests_sent = book(to_memory_, from, requests * request_bytes);
  const Time first_request_sent = requests_sent - transfer_time((requests - 1) * request_bytes, rate_);
  const Time answered = first_request_sent + p_.latency + p_.read_latency;
  const Bytes completion_bytes = tlp_bytes(bytes, p_.max_payload, p_.completion_header);
  to_device_.forget_before(kernel_.now());
  Time duration = transfer_time(completion_bytes, rate_);
  if (round_trip_ > 0)
    duration = std::max(duration,
                        static_cast<Time>(Int128{bytes} * round_trip_ / (Int128{p_.read_tags} * p_.max_read_request)));
  const auto plan = to_device_.plan(answered, duration);
  to_device_.book(plan);
  to_device_.add_busy(transfer_time(completion_bytes, rate_));
  return plan.end + p_.latency;
}

}  // namespace torsim::nic
