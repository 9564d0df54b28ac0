// The files of a run written all at once: a process ended by a signal leaves nothing staged,
// however many files it had staged.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <filesystem>
#include <string>

#include "run/output_files.hpp"
#include "tests/support/scratch_path.hpp"

using namespace torsim;
namespace fs = std::filesystem;

TEST_CASE("SIGTERM removes a staging directory of more files than the handler has slots", "[output]") {
  const fs::path dir = test::scratch_path("torsim-signal-test");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string out = (dir / "recording_files").string();
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    OutputDir staged(out, Where("test"));
    for (int r = 0; r < 300; ++r) staged.append("rank-" + std::to_string(r) + ".txt", "0 barrier\n");
    staged.append("deeper/file.txt", "text");
    std::raise(SIGTERM);
    ::_exit(0);  // not reached: the handler re-raises the signal
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(fs::is_empty(dir));  // neither recording_files nor .recording_files.partial-PID
  fs::remove_all(dir);
}
