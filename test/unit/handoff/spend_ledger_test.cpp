// The spend cap must hold across restarts (the ledger object rebuilt from its file), across processes racing on the
// same file, and across processes killed mid-update; a corrupt file is an error, never a reset.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <random>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "saguaro/handoff/error.h"
#include "saguaro/handoff/spend_ledger.h"
#include "test_support.h"

namespace saguaro::handoff::test {
namespace {

constexpr long long kHour = 3600LL * 1000;
const long long kNow = 1'800'000'000'000LL;

SpendWindows caps(long long per_hour, long long per_day, long long tokens_hour = 1LL << 40,
                  long long tokens_day = 1LL << 40) {
  return {{per_hour, tokens_hour}, {per_day, tokens_day}};
}

TEST(SpendLedger, HandoffCapHoldsAcrossRestart) {
  TempDir dir;
  const std::string path = dir.file("state/saguaro/ledger.json");
  {
    SpendLedger ledger(path);
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(ledger.reserve(caps(3, 100), 10, kNow + i).granted);
    EXPECT_FALSE(ledger.reserve(caps(3, 100), 10, kNow + 3).granted);
  }
  SpendLedger restarted(path);  // a new process would start exactly like this
  SpendLedger::Reservation r = restarted.reserve(caps(3, 100), 10, kNow + 10);
  EXPECT_FALSE(r.granted);
  EXPECT_NE(r.refusal.find("max_handoffs_per_hour (3)"), std::string::npos) << r.refusal;
  // An hour later the hourly window has rolled; the daily one still counts all of them.
  EXPECT_TRUE(restarted.reserve(caps(3, 100), 10, kNow + kHour + 5).granted);
  SpendWindows u = restarted.usage(kNow + kHour + 5);
  EXPECT_EQ(u.hour.handoffs, 1);
  EXPECT_EQ(u.day.handoffs, 4);
  EXPECT_FALSE(restarted.reserve(caps(100, 4), 10, kNow + 2 * kHour).granted);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 077, 0u);
}

TEST(SpendLedger, TokenCapUsesReservationThenSettledCounts) {
  TempDir dir;
  SpendLedger ledger(dir.file("ledger.json"));
  const SpendWindows c = caps(100, 100, 1000, 5000);
  SpendLedger::Reservation a = ledger.reserve(c, 600, kNow);
  ASSERT_TRUE(a.granted);
  // While the first request is in flight its 600 reserved tokens count: a second 600 would overshoot.
  SpendLedger::Reservation b = ledger.reserve(c, 600, kNow + 1);
  EXPECT_FALSE(b.granted);
  EXPECT_NE(b.refusal.find("max_cloud_tokens_per_hour"), std::string::npos);
  ledger.settle(a.id, 150);  // the provider reported less
  EXPECT_EQ(SpendLedger(dir.file("ledger.json")).usage(kNow + 2).hour.tokens, 150);
  EXPECT_TRUE(ledger.reserve(c, 600, kNow + 2).granted);
}

TEST(SpendLedger, CorruptFileIsAClearErrorNamingTheFile) {
  TempDir dir;
  const std::string path = dir.file("ledger.json");
  // "" and a cut-off object are what an OS crash can leave of a file written without fsync.
  for (const char* text : {"", "{not json", "[]", R"({"version":1})", R"({"version":1,"entries":[{"id":"x"}]})",
                           R"({"version":2,"entries":[]})", R"({"version":1,"entries":[{"id":"a","t_ms":1,"tok)"}) {
    test::write_text_file(path, text);
    SpendLedger ledger(path);
    try {
      ledger.reserve(caps(100, 100), 1, kNow);
      FAIL() << "accepted corrupt ledger: " << text;
    } catch (const HandoffError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("corrupt"), std::string::npos) << e.what();
    }
    EXPECT_THROW(ledger.usage(kNow), HandoffError);
    EXPECT_EQ(test::read_text_file(path), text) << "a corrupt ledger must stay as it was, never reset";
  }
}

// A process killed between writing "<ledger>.tmp" and renaming it leaves that file behind: the ledger still holds
// the last complete state, and the next save replaces the leftover.
TEST(SpendLedger, LeftoverTempFileOfAKilledWriterIsHarmless) {
  TempDir dir;
  const std::string path = dir.file("ledger.json");
  SpendLedger ledger(path);
  ASSERT_TRUE(ledger.reserve(caps(3, 100), 10, kNow).granted);
  ASSERT_TRUE(ledger.reserve(caps(3, 100), 10, kNow + 1).granted);
  test::write_text_file(path + ".tmp", R"({"version":1,"entries":[{"id":"half-wri)");
  EXPECT_EQ(SpendLedger(path).usage(kNow + 2).hour.handoffs, 2);
  ASSERT_TRUE(ledger.reserve(caps(3, 100), 10, kNow + 2).granted);
  EXPECT_FALSE(ledger.reserve(caps(3, 100), 10, kNow + 3).granted);
  EXPECT_EQ(SpendLedger(path).usage(kNow + 4).hour.handoffs, 3);
  EXPECT_NE(::access((path + ".tmp").c_str(), F_OK), 0) << "the leftover was not replaced and renamed";
}

// A process that holds the lock and never lets go (stopped, hung) costs a bounded wait, then a clear error.
TEST(SpendLedger, HeldLockIsABoundedWaitThenAnError) {
  TempDir dir;
  const std::string path = dir.file("ledger.json");
  const int fd = ::open((path + ".lock").c_str(), O_RDWR | O_CREAT, 0600);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  SpendLedger ledger(path);
  const auto start = std::chrono::steady_clock::now();
  try {
    ledger.reserve(caps(10, 10), 1, kNow);
    FAIL() << "reserved while another holder had the lock";
  } catch (const HandoffError& e) {
    EXPECT_NE(std::string(e.what()).find("stayed locked"), std::string::npos) << e.what();
  }
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  EXPECT_GE(waited.count(), 900);
  EXPECT_LE(waited.count(), 1500);
  ::close(fd);  // releases; the abandoned waiter takes and drops the lock, so the next caller gets it
  EXPECT_TRUE(ledger.reserve(caps(10, 10), 1, kNow).granted);
}

// The racing processes' lock wait: these tests count grants, and the bounded wait has its own test above; under a
// sanitizer on a loaded machine a lock holder can be off the CPU for longer than the default second.
constexpr long long kRaceLockWaitMs = 30'000;

// Forks `processes` children that each try `attempts` reservations; returns the total granted.
int race(const std::string& path, int processes, int attempts, const SpendWindows& c) {
  std::vector<pid_t> children;
  for (int p = 0; p < processes; ++p) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      int granted = 0;
      try {
        SpendLedger ledger(path, kRaceLockWaitMs);
        for (int i = 0; i < attempts; ++i) granted += ledger.reserve(c, 1, kNow + i).granted ? 1 : 0;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "child %d: %s\n", static_cast<int>(::getpid()), e.what());
        ::_exit(255);
      }
      ::_exit(granted);
    }
    children.push_back(pid);
  }
  int total = 0;
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status));
    EXPECT_NE(WEXITSTATUS(status), 255) << "child failed";
    total += WEXITSTATUS(status);
  }
  return total;
}

TEST(SpendLedger, RacingProcessesLoseNoCounts) {
  TempDir dir;
  const std::string path = dir.file("ledger.json");
  EXPECT_EQ(race(path, 3, 60, caps(100000, 100000)), 180);
  EXPECT_EQ(SpendLedger(path).usage(kNow + 100).hour.handoffs, 180);
}

TEST(SpendLedger, RacingProcessesCannotOvershootTheCap) {
  TempDir dir;
  const std::string path = dir.file("ledger.json");
  EXPECT_EQ(race(path, 3, 40, caps(50, 1000)), 50);
  EXPECT_EQ(SpendLedger(path).usage(kNow + 100).hour.handoffs, 50);
}

// Processes SIGKILLed at arbitrary points of their updates (holding the lock, between write and rename) never leave
// a ledger that fails to load, nor one that lost a reservation its process had been told was granted.
TEST(SpendLedger, ProcessesKilledMidUpdateLeaveAWholeLedger) {
  TempDir dir;
  const std::string path = dir.file("ledger.json");
  int granted_pipe[2];
  ASSERT_EQ(::pipe(granted_pipe), 0);
  constexpr int kProcesses = 3;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(granted_pipe[0]);
      try {
        SpendLedger ledger(path, kRaceLockWaitMs);
        for (int i = 0;; ++i) {
          if (!ledger.reserve(caps(1 << 30, 1 << 30), 1, kNow + i).granted) ::_exit(4);
          const char grant = 1;  // one byte per grant, sent after reserve() returned
          if (::write(granted_pipe[1], &grant, 1) != 1) ::_exit(5);
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "child %d: %s\n", static_cast<int>(::getpid()), e.what());
        ::_exit(3);
      }
    }
    children.push_back(pid);
  }
  ::close(granted_pipe[1]);
  // The kills start once updates are under way: a loaded machine may take a while to start the children. (read
  // returns 0 rather than block should every child have ended.)
  char first_grant;
  long long told = ::read(granted_pipe[0], &first_grant, 1) == 1 ? 1 : 0;
  std::mt19937 rng(20261127);
  std::uniform_int_distribution<int> pause_us(20'000, 150'000);
  for (pid_t pid : children) {
    ::usleep(static_cast<useconds_t>(pause_us(rng)));
    ::kill(pid, SIGKILL);
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status)) << "a child stopped on its own with exit code " << WEXITSTATUS(status);
  }
  char buf[4096];
  for (ssize_t n; (n = ::read(granted_pipe[0], buf, sizeof buf)) > 0;) told += n;
  ::close(granted_pipe[0]);
  EXPECT_GT(told, 0);
  const long long recorded = SpendLedger(path).usage(kNow + kHour).day.handoffs;  // throws if it were corrupt
  EXPECT_GE(recorded, told);
  EXPECT_LE(recorded, told + kProcesses);  // at most one saved but unreported grant per killed process
}

}  // namespace
}  // namespace saguaro::handoff::test
