#include "run/interrupt.hpp"

#include <array>
#include <atomic>
#include <csignal>
#include <cstring>

#include <pthread.h>
#include <unistd.h>

namespace torsim {

namespace {

constexpr int kPathSlots = 128;
std::array<std::array<char, 4096>, kPathSlots> g_paths;
std::array<std::atomic<bool>, kPathSlots> g_path_used{};

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

extern "C" void on_interrupt(int sig) {
  for (auto& child : g_children)
    if (const pid_t pid = child.load(); pid > 0) ::kill(pid, sig);
  for (std::size_t i = 0; i < kPathSlots; ++i)
    if (g_path_used[i].load()) ::unlink(g_paths[i].data());
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

RemoveOnSignal::RemoveOnSignal(const std::string& path) : slot_(-1) {
  handle_interrupts();
  if (path.size() >= g_paths[0].size()) return;
  for (std::size_t i = 0; i < kPathSlots; ++i) {
    if (g_path_used[i].load()) continue;
    std::memcpy(g_paths[i].data(), path.c_str(), path.size() + 1);
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
