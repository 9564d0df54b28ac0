#include "models/apps/replay/coverage.hpp"

#include <array>

namespace torsim::replay {

namespace {

using enum Support;

constexpr std::string_view kRecordedTime = "a local call: its recorded duration passes (0 without times)";
constexpr std::string_view kAsIsend = "as isend: the layer's send protocol, completion when the buffer is free";
constexpr std::string_view kCollective =
    "the layer's collectives on the world communicator (native where it has them: BG/P tree and barrier "
    "networks, BG/Q class routes, VIA RDMA slots), models/collectives over the layer's messages on other "
    "communicators";
constexpr std::string_view kAlgorithms =
    "models/collectives' algorithm over the layer's two-sided messages (MPICH's: see docs/models/collectives.md)";
constexpr std::string_view kGroupCall = "a local call: the group's ranks are computed, its recorded duration passes";
constexpr std::string_view kTest =
    "a test the recording saw succeed completes the request (waiting for it if the replay has not finished it); "
    "one that failed changes nothing; time-independent traces: the request is left for its wait";

// In CallType order (trace.hpp).
constexpr std::array<Coverage, kCallTypes> kCoverage = {{
    {approximated, "its recorded duration passes (start-up, not the network)"},  // init
    {approximated, "its recorded duration passes"},                              // finalize
    {approximated, kRecordedTime},                                               // comm_rank
    {approximated, kRecordedTime},                                               // comm_size
    {modelled, "isend, then wait: the layer's eager or rendezvous protocol; sizes from counts x datatype sizes"},
    {approximated, "as isend without the wait: the copy into the attached buffer is not charged"},  // bsend
    {approximated, "as send: completes when the layer frees the buffer, not when the receive has matched"},
    {approximated, "as send (a ready send needs no handshake in any layer modelled)"},  // rsend
    {modelled, "the layer's send protocol; tags kept apart per communicator"},          // isend
    {approximated, kAsIsend},                                                           // ibsend
    {approximated, "as isend: completes when the buffer is free, not when the receive has matched"},
    {approximated, kAsIsend},                                                                // irsend
    {modelled, "irecv, then wait: matched by source and tag (wildcards too) in the layer"},  // recv
    {modelled, "matched by source and tag (wildcards too) in the layer, in posting order"},  // irecv
    {modelled, "irecv and isend together, both awaited"},                                    // sendrecv
    {modelled, "irecv and isend together, both awaited"},                                    // sendrecv_replace
    {approximated,
     "the probed message is received at the probe (a rendezvous moves its data then) and handed to the receive "
     "that follows"},                                                                         // probe
    {approximated, "as probe where the recording saw a message; nothing where it saw none"},  // iprobe
    {modelled, "a persistent request: each start posts an isend"},                            // send_init
    {modelled, "a persistent request: each start posts an irecv"},                            // recv_init
    {modelled, "posts the persistent request's operation"},                                   // start
    {modelled, "posts each persistent request's operation"},                                  // startall
    {modelled, "the request is forgotten; its operation completes unobserved"},               // request_free
    {unsupported, "its recorded duration passes; the operation is not cancelled"},            // cancel
    {modelled, "waits for the request's completion in the layer"},                            // wait
    {modelled, "waits for every request in turn"},                                            // waitall
    {approximated,
     "waits for the request the recording says completed, so the replay follows the recorded control flow "
     "(without a record: the first one listed)"},  // waitany
    {approximated,
     "waits for the requests the recording says completed (without a record: the first listed, then any "
     "done)"},                                                                            // waitsome
    {approximated, kTest},                                                                // test
    {approximated, kTest},                                                                // testall
    {approximated, kTest},                                                                // testany
    {approximated, kTest},                                                                // testsome
    {modelled, kCollective},                                                              // barrier
    {modelled, kCollective},                                                              // bcast
    {modelled, kCollective},                                                              // reduce
    {modelled, kCollective},                                                              // allreduce
    {modelled, kCollective},                                                              // gather
    {modelled, kAlgorithms},                                                              // gatherv
    {modelled, kAlgorithms},                                                              // scatter
    {modelled, kAlgorithms},                                                              // scatterv
    {modelled, kAlgorithms},                                                              // allgather
    {modelled, kAlgorithms},                                                              // allgatherv
    {modelled, kCollective},                                                              // alltoall
    {modelled, kAlgorithms},                                                              // alltoallv
    {unsupported, "its recorded duration passes (datatypes per peer are not modelled)"},  // alltoallw
    {modelled, kAlgorithms},                                                              // reduce_scatter
    {modelled, kAlgorithms},                                                              // reduce_scatter_block
    {modelled, kAlgorithms},                                                              // scan
    {modelled, kAlgorithms},                                                              // exscan
    {approximated,
     "the parent's ranks; MPICH's context-id agreement, an allreduce of 256 B over the parent, is its "
     "cost"},  // comm_dup
    {approximated,
     "members by colour, ordered by key; an allgather of colour and key (8 B a rank) and the context-id "
     "allreduce over the parent are its cost"},                                                 // comm_split
    {approximated, "the group's ranks; the context-id allreduce over the parent is its cost"},  // comm_create
    {approximated, "a local call: its recorded duration passes; the context is reused once every member freed it"},
    {approximated, kGroupCall},                                             // comm_group
    {approximated, kGroupCall},                                             // group_incl
    {approximated, kGroupCall},                                             // group_excl
    {approximated, kGroupCall},                                             // group_range_incl
    {approximated, kGroupCall},                                             // group_range_excl
    {approximated, kGroupCall},                                             // group_union
    {approximated, kGroupCall},                                             // group_intersection
    {approximated, kGroupCall},                                             // group_difference
    {approximated, kGroupCall},                                             // group_free
    {approximated, "as comm_dup (no reordering; every rank in the grid)"},  // cart_create
    {unsupported,
     "its recorded duration passes: the grid it splits is not in the record (a trace that defines its "
     "communicators, OTF2, still gives the new one's ranks)"},  // cart_sub
    {modelled, "its flops at the flop rate (workload.flop_rate or the machine's compute.flop), on the core"},
    {modelled, "the rank waits, its core idle"},    // sleep
    {unsupported, "its recorded duration passes"},  // other
}};

}  // namespace

std::string_view support_name(Support support) {
  switch (support) {
    case modelled:
      return "modelled";
    case approximated:
      return "approximated";
    case unsupported:
      return "unsupported";
  }
  return "unsupported";
}

const Coverage& coverage(CallType type) { return kCoverage[static_cast<std::size_t>(type)]; }

}  // namespace torsim::replay
