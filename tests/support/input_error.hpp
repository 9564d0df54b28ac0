// The InputError that bad input must raise, caught so that a test can check its file, JSON path
// and message.
#pragma once

#include <catch2/catch.hpp>

#include "sim/config/error.hpp"

namespace torsim::test {

/// What `f` throws; fails the test when it throws no InputError.
template <class F>
InputError input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  FAIL("expected an InputError");
  return InputError("", "", "");
}

}  // namespace torsim::test
