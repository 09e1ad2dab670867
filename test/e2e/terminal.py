"""A program on a pseudo-terminal, driven as a person at a terminal drives it (`saguaro chat`'s tests)."""
import os
import pty
import re
import select
import time

TIMEOUT = 300  # seconds to wait for any one thing on the screen (sanitized, loaded machines)


class Terminal:
    """`saguaro chat ...` on a pseudo-terminal: type(), send_interrupt(), expect() on what the screen shows."""

    def __init__(self, argv, env):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: becomes the program, or says why not and ends without running the parent's code
            try:
                os.execve(argv[0], argv, env)
            except OSError as e:
                os.write(2, f"cannot run {argv[0]}: {e}\n".encode())
            os._exit(127)
        self.screen = ""   # everything shown so far, \r\n as \n
        self.seen = 0      # expect() consumed the screen up to here

    def type(self, line):
        os.write(self.fd, line.encode() + b"\n")

    def send_interrupt(self):
        os.write(self.fd, b"\x03")  # the terminal turns it into SIGINT for the foreground process group

    def send_eof(self):
        os.write(self.fd, b"\x04")

    def expect(self, pattern, what):
        """Waits until `pattern` (a regex) appears after what was consumed; returns the match, consumes up to its end."""
        deadline = time.time() + TIMEOUT
        regex = re.compile(pattern, re.S)
        while True:
            match = regex.search(self.screen, self.seen)
            if match:
                self.seen = match.end()
                return match
            left = deadline - time.time()
            if left <= 0 or not self._read(left):
                print(self.screen)
                raise SystemExit(f"FAIL: {what}: the screen never showed {pattern!r}")

    def _read(self, timeout):
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # the program has exited
            return False
        if not data:
            return False
        self.screen += data.decode(errors="replace").replace("\r\n", "\n")
        return True

    def wait(self):
        """The exit status, once the program has ended (its last output is read first)."""
        while self._read(TIMEOUT):
            pass
        _, status = os.waitpid(self.pid, 0)
        return os.waitstatus_to_exitcode(status)


def reply_of(terminal, typed, what):
    """Types `typed` and returns the streamed reply (up to the status line) and the status line."""
    terminal.type(typed)
    terminal.expect(re.escape(typed) + "\n", f"{what}: the echo of the typed line")
    match = terminal.expect(r"(.*?)(\[(?:local|cloud|stopped)[^\]\n]*\])\n", f"{what}: a reply and its status line")
    return match.group(1), match.group(2)


def check_reply(streamed, expected, what):
    """The screen shows the reply, then a newline when the reply does not end with one."""
    shown = expected if expected.endswith("\n") else expected + "\n"
    if streamed != shown:
        raise SystemExit(f"FAIL: {what}: the chat streamed {streamed!r}, `saguaro complete` answers {expected!r}")
