// Where a parameter's value comes from, and which parameters a run read. A machine preset cites
// each value in its "sources" object (a tag, then the citation: docs/scenario-reference.md);
// a parameter left at its default is cited by its table's source column. validation/ varies
// the assumptions a claim's runs read (its sensitivity), and `torsim describe --provenance`
// lists every parameter's class.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace torsim {

/// The source class of a citation, by its tag:
/// - cited: a figure from a document ([C], [C second-hand], [C a simulator's calibration]), or
///   derived from cited figures ([D]);
/// - read in code: found in a library's or a driver's source ([C-code]);
/// - assumption: [E] or [assumption], or a citation that says any part of it is assumed;
/// - calibrated: fitted so that a calibration point of validation/claims.json comes out right
///   (its citation names it: "calibration point K2"); takes precedence over the others;
/// - structural: "-", not a measured quantity (a model's name, a topology's type);
/// - unsourced: no citation, or one without a tag.
enum class SourceClass { cited, read_in_code, assumption, calibrated, structural, unsourced };

struct Provenance {
  SourceClass source_class = SourceClass::unsourced;
  std::string calibration_point;  // "K2" when calibrated
  /// "cited", "read in code", "assumption", "calibrated on K2", "structural", "unsourced".
  std::string label() const;
};

Provenance classify_source(std::string_view citation);

/// One parameter a run read: given in the scenario or its preset, or its table's default.
struct ParamRead {
  bool given = false;
  std::string table_source;   // the table's source column ("preset": the preset cites it)
  std::string default_value;  // the table's default, as written
};

/// While one exists, every value a ParamReader hands out on this thread is noted by the JSON
/// pointer of its key (the innermost log when logs nest). A parse that only checks input it
/// will not use (a layer the run does not take) must not run under a log, or pause it.
class ReadLog {
 public:
  ReadLog();
  ~ReadLog();
  ReadLog(const ReadLog&) = delete;
  ReadLog& operator=(const ReadLog&) = delete;

  const std::map<std::string, ParamRead>& reads() const { return reads_; }
  static bool active();
  static void note(const std::string& pointer, const ParamRead& read);

  /// Stops noting on this thread while it exists.
  class Pause {
   public:
    Pause();
    ~Pause();
    Pause(const Pause&) = delete;
    Pause& operator=(const Pause&) = delete;

   private:
    ReadLog* paused_;
  };

 private:
  ReadLog* outer_;
  std::map<std::string, ParamRead> reads_;
};

}  // namespace torsim
