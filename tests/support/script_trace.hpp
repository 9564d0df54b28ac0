// A trace written call by call in a test: each rank's calls held in memory, handed out by a
// cursor as a reader's would (lists as views into the stored call).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/apps/replay/trace.hpp"

namespace torsim::test {

using replay::Call;
using replay::CallType;

/// One call with the storage its lists view.
struct ScriptCall {
  Call call;
  std::vector<std::int64_t> counts, recv_counts, requests;
  std::vector<std::int32_t> completed, ranks;
};

class ScriptTrace final : public replay::Trace {
 public:
  explicit ScriptTrace(int ranks, replay::Format format = replay::Format::dumpi)
      : Trace(format, "script"), calls(static_cast<std::size_t>(ranks)) {
    for (int r = 0; r < ranks; ++r) rank_info_.push_back({"rank" + std::to_string(r), "", {}, {}});
    define_world(ranks);
    datatypes_ = {{"MPI_BYTE", 1}, {"MPI_DOUBLE", 8}};
  }
  void set_hosts(const std::vector<std::string>& hosts) {
    for (std::size_t r = 0; r < hosts.size(); ++r) rank_info_[r].host = hosts[r];
  }
  void set_coords(std::size_t r, std::vector<std::int32_t> coords) { rank_info_[r].coords = std::move(coords); }

  std::vector<std::vector<ScriptCall>> calls;

  /// Appends a call to rank r's stream; its record number is its position.
  ScriptCall& add(int r, CallType type) {
    auto& stream = calls[static_cast<std::size_t>(r)];
    stream.push_back({});
    stream.back().call.type = type;
    stream.back().call.record = stream.size() - 1;
    return stream.back();
  }

  std::unique_ptr<replay::RankCursor> cursor(std::int32_t r) const override {
    return std::make_unique<Cursor>(calls[static_cast<std::size_t>(r)]);
  }

 private:
  class Cursor final : public replay::RankCursor {
   public:
    explicit Cursor(const std::vector<ScriptCall>& calls) : calls_(calls) {}
    bool next(Call& call) override {
      if (next_ == calls_.size()) return false;
      const ScriptCall& s = calls_[next_++];
      call = s.call;
      call.counts = s.counts;
      call.recv_counts = s.recv_counts;
      call.requests = s.requests;
      call.completed = s.completed;
      call.ranks = s.ranks;
      return true;
    }

   private:
    const std::vector<ScriptCall>& calls_;
    std::size_t next_ = 0;
  };
};

}  // namespace torsim::test
