// The point-to-point interface the collective algorithms are written against: one rank's
// messages within one collective call. A messaging layer's two-sided send/receive is one
// implementation (TwoSided, below); a layer with its own transport for collectives (RDMA
// writes into pre-registered slots, say) is another, and runs the same algorithms.
#pragma once

#include <cstdint>

#include "models/messaging/messaging.hpp"

namespace torsim::coll {

using rt::Comm;
using rt::Rank;
using rt::Request;

class PointToPoint {
 public:
  virtual ~PointToPoint() = default;
  virtual Rank rank() const = 0;
  virtual int size() const = 0;
  /// Expects the message `src` sends this rank in the current phase; the request completes
  /// when it is in, and its envelope carries the size and the word.
  virtual Request irecv(Rank src) = 0;
  /// Sends `bytes`, standing for `word`, to `dst` in the current phase. Returns once this
  /// rank's core has done its part; the request completes when the send buffer may be reused.
  virtual Task<Request> isend(Rank dst, Bytes bytes, std::uint64_t word) = 0;
  /// Combines `bytes` of received operands with this rank's own (a reduction's arithmetic).
  virtual Task<> combine(Bytes bytes) = 0;
  /// Starts the next phase of a composite algorithm (a reduce, then a broadcast): messages of
  /// different phases never match each other.
  virtual void next_phase() = 0;
  /// The call is over and this rank holds `result_bytes` of result: a channel whose messages
  /// land outside the user's buffer (registered slots) copies them out here.
  virtual Task<> finish(Bytes result_bytes) = 0;
};

/// The collectives over a messaging layer's two-sided isend/irecv, with one collective tag per
/// phase; combining costs the layer's reduce_time on the rank's core.
class TwoSided final : public PointToPoint {
 public:
  explicit TwoSided(Comm c) : c_(c), tag_(c.layer().next_collective_tag(c.rank())) {}
  Rank rank() const override { return c_.rank(); }
  int size() const override { return c_.size(); }
  Request irecv(Rank src) override { return c_.irecv(src, tag_); }
  Task<Request> isend(Rank dst, Bytes bytes, std::uint64_t word) override { return c_.isend(dst, bytes, tag_, word); }
  Task<> combine(Bytes bytes) override { return c_.compute(c_.layer().reduce_time(bytes)); }
  void next_phase() override { tag_ = c_.layer().next_collective_tag(c_.rank()); }
  Task<> finish(Bytes) override { co_return; }  // received straight into the user's buffer

 private:
  Comm c_;
  rt::Tag tag_;
};

}  // namespace torsim::coll
