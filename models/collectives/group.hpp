// Collectives over a group of ranks (an MPI communicator other than the whole job): the same
// algorithms, numbered 0..size-1 over the group's members, over the layer's two-sided
// messages. Their tags come from a space of their own, one context per group, so a group's
// collective messages never match the whole job's, another group's, or any user message.
#pragma once

#include <vector>

#include "models/collectives/point_to_point.hpp"

namespace torsim::coll {

/// Tags of group collectives: kGroupCollectiveTag | context << kGroupSequenceBits | sequence,
/// above the tags next_collective_tag hands out (kFirstCollectiveTag + 0 .. 2^29 - 1).
inline constexpr rt::Tag kGroupCollectiveTag = rt::kFirstCollectiveTag | (1 << 29);
inline constexpr int kGroupSequenceBits = 19;
inline constexpr int kGroupContexts = 1 << (29 - kGroupSequenceBits);

/// A group's members in its own numbering: member i is job rank `members[i]`. `context`
/// (0 .. kGroupContexts - 1) tells its collectives' messages apart from other groups'.
struct Group {
  std::vector<Rank> members;
  int context = 0;
  int size() const { return static_cast<int>(members.size()); }
};

/// One member's messages in one collective call over a group: ranks are the group's
/// numbering; `sequence` is this member's count of collective phases on the group (kept by
/// the caller, one per member and group; every member calls the group's collectives in the
/// same order, so the tags agree).
class GroupChannel final : public PointToPoint {
 public:
  GroupChannel(Comm job_rank, const Group& group, int index, std::uint32_t& sequence)
      : c_(job_rank), group_(group), index_(index), sequence_(sequence), tag_(next_tag()) {}
  Rank rank() const override { return index_; }
  int size() const override { return group_.size(); }
  Request irecv(Rank src) override { return c_.irecv(member(src), tag_); }
  Task<Request> isend(Rank dst, Bytes bytes, std::uint64_t word) override {
    return c_.isend(member(dst), bytes, tag_, word);
  }
  Task<> combine(Bytes bytes) override { return c_.compute(c_.layer().reduce_time(bytes)); }
  void next_phase() override { tag_ = next_tag(); }
  Task<> finish(Bytes) override { co_return; }

 private:
  Rank member(Rank index) const { return group_.members[static_cast<std::size_t>(index)]; }
  rt::Tag next_tag() {
    const std::uint32_t phase = sequence_++ % (1u << kGroupSequenceBits);
    return kGroupCollectiveTag | group_.context << kGroupSequenceBits | static_cast<rt::Tag>(phase);
  }
  Comm c_;
  const Group& group_;
  int index_;
  std::uint32_t& sequence_;
  rt::Tag tag_;
};

}  // namespace torsim::coll
