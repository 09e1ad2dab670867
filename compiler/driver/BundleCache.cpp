//===- BundleCache.cpp - compile into the cache, build bundles -------------------------===//
#include "compiler/driver/BundleCache.h"

#include "compiler/driver/ProgramRun.h"
#include "compiler/import/ModelDesc.h"
#include "saguaro/xxh64.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <sys/file.h>
#include <unistd.h>
#include <vector>

using namespace saguaro;

llvm::Expected<llvm::json::Object> saguaro::readBundleManifest(const std::string &bundle) {
  std::string path = bundle + "/manifest.json";
  auto manifest = readJsonFile(path);
  if (!manifest)
    return manifest.takeError();
  llvm::json::Object *root = manifest->getAsObject();
  if (!root)
    return fileError(path, "not a JSON object");
  return std::move(*root);
}

bool saguaro::isBundle(const std::string &path) {
  llvm::SmallString<256> blob(path), cmake(path);
  llvm::sys::path::append(blob, "weights.sgw");
  llvm::sys::path::append(cmake, "CMakeLists.txt");
  return llvm::sys::fs::exists(blob) && llvm::sys::fs::exists(cmake);
}

std::string saguaro::cacheRoot() {
  if (const char *dir = std::getenv("SAGUARO_CACHE_DIR"))
    return dir;
  llvm::SmallString<256> p;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"))
    p = xdg;
  else if (const char *home = std::getenv("HOME"))
    (p = home), llvm::sys::path::append(p, ".cache");
  else
    p = "/tmp";
  llvm::sys::path::append(p, "saguaro");
  return p.str().str();
}

namespace {

/// An exclusive flock(2) on a directory, held while this object lives and released by the kernel should the process
/// die: processes that compile into the same cache or build the same bundle at once take turns, and the one that
/// waited finds the work done instead of writing over it. Locking the directory itself leaves no lock file behind.
class DirectoryLock {
public:
  static llvm::Expected<std::unique_ptr<DirectoryLock>> acquire(const std::string &dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
      return fileError(dir, llvm::Twine("cannot open to lock: ") + std::strerror(errno));
    int rc;
    do
      rc = ::flock(fd, LOCK_EX);
    while (rc != 0 && errno == EINTR);
    if (rc != 0) {
      const int err = errno;
      ::close(fd);
      return fileError(dir, llvm::Twine("cannot lock: ") + std::strerror(err));
    }
    return std::unique_ptr<DirectoryLock>(new DirectoryLock(fd));
  }
  ~DirectoryLock() { ::close(fd); } // closing releases the lock
  DirectoryLock(const DirectoryLock &) = delete;
  DirectoryLock &operator=(const DirectoryLock &) = delete;

private:
  explicit DirectoryLock(int fd) : fd(fd) {}
  int fd;
};

} // namespace

llvm::Error saguaro::runQuiet(llvm::ArrayRef<llvm::StringRef> args, llvm::StringRef logPath) {
  auto program = llvm::sys::findProgramByName(args[0]);
  if (!program)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), args[0].str() + " not found on PATH");
  std::string err;
  if (runRedirected(*program, args, std::nullopt, logPath, &err) != 0) {
    llvm::errs() << readLog(logPath) << "\n";
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "'" + llvm::join(args, " ") + "' failed" + (err.empty() ? "" : ": " + err));
  }
  return llvm::Error::success();
}

/// Builds a bundle's program (once) and returns its path.
llvm::Expected<std::string> saguaro::buildBundle(const std::string &bundle) {
  std::string build = bundle + "/build", exe = build + "/saguaro_bundle";
  // Taken even when the program exists: another process may be linking it right now.
  auto lock = DirectoryLock::acquire(bundle);
  if (!lock)
    return lock.takeError();
  if (llvm::sys::fs::exists(exe))
    return exe;
  std::string log = bundle + "/build.log";
  llvm::errs() << "saguaro: building " << bundle << "\n";
  if (auto e = runQuiet({"cmake", "-S", bundle, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"}, log))
    return std::move(e);
  if (auto e = runQuiet({"cmake", "--build", build}, log))
    return std::move(e);
  return exe;
}

llvm::Expected<uint64_t> saguaro::cacheLimitBytes() {
  const char *v = std::getenv("SAGUARO_CACHE_MAX_MB");
  if (!v)
    return uint64_t{20} << 30;
  uint64_t mib = 0;
  if (llvm::StringRef(v).getAsInteger(10, mib) || mib > (uint64_t{1} << 40))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "SAGUARO_CACHE_MAX_MB: expected a whole number of MiB (0: no limit), got '" +
                                       std::string(v) + "'");
  return mib << 20;
}

llvm::Expected<uint64_t> saguaro::hashFile(llvm::StringRef path) {
  auto file = llvm::MemoryBuffer::getFile(path, false, false);
  if (!file)
    return fileError(path, "cannot read: " + file.getError().message());
  llvm::StringRef b = (*file)->getBuffer();
  return xxh64(b.data(), b.size(), 0);
}

llvm::Expected<uint64_t> saguaro::compilerHash() {
  return hashFile(llvm::sys::fs::getMainExecutable(nullptr, nullptr));
}

std::string saguaro::hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

namespace {

/// The file whose modification time says when a cache entry was last used.
std::string stampPath(const std::string &entry) { return entry + "/.last_used"; }

/// Bytes of the regular files under `dir`.
uint64_t treeBytes(const std::string &dir) {
  uint64_t bytes = 0;
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    llvm::sys::fs::file_status st;
    if (!llvm::sys::fs::status(it->path(), st, /*follow=*/false) && llvm::sys::fs::is_regular_file(st))
      bytes += st.getSize();
  }
  return bytes;
}

} // namespace

void saguaro::stampCacheEntry(const std::string &entry) {
  std::error_code ec;
  llvm::raw_fd_ostream(stampPath(entry), ec) << "";
}

/// An entry is a directory named by a key (16 hex digits); its last use is its stamp's time (its directory's when
/// unstamped).
void saguaro::evictCacheOverLimit(const std::string &keep, uint64_t limit) {
  const std::string root = cacheRoot();
  if (limit == 0)
    return;
  struct Entry {
    std::string path;
    llvm::sys::TimePoint<> used;
    uint64_t bytes;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(root, ec), end; it != end && !ec; it.increment(ec)) {
    // Only entries the cache made (named by a 16-hex-digit key), whatever else the directory holds.
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    llvm::sys::fs::file_status st;
    if (name.size() != 16 || !llvm::all_of(name, llvm::isHexDigit) || llvm::sys::fs::status(it->path(), st) ||
        !llvm::sys::fs::is_directory(st))
      continue;
    llvm::sys::fs::file_status used;
    Entry e{it->path(), st.getLastModificationTime(), treeBytes(it->path())};
    if (!llvm::sys::fs::status(stampPath(e.path), used))
      e.used = used.getLastModificationTime();
    total += e.bytes;
    if (e.path != keep)
      entries.push_back(std::move(e));
  }
  if (total <= limit)
    return;
  std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) { return a.used < b.used; });
  const uint64_t before = total;
  size_t removed = 0;
  for (const Entry &e : entries) {
    if (total <= limit)
      break;
    if (llvm::sys::fs::remove_directories(e.path))
      continue;
    total -= e.bytes;
    ++removed;
  }
  llvm::errs() << "saguaro: the bundle cache " << root << " held " << (before >> 20) << " MiB, over its limit of "
               << (limit >> 20) << " MiB (SAGUARO_CACHE_MAX_MB): removed " << removed
               << " least recently used entr" << (removed == 1 ? "y" : "ies") << ", " << (total >> 20)
               << " MiB left\n";
}

llvm::Expected<std::string> saguaro::cachedBundle(const CompileOptions &o) {
  auto limit = cacheLimitBytes();
  if (!limit)
    return limit.takeError();
  auto key = bundleKey(o);
  if (!key)
    return key.takeError();
  std::string dir = cacheRoot() + "/" + *key;
  // emitBundle renames a complete bundle into place, so a directory that looks like a bundle is one.
  if (!isBundle(dir)) {
    if (std::error_code ec = llvm::sys::fs::create_directories(cacheRoot()))
      return fileError(cacheRoot(), "cannot create the cache directory: " + ec.message());
    // One compile into the cache at a time: the waiter finds the entry, and eviction never removes an entry that is
    // being written.
    auto lock = DirectoryLock::acquire(cacheRoot());
    if (!lock)
      return lock.takeError();
    if (!isBundle(dir)) {
      llvm::errs() << "saguaro: compiling " << o.model << " for " << o.target << " -> " << dir << "\n";
      if (auto e = compileBundle(o, dir))
        return std::move(e);
      evictCacheOverLimit(dir, *limit);
    }
  }
  stampCacheEntry(dir);
  return dir;
}
