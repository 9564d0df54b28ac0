#include "sim/run/child_process.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <sys/wait.h>
#include <unistd.h>

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

std::string read_all(int fd) {
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const auto n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

}  // namespace

// The child answers "R<json>" or "E<message>" and exits without unwinding (the parent's
// objects are copies it must not destroy twice).
Json run_in_child_process(const std::function<Json()>& work, const std::string& what) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    int status = 0;
    std::string reply;
    try {
      reply = "R" + work().dump();
    } catch (const std::exception& e) {
      reply = std::string("E") + e.what();
      status = 1;
    }
    write_all(fds[1], reply);
    ::close(fds[1]);
    ::_exit(status);
  }
  ::close(fds[1]);
  const std::string reply = read_all(fds[0]);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!reply.empty() && reply[0] == 'R') return Json::parse(reply.substr(1));
  if (!reply.empty() && reply[0] == 'E') throw std::runtime_error(reply.substr(1));
  throw std::runtime_error(what + "'s child process died (status " + std::to_string(status) + ")");
}

}  // namespace torsim
