#include "saguaro/handoff/spend_ledger.h"

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "saguaro/handoff/error.h"

namespace saguaro::handoff {
namespace {

using nlohmann::json;

constexpr long long kHourMs = 3600LL * 1000;
constexpr long long kDayMs = 24 * kHourMs;
// Holds flock(LOCK_EX) on "<ledger>.lock" for its lifetime. A separate lock file lets the ledger itself be
// replaced by rename without losing the lock.
//
// The wait must be bounded (a stopped process could hold the lock forever) but also fair: polling with LOCK_NB
// loses, under load, to processes that release and re-take the lock back to back, and starves. So a helper
// thread makes the blocking flock() call, which the kernel wakes the moment the lock is free, and we wait for it
// with a deadline. A helper that outlives the deadline releases the lock as soon as it gets it.
class LedgerLock {
 public:
  // Another process holds the lock only for a read-modify-write of a few kilobytes; a longer wait means something
  // is wrong, and the handoff is skipped rather than stalling the answer.
  LedgerLock(const std::string& ledger_path, long long wait_ms) {
    const std::string lock_path = ledger_path + ".lock";
    const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) throw HandoffError("cannot open spend ledger lock " + lock_path + ": " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      fd_ = fd;
      return;
    }
    auto wait = std::make_shared<Wait>();
    std::thread([wait, fd] {
      int rc;
      do rc = ::flock(fd, LOCK_EX); while (rc != 0 && errno == EINTR);
      std::lock_guard<std::mutex> lock(wait->mutex);
      if (wait->abandoned) {
        ::close(fd);  // closing releases the lock, if we got it
        return;
      }
      wait->done = true;
      wait->ok = rc == 0;
      wait->cv.notify_one();
    }).detach();
    std::unique_lock<std::mutex> lock(wait->mutex);
    const bool finished = wait->cv.wait_for(lock, std::chrono::milliseconds(wait_ms), [&] { return wait->done; });
    if (finished && wait->ok) {
      fd_ = fd;
      return;
    }
    if (finished) ::close(fd);
    else wait->abandoned = true;
    throw HandoffError("spend ledger " + ledger_path + " stayed locked by another process for " +
                       std::to_string(wait_ms) + " ms");
  }
  ~LedgerLock() {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
  LedgerLock(const LedgerLock&) = delete;
  LedgerLock& operator=(const LedgerLock&) = delete;

 private:
  struct Wait {
    std::mutex mutex;
    std::condition_variable cv;
    bool done = false;
    bool ok = false;
    bool abandoned = false;
  };
  int fd_ = -1;
};

struct Entry {
  std::string id;
  long long t_ms = 0;
  long long tokens = 0;
};

[[noreturn]] void corrupt(const std::string& path, const std::string& why) {
  throw HandoffError("spend ledger " + path + " is corrupt (" + why +
                     "); cloud handoff stays off until the file is repaired or deleted");
}

std::vector<Entry> load(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return {};
    throw HandoffError("cannot open spend ledger " + path + ": " + std::strerror(errno));
  }
  std::string text;
  char buf[8192];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  ::close(fd);
  if (n < 0) throw HandoffError("cannot read spend ledger " + path);
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) corrupt(path, "not valid JSON");
  if (!doc.is_object() || doc.value("version", 0) != 1) corrupt(path, "not a version 1 ledger object");
  if (!doc.contains("entries") || !doc["entries"].is_array()) corrupt(path, "no entries array");
  std::vector<Entry> entries;
  for (const json& e : doc["entries"]) {
    if (!e.is_object() || !e.contains("id") || !e["id"].is_string() || !e.contains("t_ms") ||
        !e["t_ms"].is_number_integer() || !e.contains("tokens") || !e["tokens"].is_number_integer() ||
        e["tokens"].get<long long>() < 0) {
      corrupt(path, "an entry lacks id, t_ms or a non-negative tokens count");
    }
    entries.push_back({e["id"], e["t_ms"], e["tokens"]});
  }
  return entries;
}

void save(const std::string& path, const std::vector<Entry>& entries) {
  json list = json::array();
  for (const Entry& e : entries) list.push_back({{"id", e.id}, {"t_ms", e.t_ms}, {"tokens", e.tokens}});
  const std::string text = json{{"version", 1}, {"entries", list}}.dump() + "\n";
  // One temporary name, written only under the lock: a process killed between write and rename leaves a stale
  // "<ledger>.tmp" that the next save truncates, and the ledger itself still holds the last complete state.
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw HandoffError("cannot write spend ledger " + tmp + ": " + std::strerror(errno));
  // No fsync: it would hold the lock for milliseconds per handoff and starve waiting processes, and it only
  // guards against an OS crash; a process restart sees the page cache. Should an OS crash leave an empty or torn
  // file, load() calls it corrupt and handoffs stop (fail closed), which is the safe side for spending.
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  // rename is atomic: another process sees the old ledger or the new one, never half of one.
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    throw HandoffError("cannot write spend ledger " + path + ": " + std::strerror(errno));
  }
}

// Entries stamped in the future (clock stepped back) stay counted: for spending, the safe error is to count more.
SpendWindows tally(const std::vector<Entry>& entries, long long now_ms) {
  SpendWindows u;
  const auto count = [&](const Entry& e, Spend& window, long long window_ms) {
    if (e.t_ms > now_ms - window_ms) {
      ++window.handoffs;
      window.tokens += e.tokens;
    }
  };
  for (const Entry& e : entries) {
    count(e, u.hour, kHourMs);
    count(e, u.day, kDayMs);
  }
  return u;
}

std::string new_reservation_id() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  return std::to_string(::getpid()) + "-" + std::to_string(rng());
}

void prepare_directory(const std::string& path) {
  if (path.empty()) {
    throw HandoffError("no spend ledger path (set the spend_ledger_path option, or HOME / XDG_STATE_HOME)");
  }
  const size_t slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) make_private_dirs(path.substr(0, slash));
}

}  // namespace

std::optional<std::string> cap_exceeded(const SpendWindows& usage, const SpendWindows& caps, long long request_tokens) {
  for (const SpendCap& c : kSpendCaps) {
    const long long used = usage.*c.window.*c.count;
    const long long cap = caps.*c.window.*c.count;
    const std::string name = std::string(c.key) + " (" + std::to_string(cap) + ")";
    if (c.count == &Spend::handoffs && used + 1 > cap) return name + " reached";
    if (c.count == &Spend::tokens && used + request_tokens > cap) {
      return name + " would be exceeded: " + std::to_string(used) + " used, this request may take " +
             std::to_string(request_tokens);
    }
  }
  return std::nullopt;
}

std::string default_spend_ledger_path(const EnvLookup& env) { return saguaro_state_dir(env) + "/spend-ledger.json"; }

SpendLedger::SpendLedger(std::string path, long long lock_wait_ms)
    : path_(std::move(path)), lock_wait_ms_(lock_wait_ms) {}

SpendWindows SpendLedger::usage(long long now_ms) const {
  prepare_directory(path_);
  LedgerLock lock(path_, lock_wait_ms_);
  return tally(load(path_), now_ms);
}

SpendLedger::Reservation SpendLedger::reserve(const SpendWindows& caps, long long reserved_tokens, long long now_ms) {
  prepare_directory(path_);
  LedgerLock lock(path_, lock_wait_ms_);
  std::vector<Entry> entries = load(path_);
  Reservation r;
  if (auto why = cap_exceeded(tally(entries, now_ms), caps, reserved_tokens)) {
    r.refusal = *why;
    return r;
  }
  // Entries older than a day no longer count toward any window.
  std::vector<Entry> kept;
  for (Entry& e : entries) {
    if (e.t_ms > now_ms - kDayMs) kept.push_back(std::move(e));
  }
  r.id = new_reservation_id();
  kept.push_back({r.id, now_ms, reserved_tokens});
  save(path_, kept);
  r.granted = true;
  return r;
}

void SpendLedger::settle(const std::string& reservation_id, long long actual_tokens) {
  prepare_directory(path_);
  LedgerLock lock(path_, lock_wait_ms_);
  std::vector<Entry> entries = load(path_);
  for (Entry& e : entries) {
    if (e.id == reservation_id) {
      e.tokens = std::max(0LL, actual_tokens);
      save(path_, entries);
      return;
    }
  }
}

}  // namespace saguaro::handoff
