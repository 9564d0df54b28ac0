#include "sim/config/unused.hpp"

namespace torsim {

namespace {
thread_local UnusedInputLog* g_unused = nullptr;
}  // namespace

UnusedInputLog::UnusedInputLog() : outer_(g_unused) { g_unused = this; }
UnusedInputLog::~UnusedInputLog() { g_unused = outer_; }

void not_used(const Where& where, const std::string& message) {
  if (!g_unused) where.fail(message);
  g_unused->entries_.push_back({where, message, false});
}

void not_used_unless_preset(const Where& where, const std::string& message) {
  if (g_unused) g_unused->entries_.push_back({where, message, true});
}

}  // namespace torsim
