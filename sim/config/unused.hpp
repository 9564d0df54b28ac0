// Input given but not used by one configuration: a key read only with another choice (FFT's
// receive_window with a variant that posts no receives ahead). Alone, it is an error at once.
// A sweep collects it per point instead: a key one point uses and another does not is input
// the sweep reads, and only a key no point uses is an error (run/runner.cpp).
#pragma once

#include <string>
#include <vector>

#include "sim/config/params.hpp"

namespace torsim {

struct UnusedInput {
  Where where;
  std::string message;
  bool preset_may_give = false;  // not_used_unless_preset
};

/// Fails at `where` with `message`, unless an UnusedInputLog on this thread collects it.
void not_used(const Where& where, const std::string& message);

/// Input a machine description (a preset, or an inline machine object) may give for other runs
/// (the calibration of a design this run does not choose): noted only while a log collects, whose
/// owner drops it unless the scenario's overrides of a preset, the command line or a sweep gave it.
void not_used_unless_preset(const Where& where, const std::string& message);

/// Collects this thread's not_used() calls while it exists (logs nest; the innermost collects).
class UnusedInputLog {
 public:
  UnusedInputLog();
  ~UnusedInputLog();
  UnusedInputLog(const UnusedInputLog&) = delete;
  UnusedInputLog& operator=(const UnusedInputLog&) = delete;

  const std::vector<UnusedInput>& entries() const { return entries_; }

 private:
  friend void not_used(const Where&, const std::string&);
  friend void not_used_unless_preset(const Where&, const std::string&);
  UnusedInputLog* outer_;
  std::vector<UnusedInput> entries_;
};

}  // namespace torsim
