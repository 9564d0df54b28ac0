#include "run/interrupt.hpp"

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

namespace torsim {

namespace {

constexpr int kPathSlots = 128;
std::array<std::array<char, 4096>, kPathSlots> g_paths;
std::array<std::atomic<bool>, kPathSlots> g_path_used{};
std::array<std::atomic<bool>, kPathSlots> g_path_tree{};

constexpr int kChildSlots = 4096;  // the most sweep points run at once (--jobs)
std::array<std::atomic<pid_t>, kChildSlots> g_children{};

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

void say(const char* text) {
  const auto ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

const char* interrupted_message(int sig) {
  switch (sig) {
    case SIGINT:
      return "error: interrupted (SIGINT)\n";
    case SIGTERM:
      return "error: interrupted (SIGTERM)\n";
    default:
      return "error: interrupted (SIGHUP)\n";
  }
}

// Removes what the directory `fd` holds, `depth` levels down, with system calls only (the
// handler may not allocate): getdents64, unlinkat, openat.
void empty_directory(int fd, int depth) {
  alignas(dirent64) char buffer[4096];
  for (;;) {
    const auto n = ::getdents64(fd, buffer, sizeof buffer);
    if (n <= 0) return;
    for (ssize_t at = 0; at < n;) {
      const auto* entry = reinterpret_cast<const dirent64*>(buffer + at);
      at += entry->d_reclen;
      const char* name = entry->d_name;
      if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
      if (::unlinkat(fd, name, 0) == 0 || errno != EISDIR || depth == 0) continue;
      const int sub = ::openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0) continue;
      empty_directory(sub, depth - 1);
      ::close(sub);
      ::unlinkat(fd, name, AT_REMOVEDIR);
    }
  }
}

void remove_path(std::size_t slot) {
  const char* path = g_paths[slot].data();
  if (!g_path_tree[slot].load()) {
    ::unlink(path);
    return;
  }
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  empty_directory(fd, 8);
  ::close(fd);
}

extern "C" void on_interrupt(int sig) {
  for (auto& child : g_children)
    if (const pid_t pid = child.load(); pid > 0) ::kill(pid, sig);
  for (std::size_t i = 0; i < kPathSlots; ++i)
    if (g_path_used[i].load()) remove_path(i);
  for (int pass = 0; pass < 3; ++pass)  // directories once their files are gone, innermost first
    for (std::size_t i = kPathSlots; i-- > 0;)
      if (g_path_used[i].load()) ::rmdir(g_paths[i].data());
  say(interrupted_message(sig));
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

void handle_interrupts() {
  static const bool installed = [] {
    for (const int sig : kSignals) std::signal(sig, on_interrupt);
    return true;
  }();
  (void)installed;
}

BlockInterrupts::BlockInterrupts() {
  sigset_t interrupts;
  sigemptyset(&interrupts);
  for (const int sig : kSignals) sigaddset(&interrupts, sig);
  blocked_ = ::pthread_sigmask(SIG_BLOCK, &interrupts, &previous_) == 0;
}

void BlockInterrupts::restore() {
  if (blocked_) ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  blocked_ = false;
}

void reset_interrupts_in_child() {
  for (const int sig : kSignals) std::signal(sig, SIG_DFL);
}

RemoveOnSignal::RemoveOnSignal(const std::string& path, bool tree) : slot_(-1) {
  handle_interrupts();
  if (path.size() >= g_paths[0].size()) return;
  for (std::size_t i = 0; i < kPathSlots; ++i) {
    if (g_path_used[i].load()) continue;
    std::memcpy(g_paths[i].data(), path.c_str(), path.size() + 1);
    g_path_tree[i].store(tree);
    g_path_used[i].store(true);
    slot_ = static_cast<int>(i);
    return;
  }
}

RemoveOnSignal::~RemoveOnSignal() {
  if (slot_ >= 0) g_path_used[static_cast<std::size_t>(slot_)].store(false);
}

ForwardSignals::ForwardSignals(pid_t child) : slot_(-1) {
  handle_interrupts();
  for (std::size_t i = 0; i < kChildSlots; ++i) {
    pid_t empty = 0;
    if (g_children[i].compare_exchange_strong(empty, child)) {
      slot_ = static_cast<int>(i);
      return;
    }
  }
}

ForwardSignals::~ForwardSignals() {
  if (slot_ >= 0) g_children[static_cast<std::size_t>(slot_)].store(0);
}

}  // namespace torsim
