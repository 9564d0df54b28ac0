#include "models/apps/replay/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sim/config/error.hpp"

namespace torsim::replay {

namespace {

[[noreturn]] void cannot_read(const std::string& path, const std::string& reason) {
  throw InputError(path, "", "cannot read the trace file: " + reason);
}

}  // namespace

MappedFile::MappedFile(std::string path) : path_(std::move(path)) {
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) cannot_read(path_, errno == ENOENT ? "it does not exist" : std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || S_ISDIR(info.st_mode)) {
    const bool directory = S_ISDIR(info.st_mode);
    ::close(fd);
    cannot_read(path_, directory ? "it is a directory" : std::strerror(errno));
  }
  size_ = static_cast<std::size_t>(info.st_size);
  if (size_ > 0) {
    void* mapped = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    const int error = errno;
    ::close(fd);
    if (mapped == MAP_FAILED) cannot_read(path_, std::strerror(error));
    ::madvise(mapped, size_, MADV_SEQUENTIAL);
    data_ = static_cast<const unsigned char*>(mapped);
  } else {
    ::close(fd);
  }
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<unsigned char*>(data_), size_);
}

}  // namespace torsim::replay
