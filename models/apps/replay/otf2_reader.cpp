#include "models/apps/replay/otf2_reader.hpp"

#include <otf2/otf2.h>

#include <filesystem>
#include <map>
#include <unordered_map>

#include "sim/config/error.hpp"

namespace torsim::replay {

namespace {

std::string describe(OTF2_ErrorCode code) {
  return std::string(OTF2_Error_GetName(code)) + " (" + OTF2_Error_GetDescription(code) + ")";
}

// ---- global definitions

struct Definitions {
  std::uint64_t resolution = 1, offset = 0;
  std::unordered_map<OTF2_StringRef, std::string> strings;
  struct Region {
    OTF2_StringRef name;
    OTF2_Paradigm paradigm;
  };
  std::unordered_map<OTF2_RegionRef, Region> regions;
  struct SystemTreeNode {
    OTF2_StringRef name;
  };
  std::unordered_map<OTF2_SystemTreeNodeRef, SystemTreeNode> nodes;
  std::unordered_map<OTF2_LocationGroupRef, OTF2_SystemTreeNodeRef> location_groups;
  std::unordered_map<OTF2_LocationRef, OTF2_LocationGroupRef> locations;
  struct Group {
    OTF2_GroupType type;
    OTF2_Paradigm paradigm;
    std::vector<std::uint64_t> members;
  };
  std::map<OTF2_GroupRef, Group> groups;
  struct Comm {
    OTF2_StringRef name;
    OTF2_GroupRef group;
    OTF2_CommRef parent;
  };
  std::map<OTF2_CommRef, Comm> comms;

  const std::string& text(OTF2_StringRef ref) const {
    static const std::string none;
    const auto it = strings.find(ref);
    return it == strings.end() ? none : it->second;
  }
};

Definitions& defs(void* data) { return *static_cast<Definitions*>(data); }

OTF2_CallbackCode on_clock(void* d, uint64_t resolution, uint64_t offset, uint64_t, uint64_t) {
  defs(d).resolution = resolution;
  defs(d).offset = offset;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_string(void* d, OTF2_StringRef self, const char* text) {
  defs(d).strings[self] = text;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_node(void* d, OTF2_SystemTreeNodeRef self, OTF2_StringRef name, OTF2_StringRef,
                          OTF2_SystemTreeNodeRef) {
  defs(d).nodes[self] = {name};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_location_group(void* d, OTF2_LocationGroupRef self, OTF2_StringRef, OTF2_LocationGroupType,
                                    OTF2_SystemTreeNodeRef parent, OTF2_LocationGroupRef) {
  defs(d).location_groups[self] = parent;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_location(void* d, OTF2_LocationRef self, OTF2_StringRef, OTF2_LocationType, uint64_t,
                              OTF2_LocationGroupRef group) {
  defs(d).locations[self] = group;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_region(void* d, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef, OTF2_StringRef,
                            OTF2_RegionRole, OTF2_Paradigm paradigm, OTF2_RegionFlag, OTF2_StringRef, uint32_t,
                            uint32_t) {
  defs(d).regions[self] = {name, paradigm};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_group(void* d, OTF2_GroupRef self, OTF2_StringRef, OTF2_GroupType type, OTF2_Paradigm paradigm,
                           OTF2_GroupFlag, uint32_t n, const uint64_t* members) {
  defs(d).groups[self] = {type, paradigm, std::vector<std::uint64_t>(members, members + n)};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_comm(void* d, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group, OTF2_CommRef parent,
                          OTF2_CommFlag) {
  defs(d).comms[self] = {name, group, parent};
  return OTF2_CALLBACK_SUCCESS;
}

// An open OTF2 reader with every rank's location selected, and which of them a cursor reads.
struct Slot {
  OTF2_Reader* reader = nullptr;
  std::vector<bool> in_use;
  std::vector<bool> local_definitions_read;  // their mapping tables stay with the location
  ~Slot() {
    if (reader) OTF2_Reader_Close(reader);
  }
};

class Otf2Cursor;

class Otf2Trace : public Trace {
 public:
  Otf2Trace(const std::string& anchor, const Where& where);
  std::unique_ptr<RankCursor> cursor(std::int32_t r) const override;

  /// A free event reader for rank `r`'s location (its local definitions read), and its slot.
  OTF2_EvtReader* acquire(std::int32_t r, Slot*& slot) const;
  void release(std::int32_t r, Slot* slot, OTF2_EvtReader* reader) const;

  /// A timestamp in picoseconds from the clock's offset; one the simulation's clock cannot
  /// hold (2^63 ps either way: 106 days) is corrupt.
  Time time(OTF2_TimeStamp t) const {
    const Int128 ps =
        (static_cast<Int128>(t) - static_cast<Int128>(defs_.offset)) * kSecond / static_cast<Int128>(defs_.resolution);
    if (ps > INT64_MAX || ps < -INT64_MAX)
      fail("timestamp " + std::to_string(t) + " lies more than 2^63 ps (106 days) from the clock's offset " +
           std::to_string(defs_.offset));
    return static_cast<Time>(ps);
  }
  /// The call an MPI region stands for (nullptr: not an MPI call).
  const std::pair<CallType, std::string_view>* region(OTF2_RegionRef ref) const {
    const auto it = regions_.find(ref);
    return it == regions_.end() ? nullptr : &it->second;
  }
  /// A communicator's id, or kNone if the trace does not define it.
  std::int32_t comm(OTF2_CommRef ref) const {
    const auto it = comm_ids_.find(ref);
    return it == comm_ids_.end() ? kNone : it->second;
  }
  /// A communicator's size; 0 if the trace does not record its ranks.
  std::int32_t comm_size(std::int32_t id) const {
    return id == kCommSelf ? 1 : static_cast<std::int32_t>(communicators_[static_cast<std::size_t>(id)].ranks.size());
  }

 private:
  void read_definitions();
  void define_ranks(const Where& where);
  void define_comms();
  void define_regions();
  [[noreturn]] void fail(const std::string& message) const { throw InputError(path_, "", message); }

  Definitions defs_;
  std::vector<OTF2_LocationRef> rank_locations_;
  std::unordered_map<OTF2_RegionRef, std::pair<CallType, std::string_view>> regions_;
  std::unordered_map<OTF2_CommRef, std::int32_t> comm_ids_;
  mutable std::vector<std::unique_ptr<Slot>> slots_;
};

Otf2Trace::Otf2Trace(const std::string& anchor, const Where& where) : Trace(Format::otf2, anchor) {
  offset_unit_ = OffsetUnit::event;
  local_handles_ = false;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(anchor, ec)) fail("cannot read the OTF2 anchor file: it does not exist");
  read_definitions();
  define_ranks(where);
  define_comms();
  define_regions();
}

void Otf2Trace::read_definitions() {
  OTF2_Reader* reader = OTF2_Reader_Open(path_.c_str());
  if (!reader) fail("not an OTF2 archive: the OTF2 library cannot open it");
  OTF2_Reader_SetSerialCollectiveCallbacks(reader);
  OTF2_GlobalDefReader* global = OTF2_Reader_GetGlobalDefReader(reader);
  if (!global) {
    OTF2_Reader_Close(reader);
    fail("not an OTF2 archive: its global definitions cannot be read");
  }
  OTF2_GlobalDefReaderCallbacks* callbacks = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(callbacks, on_clock);
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(callbacks, on_string);
  OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(callbacks, on_node);
  OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(callbacks, on_location_group);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(callbacks, on_location);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(callbacks, on_region);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(callbacks, on_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(callbacks, on_comm);
  OTF2_Reader_RegisterGlobalDefCallbacks(reader, global, callbacks, &defs_);
  OTF2_GlobalDefReaderCallbacks_Delete(callbacks);
  uint64_t read = 0;
  const OTF2_ErrorCode status = OTF2_Reader_ReadAllGlobalDefinitions(reader, global, &read);
  OTF2_Reader_Close(reader);
  if (status != OTF2_SUCCESS) fail("the OTF2 global definitions are corrupt: " + describe(status));
  if (defs_.resolution == 0) fail("the OTF2 clock properties give a timer resolution of 0");
}

// MPI_COMM_WORLD's ranks are the members of the MPI COMM_LOCATIONS group, in order.
void Otf2Trace::define_ranks(const Where&) {
  for (const auto& [ref, group] : defs_.groups)
    if (group.type == OTF2_GROUP_TYPE_COMM_LOCATIONS && group.paradigm == OTF2_PARADIGM_MPI) {
      rank_locations_.assign(group.members.begin(), group.members.end());
      break;
    }
  if (rank_locations_.empty()) fail("the OTF2 trace defines no MPI locations (it is not a trace of an MPI program)");
  if (rank_locations_.size() > static_cast<std::size_t>(kMaxRanks))
    fail("the MPI locations group lists " + std::to_string(rank_locations_.size()) + " ranks, more than the " +
         std::to_string(kMaxRanks) + " a trace may have");
  namespace fs = std::filesystem;
  const fs::path archive = fs::path(path_).parent_path() / fs::path(path_).stem();
  for (OTF2_LocationRef location : rank_locations_) {
    if (!defs_.locations.contains(location))
      fail("the MPI locations group lists location " + std::to_string(location) + ", which the trace does not define");
    RankInfo info;
    info.file = (archive / (std::to_string(location) + ".evt")).string();
    const auto group = defs_.location_groups.find(defs_.locations[location]);
    if (group != defs_.location_groups.end() && defs_.nodes.contains(group->second))
      info.host = defs_.text(defs_.nodes[group->second].name);
    rank_info_.push_back(std::move(info));
  }
}

// World and self first; every other MPI communicator gets the next id, with its world ranks.
void Otf2Trace::define_comms() {
  define_world(ranks());
  for (const auto& [ref, comm] : defs_.comms) {
    const auto group = defs_.groups.find(comm.group);
    if (group == defs_.groups.end() || group->second.paradigm != OTF2_PARADIGM_MPI) continue;
    const std::string& name = defs_.text(comm.name);
    const bool self_group = group->second.type == OTF2_GROUP_TYPE_COMM_SELF;
    if (self_group && name == "MPI_COMM_SELF") {
      comm_ids_[ref] = kCommSelf;
      continue;
    }
    if (!self_group && group->second.type != OTF2_GROUP_TYPE_COMM_GROUP) continue;
    // Another communicator over a "self" group: its ranks are not recorded (sst-macro writes
    // its split communicators so); the definition keeps no ranks.
    std::vector<std::int32_t> members;
    for (std::uint64_t m : group->second.members) {
      if (m >= rank_locations_.size())
        fail("communicator " + std::to_string(ref) + " lists rank " + std::to_string(m) + ", beyond the trace's " +
             std::to_string(ranks()) + " ranks");
      members.push_back(static_cast<std::int32_t>(m));
    }
    if (name == "MPI_COMM_WORLD" || (comm.parent == OTF2_UNDEFINED_COMM && members == communicators_[0].ranks &&
                                     !comm_ids_.contains(ref) && name.empty())) {
      comm_ids_[ref] = kCommWorld;
      continue;
    }
    comm_ids_[ref] = static_cast<std::int32_t>(communicators_.size());
    communicators_.push_back({static_cast<std::int32_t>(communicators_.size()), std::move(members), Origin::other,
                              kNone, self_group ? "(ranks not recorded)" : name});
  }
  for (const auto& [ref, comm] : defs_.comms)  // parents, once every id is known
    if (comm_ids_.contains(ref) && comm_ids_[ref] > kCommSelf && comm_ids_.contains(comm.parent))
      communicators_[static_cast<std::size_t>(comm_ids_[ref])].parent = comm_ids_[comm.parent];
}

void Otf2Trace::define_regions() {
  for (const auto& [ref, region] : defs_.regions) {
    const std::string& name = defs_.text(region.name);
    if (region.paradigm != OTF2_PARADIGM_MPI && !name.starts_with("MPI_")) continue;
    regions_[ref] = {call_type_of_mpi_function(name), name};
  }
}

std::unique_ptr<Slot> open_slot(const std::string& anchor, const std::vector<OTF2_LocationRef>& locations) {
  auto slot = std::make_unique<Slot>();
  slot->reader = OTF2_Reader_Open(anchor.c_str());
  if (!slot->reader) throw InputError(anchor, "", "the OTF2 library cannot open the archive again");
  OTF2_Reader_SetSerialCollectiveCallbacks(slot->reader);
  for (OTF2_LocationRef location : locations) OTF2_Reader_SelectLocation(slot->reader, location);
  OTF2_Reader_OpenDefFiles(slot->reader);  // local definitions are optional
  const OTF2_ErrorCode status = OTF2_Reader_OpenEvtFiles(slot->reader);
  if (status != OTF2_SUCCESS) throw InputError(anchor, "", "cannot open the OTF2 event files: " + describe(status));
  slot->in_use.assign(locations.size(), false);
  slot->local_definitions_read.assign(locations.size(), false);
  return slot;
}

OTF2_EvtReader* Otf2Trace::acquire(std::int32_t r, Slot*& slot) const {
  const auto index = static_cast<std::size_t>(r);
  slot = nullptr;
  for (const auto& s : slots_)
    if (!s->in_use[index]) slot = s.get();
  if (!slot) {
    slots_.push_back(open_slot(path_, rank_locations_));
    slot = slots_.back().get();
  }
  const OTF2_LocationRef location = rank_locations_[index];
  // Mapping tables from local to global ids live in the local definitions: read them first.
  if (!slot->local_definitions_read[index]) {
    std::error_code ec;
    const bool exists = std::filesystem::exists(std::filesystem::path(rank(r).file).replace_extension(".def"), ec);
    if (OTF2_DefReader* local = exists ? OTF2_Reader_GetDefReader(slot->reader, location) : nullptr) {
      uint64_t read = 0;
      OTF2_Reader_ReadAllLocalDefinitions(slot->reader, local, &read);
      OTF2_Reader_CloseDefReader(slot->reader, local);
    }
    slot->local_definitions_read[index] = true;
  }
  OTF2_EvtReader* events = OTF2_Reader_GetEvtReader(slot->reader, location);
  if (!events) throw InputError(rank(r).file, "", "cannot read the events of rank " + std::to_string(r));
  slot->in_use[index] = true;
  return events;
}

void Otf2Trace::release(std::int32_t r, Slot* slot, OTF2_EvtReader* reader) const {
  OTF2_Reader_CloseEvtReader(slot->reader, reader);
  slot->in_use[static_cast<std::size_t>(r)] = false;
}

// ---- the cursor

// A nonblocking receive is recorded in two parts: its request inside MPI_Irecv, its source, tag
// and size when it completes (inside a wait or test). The cursor reads the completion from a
// second reader running ahead on the same events.
struct Completion {
  uint32_t sender;
  OTF2_CommRef comm;
  uint32_t tag;
  uint64_t length;
  bool cancelled;
};

class Otf2Cursor : public RankCursor {
 public:
  Otf2Cursor(const Otf2Trace& trace, std::int32_t rank);
  ~Otf2Cursor() override;
  bool next(Call& call) override;

  void enter(OTF2_TimeStamp t, uint64_t position, OTF2_RegionRef region);
  /// Whether the call is complete.
  bool leave(OTF2_TimeStamp t);
  void send(uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t length, const std::uint64_t* request);
  void receive(uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t length);
  void irecv_request(uint64_t request);
  void completed(uint64_t request, bool done, uint32_t sender = OTF2_UNDEFINED_UINT32, uint32_t tag = 0);
  void collective_end(OTF2_CommRef comm, uint32_t root, uint64_t sent, uint64_t received);
  void comm_created(OTF2_CommRef comm);
  void ahead_completion(uint64_t request, const Completion& c) { ahead_found_.push_back({request, c}); }
  bool in_call() const { return in_call_; }

 private:
  std::int32_t comm_id(OTF2_CommRef ref) const;
  std::int32_t rank_in(std::int32_t comm, uint32_t rank, const char* what) const;
  std::int32_t tag_of(uint32_t tag) const;
  Bytes bytes_of(uint64_t length, const char* what) const;
  std::int64_t request_of(uint64_t request) const;
  const Completion* completion_of(uint64_t request);
  [[noreturn]] void fail(const std::string& message) const;

  const Otf2Trace& trace_;
  std::int32_t rank_;
  Slot* slot_ = nullptr;
  OTF2_EvtReader* reader_ = nullptr;
  Slot* ahead_slot_ = nullptr;
  OTF2_EvtReader* ahead_ = nullptr;
  bool ahead_done_ = false;
  // Completions the reader ahead passed, in order: those of receives posted later, or earlier
  // and not yet met (few at a time).
  std::vector<std::pair<uint64_t, Completion>> ahead_found_;
  Completion taken_{};
  Call* out_ = nullptr;
  bool in_call_ = false, done_ = false;
  int depth_ = 0;
  std::uint64_t records_ = 0;
  std::vector<std::int64_t> requests_;
  std::vector<std::int32_t> completed_;
};

Otf2Cursor& cursor_of(void* data) { return *static_cast<Otf2Cursor*>(data); }

OTF2_CallbackCode on_enter(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t position, void* c, OTF2_AttributeList*,
                           OTF2_RegionRef region) {
  cursor_of(c).enter(t, position, region);
  return OTF2_CALLBACK_SUCCESS;
}
// A call complete, the reading stops (ReadEvents reports the interruption).
OTF2_CallbackCode on_leave(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* c, OTF2_AttributeList*, OTF2_RegionRef) {
  return cursor_of(c).leave(t) ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_send(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* c, OTF2_AttributeList*, uint32_t receiver,
                          OTF2_CommRef comm, uint32_t tag, uint64_t length) {
  cursor_of(c).send(receiver, comm, tag, length, nullptr);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_isend(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* c, OTF2_AttributeList*, uint32_t receiver,
                           OTF2_CommRef comm, uint32_t tag, uint64_t length, uint64_t request) {
  cursor_of(c).send(receiver, comm, tag, length, &request);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_isend_complete(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* c, OTF2_AttributeList*,
                                    uint64_t request) {
  cursor_of(c).completed(request, true);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_irecv_request(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* c, OTF2_AttributeList*,
                                   uint64_t request) {
  cursor_of(c).irecv_request(request);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_recv(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* c, OTF2_AttributeList*, uint32_t sender,
                          OTF2_CommRef comm, uint32_t tag, uint64_t length) {
  cursor_of(c).receive(sender, comm, tag, length);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_irecv(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* c, OTF2_AttributeList*, uint32_t sender,
                           OTF2_CommRef, uint32_t tag, uint64_t, uint64_t request) {
  cursor_of(c).completed(request, true, sender, tag);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_test(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* c, OTF2_AttributeList*, uint64_t request) {
  cursor_of(c).completed(request, false);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_cancelled(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* c, OTF2_AttributeList*,
                               uint64_t request) {
  cursor_of(c).completed(request, true);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_collective_end(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* c, OTF2_AttributeList*,
                                    OTF2_CollectiveOp, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                    uint64_t received) {
  cursor_of(c).collective_end(comm, root, sent, received);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_comm_create(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* c, OTF2_AttributeList*,
                                 OTF2_CommRef comm) {
  cursor_of(c).comm_created(comm);
  return OTF2_CALLBACK_SUCCESS;
}

// The reader running ahead sees only completions of receives.
OTF2_CallbackCode ahead_irecv(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* c, OTF2_AttributeList*, uint32_t sender,
                              OTF2_CommRef comm, uint32_t tag, uint64_t length, uint64_t request) {
  cursor_of(c).ahead_completion(request, {sender, comm, tag, length, false});
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode ahead_cancelled(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* c, OTF2_AttributeList*,
                                  uint64_t request) {
  cursor_of(c).ahead_completion(request, {OTF2_UNDEFINED_UINT32, OTF2_UNDEFINED_COMM, 0, 0, true});
  return OTF2_CALLBACK_SUCCESS;
}

void set_main_callbacks(OTF2_EvtReader* reader, Otf2Cursor* cursor) {
  OTF2_EvtReaderCallbacks* cb = OTF2_EvtReaderCallbacks_New();
  OTF2_EvtReaderCallbacks_SetEnterCallback(cb, on_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, on_leave);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, on_send);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, on_isend);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, on_isend_complete);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, on_irecv_request);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, on_recv);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, on_irecv);
  OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(cb, on_test);
  OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, on_cancelled);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, on_collective_end);
  OTF2_EvtReaderCallbacks_SetCommCreateCallback(cb, on_comm_create);
  OTF2_EvtReader_SetCallbacks(reader, cb, cursor);
  OTF2_EvtReaderCallbacks_Delete(cb);
}

void set_ahead_callbacks(OTF2_EvtReader* reader, Otf2Cursor* cursor) {
  OTF2_EvtReaderCallbacks* cb = OTF2_EvtReaderCallbacks_New();
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, ahead_irecv);
  OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, ahead_cancelled);
  OTF2_EvtReader_SetCallbacks(reader, cb, cursor);
  OTF2_EvtReaderCallbacks_Delete(cb);
}

Otf2Cursor::Otf2Cursor(const Otf2Trace& trace, std::int32_t rank) : trace_(trace), rank_(rank) {
  reader_ = trace_.acquire(rank, slot_);
  set_main_callbacks(reader_, this);
}

Otf2Cursor::~Otf2Cursor() {
  trace_.release(rank_, slot_, reader_);
  if (ahead_) trace_.release(rank_, ahead_slot_, ahead_);
}

void Otf2Cursor::fail(const std::string& message) const {
  Call where;
  where.record = records_ == 0 ? 0 : records_ - 1;
  where.offset = out_ ? out_->offset : 0;
  trace_.locate(rank_, where).fail(message);
}

bool Otf2Cursor::next(Call& call) {
  out_ = &call;
  done_ = false;
  // Events are read until a call's Leave interrupts the reading, or they run out.
  uint64_t read = 0;
  const OTF2_ErrorCode status = OTF2_EvtReader_ReadEvents(reader_, OTF2_UNDEFINED_UINT64, &read);
  if (done_) return true;
  if (status != OTF2_SUCCESS) fail("the OTF2 events are corrupt: " + describe(status));
  if (in_call_) fail("the trace ends inside " + std::string(call.function) + ": its events are truncated");
  return false;
}

void Otf2Cursor::enter(OTF2_TimeStamp t, uint64_t position, OTF2_RegionRef region) {
  if (in_call_) {
    ++depth_;  // MPI calls made inside another (their events belong to the outer call)
    return;
  }
  const auto* mpi = trace_.region(region);
  if (!mpi) return;  // the program's own regions: time between calls
  *out_ = Call{};
  out_->type = mpi->first;
  out_->function = mpi->second;
  out_->start = trace_.time(t);
  out_->record = records_++;
  out_->offset = position;
  requests_.clear();
  completed_.clear();
  in_call_ = true;
  depth_ = 0;
}

bool Otf2Cursor::leave(OTF2_TimeStamp t) {
  if (!in_call_) return false;
  if (depth_ > 0) {
    --depth_;
    return false;
  }
  out_->end = trace_.time(t);
  out_->requests = requests_;
  out_->completed = completed_;
  if (requests_.size() == 1 && out_->request == kNone) out_->request = requests_.front();
  in_call_ = false;
  done_ = true;
  return true;
}

std::int32_t Otf2Cursor::comm_id(OTF2_CommRef ref) const {
  const std::int32_t id = trace_.comm(ref);
  if (id == kNone) fail("communicator " + std::to_string(ref) + " is out of range: the trace does not define it");
  return id;
}

std::int32_t Otf2Cursor::rank_in(std::int32_t comm, uint32_t rank, const char* what) const {
  if (rank == OTF2_UNDEFINED_UINT32) return kNone;
  const std::int32_t size = trace_.comm_size(comm);
  if (size > 0 && rank >= static_cast<uint32_t>(size))
    fail(std::string(what) + " " + std::to_string(rank) + " is out of range: the communicator has " +
         std::to_string(trace_.comm_size(comm)) + " ranks");
  // A communicator whose ranks are not recorded has no more than the world's.
  if (rank >= static_cast<uint32_t>(trace_.ranks()))
    fail(std::string(what) + " " + std::to_string(rank) + " is out of range: the trace has " +
         std::to_string(trace_.ranks()) + " ranks");
  return static_cast<std::int32_t>(rank);
}

// OTF2's fields are unsigned; the replay's signed, with negative values reserved (kAnyTag,
// kNone): a value past the signed range is corrupt input, not a large number.
std::int32_t Otf2Cursor::tag_of(uint32_t tag) const {
  if (tag > static_cast<uint32_t>(INT32_MAX))
    fail("tag " + std::to_string(tag) + " is beyond the largest an MPI tag can be (2^31 - 1)");
  return static_cast<std::int32_t>(tag);
}

Bytes Otf2Cursor::bytes_of(uint64_t length, const char* what) const {
  if (length > static_cast<uint64_t>(INT64_MAX))
    fail(std::string("a ") + what + " size of " + std::to_string(length) + " bytes is past 2^63 - 1");
  return static_cast<Bytes>(length);
}

std::int64_t Otf2Cursor::request_of(uint64_t request) const {
  if (request > static_cast<uint64_t>(INT64_MAX)) fail("request id " + std::to_string(request) + " is past 2^63 - 1");
  return static_cast<std::int64_t>(request);
}

void Otf2Cursor::send(uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t length,
                      const std::uint64_t* request) {
  if (!in_call_) return;
  out_->comm = comm_id(comm);
  out_->peer = rank_in(out_->comm, receiver, "destination");
  out_->tag = tag_of(tag);
  out_->bytes = bytes_of(length, "message");
  if (request) out_->request = request_of(*request);
}

void Otf2Cursor::receive(uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t length) {
  if (!in_call_) return;
  out_->comm = comm_id(comm);
  out_->peer = rank_in(out_->comm, sender, "source");
  out_->tag = tag_of(tag);
  out_->bytes = bytes_of(length, "message");
  out_->matched_source = out_->peer;
  out_->matched_tag = out_->tag;
}

// The completion of request `request` after the current position: found by the reader ahead.
const Completion* Otf2Cursor::completion_of(uint64_t request) {
  if (!ahead_) {
    ahead_ = trace_.acquire(rank_, ahead_slot_);
    set_ahead_callbacks(ahead_, this);
  }
  std::size_t searched = 0;
  for (;;) {
    for (; searched < ahead_found_.size(); ++searched)
      if (ahead_found_[searched].first == request) {
        taken_ = ahead_found_[searched].second;
        ahead_found_.erase(ahead_found_.begin() + static_cast<std::ptrdiff_t>(searched));
        return &taken_;
      }
    if (ahead_done_) return nullptr;
    uint64_t read = 0;
    const OTF2_ErrorCode status = OTF2_EvtReader_ReadEvents(ahead_, 256, &read);
    if (status != OTF2_SUCCESS) fail("the OTF2 events are corrupt: " + describe(status));
    ahead_done_ = read == 0;
  }
}

// Inside MPI_Irecv: the receive's source, tag and size come from its completion, later.
void Otf2Cursor::irecv_request(uint64_t request) {
  if (!in_call_) return;
  out_->request = request_of(request);
  const Completion* c = completion_of(request);
  if (!c || c->cancelled) return;  // never completed: the trace says nothing of it
  out_->comm = comm_id(c->comm);
  out_->peer = rank_in(out_->comm, c->sender, "source");
  out_->tag = tag_of(c->tag);
  out_->bytes = bytes_of(c->length, "message");
}

void Otf2Cursor::completed(uint64_t request, bool done, uint32_t sender, uint32_t tag) {
  if (!in_call_) return;
  if (done) completed_.push_back(static_cast<std::int32_t>(requests_.size()));
  requests_.push_back(request_of(request));
  out_->flag = out_->flag || done;
  if (sender != OTF2_UNDEFINED_UINT32) {
    out_->matched_source = rank_in(kCommWorld, sender, "matched source");
    out_->matched_tag = tag_of(tag);
  }
}

// Score-P records a collective's bytes as totals over the peers (sstsimulator conventions
// differ): alltoall, allgather and allreduce N x the per-peer (or per-buffer) size, bcast N x at
// the root, gather N x at the root, scatter N x at the root. Divided back to MPI's counts.
void Otf2Cursor::collective_end(OTF2_CommRef comm, uint32_t root, uint64_t sent, uint64_t received) {
  if (!in_call_) return;
  out_->comm = comm_id(comm);
  out_->root = rank_in(out_->comm, root, "root");
  const auto n = static_cast<Bytes>(std::max(trace_.comm_size(out_->comm), 1));
  const Bytes s = bytes_of(sent, "collective's sent"), r = bytes_of(received, "collective's received");
  switch (out_->type) {
    case CallType::alltoall:
    case CallType::allgather:
    case CallType::allreduce:
      out_->bytes = s / n;
      out_->recv_bytes = r / n;
      return;
    case CallType::bcast:
      out_->bytes = s > 0 ? s / n : r;
      return;
    case CallType::gather:
      out_->bytes = s;
      out_->recv_bytes = r / n;
      return;
    case CallType::scatter:
      out_->bytes = s / n;
      out_->recv_bytes = r;
      return;
    default:  // reduce, scan, and the v-variants: totals (their per-rank counts are not recorded)
      out_->bytes = s;
      out_->recv_bytes = r;
  }
}

void Otf2Cursor::comm_created(OTF2_CommRef comm) {
  if (in_call_) out_->new_comm = comm_id(comm);
}

std::unique_ptr<RankCursor> Otf2Trace::cursor(std::int32_t r) const { return std::make_unique<Otf2Cursor>(*this, r); }

}  // namespace

std::unique_ptr<Trace> open_otf2_trace(const std::string& path, const Where& where) {
  return std::make_unique<Otf2Trace>(path, where);
}

}  // namespace torsim::replay
