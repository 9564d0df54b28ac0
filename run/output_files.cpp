#include "run/output_files.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <unistd.h>

namespace torsim {

namespace fs = std::filesystem;

namespace {

std::string system_reason(int error) { return std::strerror(error); }

}  // namespace

std::string read_text_file(const std::string& path, const Where& where) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) where.fail("cannot read " + path + ": " + system_reason(errno));
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const auto n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      where.fail("cannot read " + path + ": " + system_reason(error));
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

FileWriter::FileWriter(std::string path, Where where, bool append) : path_(std::move(path)), where_(std::move(where)) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC) | O_CLOEXEC, 0644);
  if (fd_ < 0) fail("cannot create");
}

FileWriter::~FileWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void FileWriter::write(std::string_view text) {
  buffer_.append(text);
  bytes_ += text.size();
  if (buffer_.size() >= (1 << 20)) flush();
}

void FileWriter::flush() {
  for (std::size_t done = 0; done < buffer_.size();) {
    const auto n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot write");
    done += static_cast<std::size_t>(n);
  }
  buffer_.clear();
}

void FileWriter::close() {
  if (fd_ < 0) return;
  flush();
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("cannot write");
}

void FileWriter::fail(const std::string& what) const { where_.fail(what + " " + path_ + ": " + system_reason(errno)); }

// --- the output directory ---------------------------------------------------------------------

namespace {

std::string staging_name(const fs::path& dir) {
  fs::path normal = dir.lexically_normal();
  if (normal.filename().empty()) normal = normal.parent_path();
  const fs::path parent = normal.parent_path().empty() ? fs::path(".") : normal.parent_path();
  return (parent / ("." + normal.filename().string() + ".partial-" + std::to_string(::getpid()))).string();
}

// The staging directory inside an existing output directory, whose parent may not be writable
// (--out /scratch/$USER).
std::string inner_staging_name(const fs::path& dir) {
  fs::path normal = dir.lexically_normal();
  if (normal.filename().empty()) normal = normal.parent_path();
  return (normal / ("." + normal.filename().string() + ".partial-" + std::to_string(::getpid()))).string();
}

// Staging directories beside `staging` (same name, another PID) of processes that no longer
// exist: what a run killed outright (SIGKILL) left. Removed when the next run stages.
void remove_abandoned_staging(const fs::path& staging) {
  const std::string own = staging.filename().string();
  const std::string prefix = own.substr(0, own.rfind('-') + 1);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(staging.parent_path(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name == own || name.rfind(prefix, 0) != 0 || !entry.is_directory(ec)) continue;
    const std::string pid = name.substr(prefix.size());
    if (pid.empty() || pid.size() > 9 || !std::all_of(pid.begin(), pid.end(), ::isdigit)) continue;
    if (::kill(static_cast<pid_t>(std::stol(pid)), 0) != 0 && errno == ESRCH) fs::remove_all(entry.path(), ec);
  }
}

}  // namespace

OutputDir::OutputDir(std::string dir, Where where)
    : dir_(std::move(dir)), where_(std::move(where)), staging_(staging_name(dir_)) {}

OutputDir::~OutputDir() { discard(); }

// Creates the missing parents (remembering them, to remove them again on failure) and the
// staging directory: beside the output directory, or inside it when it exists.
void OutputDir::stage() {
  if (!guards_.empty()) return;
  std::error_code ec;
  if (fs::exists(dir_, ec) && !fs::is_directory(dir_, ec)) where_.fail("cannot write into " + dir_ + ": it is a file");
  if (fs::is_directory(dir_, ec)) staging_ = inner_staging_name(dir_);
  std::vector<fs::path> missing;
  for (fs::path p = fs::path(staging_).parent_path(); !p.empty(); p = p.parent_path()) {
    if (fs::exists(p, ec)) {
      if (!fs::is_directory(p, ec)) where_.fail("cannot create " + dir_ + ": " + p.string() + " is not a directory");
      break;
    }
    missing.insert(missing.begin(), p);
  }
  // Each directory is guarded before it is made: a signal between the two leaves nothing behind.
  for (const auto& p : missing) {
    guards_.push_back(std::make_unique<RemoveOnSignal>(p.string()));
    if (!fs::create_directory(p, ec) && ec) where_.fail("cannot create " + p.string() + ": " + ec.message());
    created_parents_.push_back(p.string());
  }
  remove_abandoned_staging(staging_);
  guards_.push_back(std::make_unique<RemoveOnSignal>(staging_, true));
  if (!fs::create_directory(staging_, ec) || ec)
    where_.fail("cannot create a directory beside " + dir_ + " (" + staging_ +
                "): " + (ec ? ec.message() : "it exists"));
  if (fs::exists(dir_, ec) && ::access(dir_.c_str(), W_OK) != 0)
    where_.fail("cannot write into " + dir_ + ": " + system_reason(errno));
}

void OutputDir::check_writable() {
  stage();
  discard();
}

void OutputDir::write(const std::string& name, std::string_view content) {
  auto writer = open(name);
  writer->write(content);
  writer->close();
}

std::unique_ptr<FileWriter> OutputDir::open(const std::string& name) {
  stage();
  staged_.push_back(name);
  return std::make_unique<FileWriter>((fs::path(staging_) / name).string(), where_);
}

void OutputDir::append(const std::string& name, std::string_view content) {
  stage();
  const std::string path = (fs::path(staging_) / name).string();
  if (appended_.insert(name).second) {
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    staged_.push_back(name);
  }
  FileWriter writer(path, where_, true);
  writer.write(content);
  writer.close();
}

namespace {

// The files an earlier run listed in its manifest: plain names only, so that a manifest can
// never name anything outside its directory.
std::vector<std::string> manifest_names(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_regular_file(dir / kManifestName, ec)) return {};
  const std::string text = read_text_file((dir / kManifestName).string(), Where((dir / kManifestName).string()));
  std::vector<std::string> names;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string name = text.substr(at, end - at);
    if (!name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos) names.push_back(name);
    at = end + 1;
  }
  return names;
}

}  // namespace

// Into a new directory: the staging directory is renamed. Into an existing one: the new files
// are moved in, then the files of the earlier run that this one did not write are removed, so
// the directory holds one run's files (and whatever else the user keeps there).
void OutputDir::publish() {
  stage();
  std::vector<std::string> names = staged_;
  std::sort(names.begin(), names.end());
  std::string manifest;
  for (const auto& name : names) manifest += name + "\n";
  write(std::string(kManifestName), manifest);
  std::error_code ec;
  if (!fs::exists(dir_, ec)) {
    fs::rename(staging_, dir_, ec);
  } else {
    const auto earlier = manifest_names(dir_);
    for (const auto& name : staged_) {
      fs::rename(fs::path(staging_) / name, fs::path(dir_) / name, ec);
      if (ec) break;
    }
    for (const auto& name : earlier)
      if (!ec && std::find(staged_.begin(), staged_.end(), name) == staged_.end())
        fs::remove(fs::path(dir_) / name, ec);
    if (!ec) fs::remove(staging_, ec);
  }
  if (ec) where_.fail("cannot move the results into " + dir_ + ": " + ec.message());
  guards_.clear();
  created_parents_.clear();
  staged_.clear();
  appended_.clear();
}

void OutputDir::discard() noexcept {
  if (guards_.empty()) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);
  for (auto p = created_parents_.rbegin(); p != created_parents_.rend(); ++p) fs::remove(*p, ec);
  created_parents_.clear();
  staged_.clear();
  appended_.clear();
  guards_.clear();
}

// --- a single file ------------------------------------------------------------------------------

AtomicFile::AtomicFile(std::string path, Where where)
    : path_(std::move(path)), temporary_(path_ + ".partial-" + std::to_string(::getpid())), where_(std::move(where)) {
  guard_ = std::make_unique<RemoveOnSignal>(temporary_);
  writer_ = std::make_unique<FileWriter>(temporary_, where_);
}

AtomicFile::~AtomicFile() {
  if (published_) return;
  writer_.reset();
  std::error_code ec;
  fs::remove(temporary_, ec);
}

void AtomicFile::publish() {
  writer_->close();
  std::error_code ec;
  fs::rename(temporary_, path_, ec);
  if (ec) where_.fail("cannot write " + path_ + ": " + ec.message());
  published_ = true;
  guard_.reset();
}

void write_file_atomically(const std::string& path, std::string_view text, const Where& where) {
  AtomicFile file(path, where);
  file.writer().write(text);
  file.publish();
}

}  // namespace torsim
