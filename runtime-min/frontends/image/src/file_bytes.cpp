// Whole-file reads with the size checked before any buffer is allocated.
#include "file_bytes.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "saguaro/image/error.h"

namespace saguaro::image {

namespace {
/// Closes a file descriptor when the read is over, whatever the outcome.
struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};
}  // namespace

std::vector<uint8_t> read_file_bytes(const std::string& path, uint64_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw ImageError(path + ": cannot open: " + std::strerror(errno));
  FdCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw ImageError(path + ": cannot stat: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw ImageError(path + ": not a regular file");
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size == 0) throw ImageError(path + ": empty file (0 bytes)");
  if (size > max_bytes)
    throw ImageError(path + ": file is " + std::to_string(size) + " bytes, above the limit of " +
                     std::to_string(max_bytes));
  std::vector<uint8_t> bytes(size);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd, bytes.data() + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw ImageError(path + ": read error: " + std::strerror(errno));
    if (n == 0) throw ImageError(path + ": file shrank while being read");
    done += static_cast<size_t>(n);
  }
  return bytes;
}

}  // namespace saguaro::image
