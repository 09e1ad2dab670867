"""`saguaro serve` on the default model under load and abuse, over loopback (docs/security.md, "Limits"):
- load: 8 concurrent streaming clients; p50 / p99 time to first token and tokens/s are printed (not asserted: they
  measure the machine); every answer must be `saguaro complete`'s at temperature 0 for the same question;
- abuse during the load: a client trickling its request a byte a second is cut off at --request-timeout (408 or
  closed, never answered) while the others are answered; headers over 64 KiB get 431, a body over 32 MiB 413;
  clients that leave mid-stream free their place;
- a full queue (--queue 0): 429 with Retry-After, and the answers that were admitted are right;
- SIGTERM with answers in flight: each is finished ([DONE]) and the server exits 0;
- a client that leaves stops its generation: `saguaro serve` sends the bundle program SIGUSR1 (saguaro_stop), checked
  on the program itself with stories260K, whose answers are long enough to stop midway;
- RSS of the server and its bundle program over a soak of load rounds after a warm-up: printed, and the growth
  after the warm-up bounded (see RSS_GROWTH_BOUND).
The server must answer correctly after every abuse case."""
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import threading
import time

import common

QUESTIONS = ["What is 17 + 25?", "What is 3 + 5?", "What is 31 + 18?", "Tell me a story."]
CLIENTS = 8
REQUEST_TIMEOUT_S = 3
# The soak: SOAK_ROUNDS x CLIENTS x 25 = 1200 requests after a warm-up that runs every kind of request and abuse, so
# that the allocator's arenas (one per worker thread) and the bundle program's heap have grown to their working size.
# 4 MiB over 1200 requests fails a leak of 3.5 KiB or more a request (a request body, an answer or a thread's stack
# kept), while leaving room for the allocator's page-granular growth; the measured growth is printed beside it.
SOAK_ROUNDS = 6
RSS_GROWTH_BOUND = 4 << 20


def chat_body(question, stream):
    body = {"model": "default", "messages": [{"role": "user", "content": question}], "max_tokens": 64,
            "temperature": 0}
    if stream:
        body.update(stream=True, stream_options={"include_usage": True})
    return json.dumps(body).encode()


def stream_chat(port, question):
    """One streaming completion: (status, text, completion tokens, seconds to the first content, seconds in all)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    start = time.perf_counter()
    conn.request("POST", "/v1/chat/completions", body=chat_body(question, True),
                 headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    if resp.status != 200:
        text = resp.read().decode()
        conn.close()
        return resp.status, text, 0, None, None
    text, tokens, first, done = "", 0, None, False
    for raw in resp:
        line = raw.decode().strip()
        if not line.startswith("data: "):
            continue
        if line == "data: [DONE]":
            done = True
            break
        event = json.loads(line[6:])
        if event.get("usage"):
            tokens = event["usage"]["completion_tokens"]
        for choice in event.get("choices", []):
            piece = choice["delta"].get("content")
            if piece:
                text += piece
                if first is None:
                    first = time.perf_counter() - start
    conn.close()
    return (200 if done else -1), text, tokens, first, time.perf_counter() - start


def post(port, question):
    """One plain completion: (status, content or error text, Retry-After)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("POST", "/v1/chat/completions", body=chat_body(question, False),
                 headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    text = resp.read().decode()
    conn.close()
    if resp.status == 200:
        text = json.loads(text)["choices"][0]["message"]["content"]
    return resp.status, text, resp.getheader("Retry-After")


def raw_exchange(port, data, read_timeout):
    """Sends `data` on a fresh connection and returns all the server sends until it closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=read_timeout) as s:
        s.sendall(data)
        got = b""
        try:
            while chunk := s.recv(65536):
                got += chunk
        except (socket.timeout, ConnectionResetError):
            pass
    return got.decode(errors="replace")


def check_answers(port, expected, when):
    for question, answer in expected.items():
        status, text, _ = post(port, question)
        if status != 200 or text != answer:
            raise SystemExit(f"FAIL: {when}: {question!r} got {status} {text!r}, `complete` gives {answer!r}")


def load_round(port, expected, requests_each):
    """CLIENTS streaming clients, requests_each requests each; every answer checked. Returns (ttfts, tokens, s)."""
    ttfts, tokens, failures = [], [], []
    lock = threading.Lock()

    def client(k):
        for i in range(requests_each):
            question = QUESTIONS[(k + i) % len(QUESTIONS)]
            status, text, n, first, _ = stream_chat(port, question)
            with lock:
                if status != 200 or text != expected[question]:
                    failures.append((question, status, text))
                else:
                    ttfts.append(first)
                    tokens.append(n)
    start = time.perf_counter()
    common.run_concurrently(client, CLIENTS)
    if failures:
        raise SystemExit(f"FAIL: {len(failures)} streamed answers were wrong, e.g. {failures[:3]}")
    return ttfts, tokens, time.perf_counter() - start


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def trickle(port, results):
    """A whole request at a byte a second; the server must cut it off after REQUEST_TIMEOUT_S."""
    body = chat_body(QUESTIONS[0], False)
    request = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    start = time.perf_counter()
    got = b""
    with socket.create_connection(("127.0.0.1", port), timeout=REQUEST_TIMEOUT_S + 10) as s:
        try:
            for byte in request:
                s.sendall(bytes([byte]))
                time.sleep(1)
                s.setblocking(False)
                try:
                    chunk = s.recv(65536)
                    got += chunk
                    if not chunk:
                        break
                except BlockingIOError:
                    pass
                finally:
                    s.setblocking(True)
                if time.perf_counter() - start > REQUEST_TIMEOUT_S + 10:
                    break
        except (BrokenPipeError, ConnectionResetError):
            pass
    results["trickle"] = (time.perf_counter() - start, got.decode(errors="replace"))


def leave_mid_stream(port, times, results):
    """Streams that the client closes after the first bytes, 20 a second; the server must give their places back
    (it notices within 50 ms while they wait, at their first token once they generate)."""
    for _ in range(times):
        with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
            body = chat_body(QUESTIONS[3], True)
            s.sendall((f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                       f"Content-Length: {len(body)}\r\n\r\n").encode() + body)
            s.recv(200)
        time.sleep(0.05)
    results["left"] = times


def check_oversized(port, results):
    headers = "".join(f"X-Filler-{i}: {'a' * 1000}\r\n" for i in range(70))  # 70 KiB of headers
    got = raw_exchange(port, f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n{headers}\r\n".encode(), 30)
    if not got.startswith("HTTP/1.1 431"):
        raise SystemExit(f"FAIL: 70 KiB of headers: {got[:200]!r}")
    got = raw_exchange(port, (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                              b"Content-Length: 33554433\r\n\r\n" + b" " * 33554433), 30)
    if not got.startswith("HTTP/1.1 413") or "33554432 bytes" not in got:
        raise SystemExit(f"FAIL: a 32 MiB + 1 body: {got[:300]!r}")
    results["oversized"] = True


def rss_bytes(pid):
    """VmRSS of the process and its children (the bundle program, started by whichever thread served first)."""
    total = 0
    children = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and int(open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()[1]) == pid:
                children.append(entry)
        except OSError:
            pass
    if len(children) != 1:
        raise SystemExit(f"FAIL: the server has {len(children)} child processes, not its one bundle program")
    for p in [str(pid)] + children:
        for line in open(f"/proc/{p}/status"):
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) * 1024
    return total


def check_load_and_abuse(args, model, env, expected):
    # The queue holds the CLIENTS and the few places of clients that left and are not yet noticed; a full queue
    # (429) is check_queue_full's case.
    server, port, log, _ = common.start_serve(
        args, model, ["--request-timeout", str(REQUEST_TIMEOUT_S), "--queue", str(CLIENTS + 4)], env,
        "serve-load.log")
    try:
        # Warm-up: load rounds for as long as the abuse lasts, so the answers are checked during all of it.
        abuse = {}
        threads = [threading.Thread(target=trickle, args=(port, abuse)),
                   threading.Thread(target=leave_mid_stream, args=(port, 40, abuse)),
                   threading.Thread(target=check_oversized, args=(port, abuse))]
        for t in threads:
            t.start()
        ttfts, seconds = [], 0.0
        while any(t.is_alive() for t in threads) or not ttfts:
            round_ttfts, _, round_seconds = load_round(port, expected, 5)
            ttfts += round_ttfts
            seconds += round_seconds
        for t in threads:
            t.join()
        if "left" not in abuse or "trickle" not in abuse or "oversized" not in abuse:
            raise SystemExit(f"FAIL: an abuse case did not finish: {sorted(abuse)}")
        elapsed, got = abuse["trickle"]
        if not (REQUEST_TIMEOUT_S - 0.5 <= elapsed <= REQUEST_TIMEOUT_S + 3) or (got and not got.startswith(
                "HTTP/1.1 408")):
            raise SystemExit(f"FAIL: the trickling client: cut off after {elapsed:.1f} s with {got[:200]!r}")
        check_answers(port, expected, "after the abuse")
        print(f"ok: during {seconds:.1f} s of load a trickling client was cut off after {elapsed:.1f} s "
              f"({'408' if got else 'closed in its request line'}), 70 KiB of headers got 431, a 32 MiB + 1 body "
              f"413, {abuse['left']} clients left mid-stream; all {len(ttfts)} streamed answers right")

        # The load figures and the soak.
        rss = [rss_bytes(server.pid)]
        all_ttfts, all_tokens, all_seconds = [], [], 0.0
        for _ in range(SOAK_ROUNDS):
            ttfts, tokens, seconds = load_round(port, expected, 25)
            all_ttfts += ttfts
            all_tokens += tokens
            all_seconds += seconds
            rss.append(rss_bytes(server.pid))
        check_answers(port, expected, "after the soak")
        print(f"load: {CLIENTS} concurrent streaming clients, {len(all_ttfts)} completions in {all_seconds:.1f} s: "
              f"time to first token p50 {percentile(all_ttfts, 50) * 1000:.1f} ms, "
              f"p99 {percentile(all_ttfts, 99) * 1000:.1f} ms; {sum(all_tokens) / all_seconds:.0f} tokens/s "
              f"in all ({statistics.mean(all_tokens):.1f} tokens a completion; load average "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
        growth = rss[-1] - rss[0]
        print("rss (server + bundle program) after the warm-up and each soak round, MiB: "
              + " ".join(f"{r / 2**20:.1f}" for r in rss) + f"; growth {growth / 2**10:.0f} KiB over "
              f"{len(all_ttfts)} requests (bound {RSS_GROWTH_BOUND >> 20} MiB)")
        if growth > RSS_GROWTH_BOUND:
            raise SystemExit(f"FAIL: RSS grew by {growth} bytes after the warm-up")
    finally:
        server.terminate()
        server.wait(timeout=60)


def check_queue_full(args, model, env, expected):
    """--queue 0: while one completion generates, any other is 429 with Retry-After. Bursts until one overlaps."""
    server, port, _, _ = common.start_serve(args, model, ["--queue", "0"], env, "serve-queue.log")
    try:
        statuses, retry_after = [], []
        for _ in range(20):
            results = []
            barrier = threading.Barrier(16)

            def client(k):
                barrier.wait()
                question = QUESTIONS[k % len(QUESTIONS)]
                status, text, retry = post(port, question)
                results.append((status, text, retry, question))
            common.run_concurrently(client, 16)
            for status, text, retry, question in results:
                statuses.append(status)
                if status == 429:
                    if not retry or int(retry) < 1 or json.loads(text)["error"]["code"] != "server_busy":
                        raise SystemExit(f"FAIL: 429 with Retry-After {retry!r}: {text[:200]!r}")
                    retry_after.append(int(retry))
                elif status != 200 or text != expected[question]:
                    raise SystemExit(f"FAIL: with a full queue {question!r} got {status} {text!r}")
            if 429 in statuses:
                break
        if 429 not in statuses:
            raise SystemExit("FAIL: 20 bursts of 16 clients against --queue 0 never got 429")
        check_answers(port, expected, "after the full queue")
        print(f"ok: --queue 0: {statuses.count(429)} of {len(statuses)} burst requests got 429 (Retry-After "
              f"{min(retry_after)}..{max(retry_after)} s), the other {statuses.count(200)} the right answer")
    finally:
        server.terminate()
        server.wait(timeout=60)


def check_sigterm(args, model, env, expected):
    """SIGTERM with streams in flight: each ends with [DONE], the server exits 0, no new connection is taken."""
    server, port, log, _ = common.start_serve(args, model, [], env, "serve-sigterm.log")
    results = []
    lock = threading.Lock()
    started = threading.Barrier(CLIENTS + 1)

    def client(k):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        question = QUESTIONS[k % len(QUESTIONS)]
        conn.request("POST", "/v1/chat/completions", body=chat_body(question, True),
                     headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        first = resp.readline()  # the role chunk: this answer is in flight
        started.wait()
        rest = resp.read().decode()
        conn.close()
        with lock:
            results.append((resp.status, first, rest, question))
    threads = [threading.Thread(target=client, args=(k,)) for k in range(CLIENTS)]
    for t in threads:
        t.start()
    started.wait()
    server.send_signal(signal.SIGTERM)
    for t in threads:
        t.join()
    code = server.wait(timeout=60)
    for status, first, rest, question in results:
        text = "".join(json.loads(line[6:])["choices"][0]["delta"].get("content") or ""
                       for line in rest.splitlines()
                       if line.startswith("data: {") and json.loads(line[6:]).get("choices"))
        if status != 200 or "data: [DONE]" not in rest or text != expected[question]:
            raise SystemExit(f"FAIL: after SIGTERM a stream in flight ended {status} {rest[-200:]!r}")
    if code != 0:
        raise SystemExit(f"FAIL: the server exited {code} after SIGTERM: {open(log).read()[-1000:]}")
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        raise SystemExit("FAIL: the port still takes connections after the server exited")
    except OSError:
        pass
    print(f"ok: SIGTERM with {len(results)} streams in flight: each finished with [DONE], exit 0")


def check_stop_signal(args, env):
    """The bundle program in --serve-stdio mode, SIGUSR1 at the first token: the answer ends early with a prefix of
    the full one, and the next request is answered in full."""
    model = common.require_shared(args, "data", "stories260K", "stories260K.bin")
    tok = common.require_shared(args, "data", "stories260K", "tok512.bin")
    out = os.path.join(args.work_dir, "stories-bundle")
    common.run([args.saguaro, "compile", model, "--tokenizer", tok, "-o", out], args)
    common.run(["cmake", "-S", out, "-B", out + "/build", "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"], args)
    common.run(["cmake", "--build", out + "/build"], args)
    program = subprocess.Popen([out + "/build/saguaro_bundle", out + "/weights.sgw", "--serve-stdio"], env=env,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    request = json.dumps({"messages": [{"role": "user", "content": "Once upon a time"}],
                          "options": {"max_tokens": 400, "temperature": 0}}) + "\n"

    def answer(stop):
        program.stdin.write(request)
        program.stdin.flush()
        while True:
            line = json.loads(program.stdout.readline())
            if "token" in line:
                if stop:
                    program.send_signal(signal.SIGUSR1)
                    stop = False
                continue
            return line["response"]["response"], line["response"]["decode_tokens"]
    full, full_tokens = answer(False)
    stopped, stopped_tokens = answer(True)
    again, _ = answer(False)
    program.stdin.close()
    if program.wait(timeout=60) != 0:
        raise SystemExit("FAIL: the bundle program did not exit 0 at the end of its input")
    if not (stopped_tokens < full_tokens and full.startswith(stopped)) or again != full:
        raise SystemExit(f"FAIL: SIGUSR1 at the first token: {stopped_tokens} of {full_tokens} tokens "
                         f"({stopped[:80]!r}), then {again[:80]!r}")
    print(f"ok: SIGUSR1 at the first token stopped the bundle program's answer after {stopped_tokens} of "
          f"{full_tokens} tokens; the next answer was whole")


def main():
    args = common.parse_args()
    model = os.path.join(args.source_dir, "examples", "models", "default")
    env = dict(os.environ, SAGUARO_CACHE_DIR=os.path.join(args.work_dir, "cache"))
    env.pop("SAGUARO_SERVE_API_KEY", None)
    expected = {}
    for question in QUESTIONS:
        messages = [{"role": "user", "content": question}]
        local = json.loads(subprocess.run(
            [args.saguaro, "complete", model, "--messages", json.dumps(messages), "--options",
             json.dumps({"max_tokens": 64, "temperature": 0})], env=env, capture_output=True, text=True,
            check=True, timeout=600).stdout)
        expected[question] = local["response"]
    check_load_and_abuse(args, model, env, expected)
    check_queue_full(args, model, env, expected)
    check_sigterm(args, model, env, expected)
    check_stop_signal(args, env)


if __name__ == "__main__":
    main()
