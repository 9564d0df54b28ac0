// The records of sst-dumpi's trace format: every function label, the MPI name it stands for and
// the layout of its arguments on the wire. Written from the format's description
// (sstsimulator/sst-dumpi@a4c8bf5b, docs/traceformat.dox, dumpi/common/funclabels.h and the
// argument order of its record readers); docs/replay.md describes the notation.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "models/apps/replay/trace.hpp"

namespace torsim::replay::dumpi {

/// How an argument is stored, big-endian:
///   i int32, l int64, b int8 (an enumeration or MPI_Op: O), h int16 (a handle: C comm,
///   T datatype, G group, other handles h), R request (int32), S statuses (present only when
///   the record's mask enables statuses: int32 count, then per status int32 bytes, int32
///   source, int8 cancelled, int8 error, int32 tag), I int32 array and Q request array (int32
///   length then the values), U datatype array and H handle array (int32 length, int16 values),
///   B int8 array, J array of int32 arrays, s string (int32 length, bytes), A string array,
///   W array of string arrays.
enum class Kind : char {
  int32 = 'i',
  int64 = 'l',
  int8 = 'b',
  op = 'O',
  handle = 'h',
  comm = 'C',
  datatype = 'T',
  group = 'G',
  request = 'R',
  statuses = 'S',
  ints = 'I',
  requests = 'Q',
  datatypes = 'U',
  handles = 'H',
  bytes = 'B',
  int_arrays = 'J',
  text = 's',
  texts = 'A',
  text_arrays = 'W'
};

struct ArgSpec {
  Kind kind;
  bool at_root_only;  // recorded only by the call's root (its first argument is the caller's rank)
  std::string_view name;
};

struct FunctionSpec {
  std::string_view name;  // "MPI_Send", "MPIO_Wait"
  CallType type;
  bool decodable;  // false: sst-dumpi never writes its arguments (MPI_Pcontrol)
  std::vector<ArgSpec> args;
};

inline constexpr std::uint16_t kAllFunctions = 290;   // the footer's counts cover labels 0..290
inline constexpr std::uint16_t kFunctionEnter = 291;  // a profiled user function: entry
inline constexpr std::uint16_t kFunctionExit = 292;
inline constexpr std::uint16_t kEndOfStream = 293;

/// The function of label `label` (0 <= label < kEndOfStream).
const FunctionSpec& function(std::uint16_t label);

/// DUMPI's own numbering of MPI's predefined datatypes (0 error, 1 MPI_DATATYPE_NULL, 2
/// MPI_CHAR, ...); user types follow from kFirstUserDatatype.
inline constexpr std::int32_t kFirstUserDatatype = 28;
std::string_view datatype_name(std::int32_t id);
/// DUMPI's handles for predefined communicators, groups and requests.
inline constexpr std::int32_t kCommError = 0, kCommNull = 1, kCommWorld = 2, kCommSelf = 3;
inline constexpr std::int32_t kGroupError = 0, kGroupNull = 1, kGroupEmpty = 2;
inline constexpr std::int32_t kRequestNull = 1;
inline constexpr std::int32_t kAnySource = -1, kAnyTag = -1, kRoot = -2;
std::string_view comm_name(std::int32_t handle);
std::string_view op_name(std::int32_t op);

}  // namespace torsim::replay::dumpi
