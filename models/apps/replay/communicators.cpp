#include "models/apps/replay/communicators.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace torsim::replay {

Communicators::Communicators(const Trace& trace, int ranks)
    : trace_(trace), tables_(static_cast<std::size_t>(ranks)), selves_(static_cast<std::size_t>(ranks)) {
  auto world = std::make_shared<std::vector<Rank>>(static_cast<std::size_t>(ranks));
  std::iota(world->begin(), world->end(), 0);
  add(std::move(world));  // index kWorld, context 0
  for (Rank r = 0; r < ranks; ++r) worlds_.push_back({kCommWorld, kWorld, r, 0, 0});
}

std::uint32_t Communicators::add(Members members) {
  auto comm = std::make_unique<Communicator>();
  comm->group.members = *members;
  comm->group.context = comms_.empty() ? 0 : take_context();
  comm->members = std::move(members);
  comm->alive = comm->group.size();
  comms_.push_back(std::move(comm));
  return static_cast<std::uint32_t>(comms_.size() - 1);
}

// Freed contexts first, then fresh ones; past the last, contexts are shared (and counted).
int Communicators::take_context() {
  if (!free_contexts_.empty()) {
    const int context = free_contexts_.back();
    free_contexts_.pop_back();
    return context;
  }
  if (next_context_ < kContexts) return next_context_++;
  ++shared_contexts_;
  return 2 + static_cast<int>(comms_.size() % (kContexts - 2));
}

Membership& Communicators::self(Rank r) {
  auto& slot = selves_[static_cast<std::size_t>(r)];
  if (!slot) {
    auto comm = std::make_unique<Communicator>();
    comm->members = std::make_shared<std::vector<Rank>>(1, r);
    comm->group.members = {r};
    comm->group.context = 1;
    comm->alive = 1;
    comms_.push_back(std::move(comm));
    slot = std::make_unique<Membership>(Membership{kCommSelf, static_cast<std::uint32_t>(comms_.size() - 1), 0, 0, 0});
  }
  return *slot;
}

Membership* Communicators::find(Rank r, std::int32_t handle) {
  if (handle == kCommWorld) return &worlds_[static_cast<std::size_t>(r)];
  if (handle == kCommSelf) return &self(r);
  for (Membership& m : tables_[static_cast<std::size_t>(r)].comms)
    if (m.handle == handle) return &m;
  return trace_.local_handles() ? nullptr : defined_by_trace(r, handle);
}

// Without local handles a communicator is defined once for all ranks (OTF2): made when a
// member first uses it.
Membership* Communicators::defined_by_trace(Rank r, std::int32_t handle) {
  const auto& defined = trace_.communicators();
  const auto it = std::find_if(defined.begin(), defined.end(), [&](const CommDefinition& d) { return d.id == handle; });
  if (it == defined.end()) return nullptr;
  const auto index = std::find(it->ranks.begin(), it->ranks.end(), r);
  if (index == it->ranks.end()) return nullptr;
  auto [known, fresh] = defined_.try_emplace(handle, 0);
  if (fresh) known->second = add(std::make_shared<std::vector<Rank>>(it->ranks.begin(), it->ranks.end()));
  auto& comms = tables_[static_cast<std::size_t>(r)].comms;
  comms.push_back({handle, known->second, static_cast<std::int32_t>(index - it->ranks.begin()), 0, 0});
  return &comms.back();
}

const Members* Communicators::find_group(Rank r, std::int32_t handle) {
  for (auto& [h, members] : tables_[static_cast<std::size_t>(r)].groups)
    if (h == handle) return &members;
  if (trace_.local_handles()) return nullptr;
  for (const CommDefinition& d : trace_.groups())
    if (d.id == handle) {
      define_group(r, handle, std::make_shared<std::vector<Rank>>(d.ranks.begin(), d.ranks.end()));
      return &tables_[static_cast<std::size_t>(r)].groups.back().second;
    }
  return nullptr;
}

std::uint64_t Communicators::deposit(Membership& parent, const Deposit& what) {
  const std::uint64_t id = std::uint64_t{parent.comm} << 32 | parent.creations++;
  Creation& c = creations_[id];
  const auto n = static_cast<std::size_t>(group(parent.comm).size());
  if (c.deposits.empty()) {
    c.parent = parent.comm;
    c.deposits.resize(n);
  }
  c.deposits[static_cast<std::size_t>(parent.index)] = what;
  ++c.deposited;
  return id;
}

// Split: one communicator per colour (MPI_UNDEFINED, negative, gets none), members ordered by
// key, then by rank in the parent. Dup: the parent's members. Create: the group's.
void Communicators::build(Creation& c) {
  const auto n = c.deposits.size();
  if (c.deposited != static_cast<int>(n))
    throw std::logic_error("a communicator was built before every member of its parent had entered the call");
  c.results.assign(n, {kNone, kNone});
  const Deposit& first = c.deposits.front();
  if (first.kind == Kind::dup) {
    const auto comm = static_cast<std::int32_t>(add(comms_[c.parent]->members));
    for (std::size_t i = 0; i < n; ++i) c.results[i] = {comm, static_cast<std::int32_t>(i)};
  } else if (first.kind == Kind::create) {
    build_from_group(c, first.group);
  } else {
    build_split(c);
  }
}

void Communicators::build_from_group(Creation& c, const Members& group) {
  if (!group || group->empty()) return;
  const auto comm = static_cast<std::int32_t>(add(group));
  std::unordered_map<Rank, std::int32_t> position;
  for (std::size_t i = 0; i < group->size(); ++i) position.emplace((*group)[i], static_cast<std::int32_t>(i));
  const auto& parent = *comms_[c.parent]->members;
  for (std::size_t i = 0; i < parent.size(); ++i)
    if (const auto it = position.find(parent[i]); it != position.end()) c.results[i] = {comm, it->second};
}

void Communicators::build_split(Creation& c) {
  const auto n = c.deposits.size();
  const auto& parent = *comms_[c.parent]->members;
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(c.deposits[a].color, c.deposits[a].key) < std::tie(c.deposits[b].color, c.deposits[b].key);
  });
  for (std::size_t i = 0; i < n;) {
    std::size_t end = i;
    auto members = std::make_shared<std::vector<Rank>>();
    for (; end < n && c.deposits[order[end]].color == c.deposits[order[i]].color; ++end)
      members->push_back(parent[order[end]]);
    if (c.deposits[order[i]].color >= 0) {
      const auto comm = static_cast<std::int32_t>(add(std::move(members)));
      for (std::size_t k = i; k < end; ++k) c.results[order[k]] = {comm, static_cast<std::int32_t>(k - i)};
    }
    i = end;
  }
}

bool Communicators::collect(Rank r, const Membership& parent, std::uint64_t id, std::int32_t new_handle) {
  const auto it = creations_.find(id);
  Creation& c = it->second;
  if (c.results.empty()) build(c);
  const auto [comm, index] = c.results[static_cast<std::size_t>(parent.index)];
  if (++c.collected == static_cast<int>(c.deposits.size())) creations_.erase(it);
  if (comm == kNone || new_handle == kNone) return comm != kNone;
  auto& comms = tables_[static_cast<std::size_t>(r)].comms;
  std::erase_if(comms, [&](const Membership& m) { return m.handle == new_handle; });  // a reused handle
  comms.push_back({new_handle, static_cast<std::uint32_t>(comm), index, 0, 0});
  return true;
}

void Communicators::free(Rank r, std::int32_t handle) {
  auto& comms = tables_[static_cast<std::size_t>(r)].comms;
  const auto it = std::find_if(comms.begin(), comms.end(), [&](const Membership& m) { return m.handle == handle; });
  if (it == comms.end()) return;
  Communicator& comm = *comms_[it->comm];
  comms.erase(it);
  if (--comm.alive == 0 && comm.group.context >= 2) free_contexts_.push_back(comm.group.context);
}

void Communicators::define_group(Rank r, std::int32_t handle, Members members) {
  auto& groups = tables_[static_cast<std::size_t>(r)].groups;
  std::erase_if(groups, [&](const auto& g) { return g.first == handle; });
  groups.emplace_back(handle, std::move(members));
}

void Communicators::free_group(Rank r, std::int32_t handle) {
  std::erase_if(tables_[static_cast<std::size_t>(r)].groups, [&](const auto& g) { return g.first == handle; });
}

}  // namespace torsim::replay
