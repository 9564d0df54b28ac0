#include "run/child_process.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/interrupt.hpp"
#include "sim/config/error.hpp"

namespace torsim {

namespace {

void write_all(int fd, const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    const auto n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// The child answers "R<json>", "I<input error as json>" or "E<message>".
[[noreturn]] void run_child(const std::function<Json()>& work, int fd) {
  int status = 0;
  std::string reply;
  try {
    reply = "R" + work().dump();
  } catch (const InputError& e) {
    reply = "I" + Json{{"file", e.file()}, {"path", e.path()}, {"message", e.message()}}.dump();
    status = 1;
  } catch (const std::exception& e) {
    reply = std::string("E") + e.what();
    status = 1;
  }
  write_all(fd, reply);
  ::close(fd);
  ::_exit(status);
}

}  // namespace

ChildProcess::ChildProcess(const std::function<Json()>& work, std::string what) : what_(std::move(what)) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  BlockInterrupts blocked;  // until the child is registered for forwarding
  pid_ = ::fork();
  if (pid_ < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid_ == 0) {
    reset_interrupts_in_child();
    blocked.restore();
    ::close(fds[0]);
    run_child(work, fds[1]);
  }
  ::close(fds[1]);
  fd_ = fds[0];
  forward_ = std::make_unique<ForwardSignals>(pid_);
}

ChildProcess::~ChildProcess() {
  if (fd_ >= 0) ::close(fd_);
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    forward_.reset();  // before the child is reaped, while its pid is still its own
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

bool ChildProcess::read_available() {
  char buffer[1 << 16];
  for (;;) {
    const auto n = ::read(fd_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    reply_.append(buffer, static_cast<std::size_t>(n));
    if (static_cast<std::size_t>(n) < sizeof buffer) return true;
  }
}

Json ChildProcess::result() {
  while (read_available()) {
  }
  ::close(fd_);
  fd_ = -1;
  int status = 0;
  forward_.reset();  // before the child is reaped, while its pid is still its own
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (!reply_.empty() && reply_[0] == 'R') return Json::parse(reply_.substr(1));
  if (!reply_.empty() && reply_[0] == 'I') {
    const Json e = Json::parse(reply_.substr(1));
    throw InputError(e.at("file").get<std::string>(), e.at("path").get<std::string>(),
                     e.at("message").get<std::string>());
  }
  if (!reply_.empty() && reply_[0] == 'E') throw std::runtime_error(reply_.substr(1));
  throw std::runtime_error(what_ + "'s child process died (status " + std::to_string(status) + ")");
}

Json run_in_child_process(const std::function<Json()>& work, const std::string& what) {
  return ChildProcess(work, what).result();
}

// Keeps `jobs` children busy; polls their pipes so that a child whose result is long is read
// while the others run (a full pipe would stop it).
void run_in_children(std::size_t count, std::size_t jobs, const std::function<Json(std::size_t)>& work,
                     const std::function<void(std::size_t, Json)>& done, const std::string& what) {
  struct Running {
    std::size_t index;
    std::unique_ptr<ChildProcess> child;
  };
  std::vector<Running> running;
  std::size_t next = 0;
  while (next < count || !running.empty()) {
    while (running.size() < std::max<std::size_t>(jobs, 1) && next < count) {
      const std::size_t index = next++;
      running.push_back({index, std::make_unique<ChildProcess>([&, index] { return work(index); }, what)});
    }
    std::vector<pollfd> fds;
    for (const auto& r : running) fds.push_back({r.child->fd(), POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR)
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    for (std::size_t i = fds.size(); i-- > 0;) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      if (running[i].child->read_available()) continue;
      Running finished = std::move(running[i]);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
      done(finished.index, finished.child->result());
    }
  }
}

}  // namespace torsim
