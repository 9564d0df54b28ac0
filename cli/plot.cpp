#include "cli/plot.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "run/output_files.hpp"
#include "validation/runs.hpp"

extern char** environ;

namespace torsim {

namespace {

namespace fs = std::filesystem;

// A directory of its own under $TMPDIR for the script's PNG, removed with everything in it.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "torsim-plot-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) Where("$TMPDIR", "/").fail("cannot create a temporary directory for the plot");
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Runs python3 on the drawing script; its exit status (2 with its own message for bad input).
int run_script(const std::string& results_dir, const std::string& png) {
  const std::string script = validation::data_root() + "/python/torsim/plot.py";
  std::vector<std::string> words{"python3", script, results_dir, png};
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, "python3", nullptr, nullptr, argv.data(), environ) != 0)
    Where("command line", "plot").fail("drawing needs python3 with matplotlib; python3 was not found");
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) Where("command line", "plot").fail("lost the drawing process");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// RESULTS_DIR.png beside the directory: a run's directory holds its run's files only.
std::string default_png(const std::string& results_dir) {
  fs::path dir = fs::absolute(results_dir).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();
  return (dir.parent_path() / (dir.filename().string() + ".png")).string();
}

int command_plot(const Args& args) {
  const std::string results_dir = args.operands().front();
  const std::string out = args.value("--out", default_png(results_dir));
  const Where where("command line", "--out " + out);
  std::error_code ec;
  if (fs::is_directory(out, ec)) where.fail("expected a PNG file name, got a directory");
  const ScratchDir scratch;
  const std::string png = (scratch.path() / "plot.png").string();
  const int status = run_script(results_dir, png);
  if (status == 2) return 2;  // the script said why
  if (status != 0)
    Where("command line", "plot").fail("the drawing script failed (exit status " + std::to_string(status) + ")");
  write_file_atomically(out, read_text_file(png, Where(png)), where);
  std::cout << "wrote " << out << "\n";
  return 0;
}

}  // namespace

const CommandSpec& plot_command() {
  static const CommandSpec spec{
      "plot",
      "RESULTS_DIR",
      1,
      1,
      "draw a run's or a sweep's series",
      "Draws the run whose results torsim run wrote into RESULTS_DIR as one PNG: a panel per series\n"
      "(each sweep point a curve), or for a sweep without series a panel per metric (against the swept\n"
      "key with the most values, numeric keys first, values with units placed at their size, rate or\n"
      "time; a line per combination of the others), in the style of the validation plots. Needs python3\n"
      "with matplotlib (scripts/setup.sh installs it).",
      {{"--out", "FILE", "the PNG (default RESULTS_DIR.png, beside the directory)"}},
      command_plot};
  return spec;
}

}  // namespace torsim
