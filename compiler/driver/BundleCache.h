//===- BundleCache.h - compile into the cache, build bundles ---------------------------===//
#ifndef SAGUARO_COMPILER_DRIVER_BUNDLECACHE_H
#define SAGUARO_COMPILER_DRIVER_BUNDLECACHE_H

#include "compiler/driver/Compile.h"

#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>

namespace saguaro {

/// True when `path` is a bundle directory (weights.sgw and CMakeLists.txt).
bool isBundle(const std::string &path);
/// $SAGUARO_CACHE_DIR, else $XDG_CACHE_HOME/saguaro, else ~/.cache/saguaro.
std::string cacheRoot();
/// Runs a program (found on PATH) with its output in `logPath`; on failure shows the log and names the command.
llvm::Error runQuiet(llvm::ArrayRef<llvm::StringRef> args, llvm::StringRef logPath);
/// Builds a bundle's program with CMake (once) and returns its path.
llvm::Expected<std::string> buildBundle(const std::string &bundle);
/// A bundle's manifest.json as a JSON object; the error names the file (unreadable, not JSON, not an object).
llvm::Expected<llvm::json::Object> readBundleManifest(const std::string &bundle);
/// The cache's size limit in bytes: $SAGUARO_CACHE_MAX_MB (MiB; 0 = no limit), else 20 GiB; an error names the
/// variable when it is not a whole number.
llvm::Expected<uint64_t> cacheLimitBytes();
/// The XXH64 of a file's contents; the error names the file.
llvm::Expected<uint64_t> hashFile(llvm::StringRef path);
/// The XXH64 of the running saguaro executable: part of every cache key, so that a rebuilt compiler never reuses
/// an entry an older one wrote.
llvm::Expected<uint64_t> compilerHash();
/// 16 lower-case hex digits: the spelling of cache keys.
std::string hex64(uint64_t value);
/// Marks the cache entry directory `entry` used now (its LRU stamp).
void stampCacheEntry(const std::string &entry);
/// After adding `added` to the cache: removes the least recently used other entries while the cache exceeds
/// `limit` bytes (0: no limit), saying on stderr what it removed.
void evictCacheOverLimit(const std::string &added, uint64_t limit);
/// The cached bundle of these options (content-addressed), compiling it when missing. Each use stamps the entry;
/// after compiling a new one, the least recently used other entries are removed while the cache exceeds
/// cacheLimitBytes().
llvm::Expected<std::string> cachedBundle(const CompileOptions &options);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_BUNDLECACHE_H
