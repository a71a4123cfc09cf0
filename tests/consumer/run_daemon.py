"""Runs the consumer's own node (weft_consumer_daemon, daemon_main.cpp) the
way its user would deploy it, for check_consumer.cmake:

1. start it alone on loopback (a free pair of ports in 27100..27899: the
   node's, and the admin endpoint's on the next one) and wait for /health;
2. POST /ask?to=127.0.0.1:PORT/greeter twice through the admin endpoint:
   each must come back as a reply (X-Weft-Outcome) carrying the greeting;
3. GET /metrics must count both in consumer_greetings_total, the metric
   the greeter registered through ActorStart::metrics;
4. SIGTERM: the node leaves, and must exit 0;
5. the program again with CONSUMER_DUPLICATE_GREETER=1 (the actor kind
   defined twice) must exit 2 naming "greeter" on stderr.

Every wait has a deadline. Prints one "consumer daemon: ..." line per step;
the first step that fails ends the run with exit 1 and one line
"consumer daemon: FAIL: <step>: <why>", followed by the node's log.

Usage: run_daemon.py PROGRAM WORKDIR
"""

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

GREETING = b"hello from the consumer"  # daemon_main.cpp's kGreeting
METRIC = "consumer_greetings_total"
ASKS = 2
PORTS = range(27100, 27900, 2)  # node ports; the admin endpoint's is the next
START_ATTEMPTS = 3  # a pair found free can be taken before the node binds it
HEALTH_DEADLINE_S = 20.0
METRICS_DEADLINE_S = 5.0  # the snapshot is rendered every 100 ms
LEAVE_TIMEOUT_S = 5  # the daemon's own bound on its leave (--leave-timeout)
EXIT_DEADLINE_S = LEAVE_TIMEOUT_S + 10.0
BAD_APP_DEADLINE_S = 10.0
POLL_S = 0.05


class StepFailed(Exception):
    pass


def free_pair(start):
    """The first (port, port + 1) from `start` on that both bind on
    127.0.0.1 right now."""
    for i in range(len(PORTS)):
        port = PORTS[(start + i) % len(PORTS)]
        try:
            with socket.socket() as a, socket.socket() as b:
                a.bind(("127.0.0.1", port))
                b.bind(("127.0.0.1", port + 1))
            return port
        except OSError:
            continue
    raise StepFailed(f"no free port pair in {PORTS.start}..{PORTS.stop - 1} on 127.0.0.1")


def get(admin, path):
    """(status, body) of GET http://admin/path; (None, reason) if no answer."""
    try:
        with urllib.request.urlopen(f"http://{admin}{path}", timeout=2) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except (urllib.error.URLError, OSError) as e:
        return None, str(e).encode()


class Node:
    def __init__(self, program, workdir):
        self.program = program
        self.log_path = os.path.join(workdir, "weft_consumer_daemon.log")
        self.proc = None
        self.port = None

    @property
    def admin(self):
        return f"127.0.0.1:{self.port + 1}"

    def start(self, port):
        self.port = port
        address = f"127.0.0.1:{port}"
        with open(self.log_path, "a") as log:
            log.write(f"--- {self.program} --advertise={address} --admin={self.admin}\n")
            log.flush()
            self.proc = subprocess.Popen(
                [self.program, f"--advertise={address}", f"--seed={address}", f"--admin={self.admin}",
                 f"--leave-timeout={LEAVE_TIMEOUT_S}"],
                stdout=log, stderr=subprocess.STDOUT)

    def wait_healthy(self):
        """True once /health says ok; False if the process exited first (its
        exit code is then in proc.returncode)."""
        deadline = time.monotonic() + HEALTH_DEADLINE_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            status, body = get(self.admin, "/health")
            if status == 200 and body == b"ok\n":
                return True
            time.sleep(POLL_S)
        raise StepFailed(f"/health on {self.admin} did not answer ok within {HEALTH_DEADLINE_S:.0f} s "
                         f"(last: {status} {body!r})")

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def log(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()
        except OSError:
            return ""


def start_healthy(node):
    seed = os.getpid() % len(PORTS)
    for attempt in range(1, START_ATTEMPTS + 1):
        port = free_pair(seed)
        node.start(port)
        if node.wait_healthy():
            return attempt
        # Exit 1 is "cannot start" (a port taken since free_pair): try the next pair.
        if node.proc.returncode != 1:
            break
        seed = PORTS.index(port) + 1
    raise StepFailed(f"the node exited {node.proc.returncode} before /health said ok")


def ask_greeter(node):
    target = f"127.0.0.1:{node.port}/greeter"
    req = urllib.request.Request(f"http://{node.admin}/ask?to={target}&timeout_ms=2000", data=b"hi",
                                 method="POST")
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            status, outcome, body = r.status, r.headers.get("X-Weft-Outcome"), r.read()
    except urllib.error.HTTPError as e:
        status, outcome, body = e.code, e.headers.get("X-Weft-Outcome"), e.read()
    except (urllib.error.URLError, OSError) as e:
        raise StepFailed(f"POST /ask?to={target}: no answer: {e}") from e
    if status != 200 or outcome != "reply" or body != GREETING:
        raise StepFailed(f"POST /ask?to={target}: {status}, outcome {outcome!r}, body {body!r} "
                         f"(want 200, 'reply', {GREETING!r})")


def sample(metrics, name):
    for line in metrics.decode(errors="replace").splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    return None


def wait_counted(node):
    deadline = time.monotonic() + METRICS_DEADLINE_S
    value = None
    while time.monotonic() < deadline:
        status, body = get(node.admin, "/metrics")
        value = sample(body, METRIC) if status == 200 else None
        if value == ASKS:
            return
        time.sleep(POLL_S)
    shown = f"no sample {METRIC}" if value is None else f"{METRIC} {value:g}"
    raise StepFailed(f"GET /metrics: {shown} after {METRICS_DEADLINE_S:.0f} s, want {METRIC} {ASKS}")


def leave(node):
    node.proc.send_signal(signal.SIGTERM)
    try:
        rc = node.proc.wait(timeout=EXIT_DEADLINE_S)
    except subprocess.TimeoutExpired as e:
        raise StepFailed(f"still running {EXIT_DEADLINE_S:.0f} s after SIGTERM") from e
    if rc != 0:
        raise StepFailed(f"exited {rc} after SIGTERM, want 0")


def refuses_duplicate(program):
    env = dict(os.environ, CONSUMER_DUPLICATE_GREETER="1")
    try:
        out = subprocess.run([program, "--advertise=127.0.0.1:27099"], env=env, capture_output=True, text=True,
                             timeout=BAD_APP_DEADLINE_S)
    except subprocess.TimeoutExpired as e:
        raise StepFailed(f"still running {BAD_APP_DEADLINE_S:.0f} s after start") from e
    if out.returncode != 2 or "greeter" not in out.stderr:
        raise StepFailed(f"exit {out.returncode} (want 2) with stderr {out.stderr!r} (want it to name 'greeter')")
    return out.stderr.strip().splitlines()[0]


def run(program, workdir):
    node = Node(program, workdir)
    step = "start"
    try:
        attempt = start_healthy(node)
        print(f"consumer daemon: up on 127.0.0.1:{node.port}, admin {node.admin} (start attempt {attempt})")
        step = "ask the greeter"
        for _ in range(ASKS):
            ask_greeter(node)
        print(f"consumer daemon: {ASKS} asks to 127.0.0.1:{node.port}/greeter answered {GREETING.decode()!r}")
        step = "its metric"
        wait_counted(node)
        print(f"consumer daemon: /metrics shows {METRIC} {ASKS}")
        step = "SIGTERM"
        started = time.monotonic()
        leave(node)
        print(f"consumer daemon: left on SIGTERM, exit 0 after {time.monotonic() - started:.1f} s")
        step = "a duplicate actor kind"
        print(f"consumer daemon: a duplicate greeter refused, exit 2: {refuses_duplicate(program)}")
    except StepFailed as e:
        print(f"consumer daemon: FAIL: {step}: {e}")
        node.stop()
        print(f"--- {node.log_path}:\n{node.log()}")
        return 1
    finally:
        node.stop()
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(run(sys.argv[1], sys.argv[2]))
