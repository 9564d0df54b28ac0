// MPI communicators and groups of a replayed trace, as rank lists. A communicator is a
// coll::Group (its members' job ranks, in communicator order, and a context that keeps its
// messages apart); each rank knows its communicators by the handles its trace uses.
//
// Creating one is collective over its parent: every member deposits what it passed (split's
// colour and key, create's group), and the first member to come out of the creation's
// collective builds the new communicators for all (every member has deposited by then, since
// no collective completes anywhere before every rank has entered it).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "models/apps/replay/trace.hpp"
#include "models/collectives/group.hpp"

namespace torsim::replay {

using rt::Rank;

/// A rank's view of one of its communicators.
struct Membership {
  std::int32_t handle = kNone;  // the trace's id for it on this rank
  std::uint32_t comm = 0;       // index in Communicators
  std::int32_t index = 0;       // this rank's rank in it
  std::uint32_t sequence = 0;   // collective phases it ran on it (coll::GroupChannel)
  std::uint32_t creations = 0;  // communicators it created from it (to pair them up)
};

/// Members of a group, as job ranks, shared between the handles that name the same list.
using Members = std::shared_ptr<const std::vector<Rank>>;

class Communicators {
 public:
  /// Contexts 0 and 1 are the world's and self's; others go round 2 .. kContexts - 1.
  static constexpr int kContexts = 256;
  static constexpr std::uint32_t kWorld = 0;

  Communicators(const Trace& trace, int ranks);

  const coll::Group& group(std::uint32_t comm) const { return comms_[comm]->group; }
  /// Rank `r`'s membership of the communicator it calls `handle`; nullptr if it has none by
  /// that handle (never created, freed, or MPI_COMM_NULL).
  Membership* find(Rank r, std::int32_t handle);
  /// A group's members by its handle on rank `r`; nullptr if unknown.
  const Members* find_group(Rank r, std::int32_t handle);

  // --- Creation, in three steps per member: deposit, (the creation's collective), collect.
  enum class Kind : std::uint8_t { dup, split, create };
  struct Deposit {
    Kind kind = Kind::dup;
    std::int32_t color = kNone, key = 0;
    Members group;  // create: the members of the new communicator
  };
  /// Leaves what a member of `parent` passed to a creation from it; returns the creation's id.
  std::uint64_t deposit(Membership& parent, const Deposit& what);
  /// The communicator `r` (a member of `parent`) gets from creation `id` (built when the first
  /// member collects), made known to `r` as `new_handle`; false if `r` is in none (split's
  /// MPI_UNDEFINED, create's non-members). Invalidates `r`'s other Membership pointers.
  bool collect(Rank r, const Membership& parent, std::uint64_t id, std::int32_t new_handle);
  /// MPI_Comm_free by `r`: the handle goes; the context returns once every member freed it.
  void free(Rank r, std::int32_t handle);

  // --- Groups (local: no communication).
  void define_group(Rank r, std::int32_t handle, Members members);
  void free_group(Rank r, std::int32_t handle);
  /// The members of communicator `comm`, as a group.
  Members members_of(std::uint32_t comm) const { return comms_[comm]->members; }

  /// Communicators that had to share a context with another one alive (more than
  /// kContexts - 2 alive at once): their messages could match each other's.
  std::int64_t shared_contexts() const { return shared_contexts_; }
  std::int64_t created() const { return static_cast<std::int64_t>(comms_.size()); }

 private:
  struct Communicator {
    coll::Group group;
    Members members;
    int alive = 0;  // members that have not freed it
  };
  struct Creation {
    std::uint32_t parent = 0;
    std::vector<Deposit> deposits;  // by rank in the parent
    int deposited = 0, collected = 0;
    // By rank in the parent: the communicator it is in and its rank there, or kNone.
    std::vector<std::pair<std::int32_t, std::int32_t>> results;
  };
  struct RankTables {
    std::vector<Membership> comms;  // beyond the world's and self's
    std::vector<std::pair<std::int32_t, Members>> groups;
  };
  std::uint32_t add(Members members);
  int take_context();
  void build(Creation& c);
  void build_from_group(Creation& c, const Members& group);
  void build_split(Creation& c);
  Membership* defined_by_trace(Rank r, std::int32_t handle);
  Membership& self(Rank r);

  const Trace& trace_;
  std::vector<std::unique_ptr<Communicator>> comms_;  // stable addresses: channels refer to groups
  std::vector<RankTables> tables_;
  std::vector<Membership> worlds_;                   // per rank: its membership of the world
  std::vector<std::unique_ptr<Membership>> selves_;  // per rank, made when first used
  std::map<std::uint64_t, Creation> creations_;
  std::vector<int> free_contexts_;
  int next_context_ = 2;
  std::int64_t shared_contexts_ = 0;
  std::map<std::int32_t, std::uint32_t> defined_;  // trace-defined ids (no local handles) -> comm
};

}  // namespace torsim::replay
