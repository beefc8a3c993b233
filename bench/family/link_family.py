"""The link-family benchmark: Multilane self-tuned on links drawn from a seed.

Each link is a linksim in front of three ports of one multilane-receiver. What counts is what a
user sees: bytes over the wall time of the whole client process, against the link's uplink.
The seconds to 90 % come from linksim's own count of the bytes it took onto the uplink (a sample
every 100 ms), from the first byte. Nothing here is fitted to any row: the links come from the
seed, and a new seed must give the same verdicts.
"""

import argparse
import json
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import chart  # this folder's chart.py

MB = 1_000_000


def log_uniform(rng, low, high):
    return math.exp(rng.uniform(math.log(low), math.log(high)))


def draw_links(seed, count):
    """The family: per-connection caps, window-limited links, links one connection fills."""
    rng = random.Random(seed)
    kinds = ["capped"] * count
    # At least two of each of the other kinds, the rest capped, in a seeded order.
    for i in range(min(count, 4)):
        kinds[i] = "window" if i < 2 else "fills"
    rng.shuffle(kinds)
    links = []
    for index, kind in enumerate(kinds):
        rtt = log_uniform(rng, 5, 300)
        uplink = log_uniform(rng, 5, 120) * MB
        link = {"index": index, "kind": kind, "rtt": round(rtt, 1), "uplink": round(uplink)}
        if kind == "capped":
            # A cap below the uplink (else it is a link one connection fills).
            per = log_uniform(rng, 0.25, min(20, uplink / MB / 1.5)) * MB
            link["per"] = round(per)
            link["args"] = ["--per-connection-rate", str(link["per"]), "--total-rate", str(link["uplink"])]
        elif kind == "window":
            # No cap per connection, but a window: the buffer linksim holds bounds a connection to
            # buffer / (RTT/2), as a TCP window does.
            per = log_uniform(rng, 0.25, min(8, uplink / MB / 1.5)) * MB
            buffer = max(16 * 1024, int(per * rtt / 2000))
            link["window"] = buffer
            link["per"] = round(buffer / (rtt / 2000))
            link["args"] = ["--buffer", str(buffer), "--total-rate", str(link["uplink"])]
        else:
            per = uplink * rng.uniform(1.0, 3.0)
            link["per"] = round(per)
            link["args"] = ["--per-connection-rate", str(link["per"]), "--total-rate", str(link["uplink"])]
        link["args"] += ["--rtt", str(link["rtt"])]
        links.append(link)
    return links


def describe(link):
    per = f"{link['per'] / MB:.2f} MB/s per connection"
    if link["kind"] == "window":
        per = f"window {link['window'] // 1024} KiB (≈{link['per'] / MB:.2f} MB/s)"
    elif link["kind"] == "fills":
        per = f"{link['per'] / MB:.1f} MB/s per connection (fills)"
    return f"{per}, uplink {link['uplink'] / MB:.1f} MB/s, RTT {link['rtt']:.0f} ms"


class Receiver:
    def __init__(self, binary, storage, log):
        self.log = log
        self.process = subprocess.Popen(
            [binary, "--quiet", "--storage", storage, "--listen", "127.0.0.1:0,0,0"],
            stdout=open(log, "w"), stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while time.time() < deadline:
            lines = [l for l in open(log).read().splitlines() if l.startswith("listening on ")]
            if len(lines) >= 3:
                self.urls = [l.split()[-1] for l in lines[:3]]
                return
            time.sleep(0.05)
        raise RuntimeError("the receiver did not start: " + open(log).read())

    def cpu_seconds(self):
        fields = open(f"/proc/{self.process.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=20)


class Link:
    def __init__(self, binary, receiver_urls, args, work):
        self.report = os.path.join(work, "linksim.report")
        log = os.path.join(work, "linksim.log")
        listen = []
        for url in receiver_urls:
            listen += ["--listen", "127.0.0.1:0=" + url.split("//", 1)[1]]
        self.process = subprocess.Popen([binary, "--quiet", "--report", self.report] + listen + args,
                                        stdout=open(log, "w"), stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while time.time() < deadline:
            lines = [l for l in open(log).read().splitlines() if l.startswith("linksim ")]
            if len(lines) >= len(receiver_urls):
                self.urls = ["http://" + l.split()[1] for l in lines]
                return
            time.sleep(0.05)
        raise RuntimeError("linksim did not start: " + open(log).read())

    def samples(self):
        rows = []
        for line in open(self.report):
            parts = line.split()
            if len(parts) == 3:
                rows.append((int(parts[0]) / 1000.0, int(parts[1]), int(parts[2])))
        return rows

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=20)


def seconds_to_90(samples, start, end):
    """From the first byte, how long until the uplink carried 90 % of the steady rate (the rate
    over the middle half of the transfer), in a 500 ms window."""
    inside = [s for s in samples if start <= s[0] <= end + 0.2]
    moving = [s for s in inside if s[1] > inside[0][1]] if inside else []
    if len(moving) < 6:
        return None
    first = moving[0][0]
    last = moving[-1][0]
    span = last - first
    a = min(moving, key=lambda s: abs(s[0] - (first + span / 4)))
    b = min(moving, key=lambda s: abs(s[0] - (first + 3 * span / 4)))
    if b[0] <= a[0]:
        return None
    steady = (b[1] - a[1]) / (b[0] - a[0])
    for i, sample in enumerate(moving):
        earlier = [s for s in moving[: i + 1] if s[0] <= sample[0] - 0.5]
        if not earlier:
            continue
        back = earlier[-1]
        rate = (sample[1] - back[1]) / (sample[0] - back[0])
        if rate >= 0.9 * steady:
            return max(0.0, back[0] - first)
    return None


def run_timed(command, timeout, env=None, stderr_path=None):
    started = time.time()
    timed = ["/usr/bin/time", "-f", "%e %U %S %M", "-o", "/tmp/link-family.time"] + command
    stderr = open(stderr_path, "w") if stderr_path else subprocess.DEVNULL
    process = subprocess.Popen(timed, stdout=subprocess.PIPE, stderr=stderr, start_new_session=True, env=env)
    try:
        output, _ = process.communicate(timeout=timeout)
        code = process.returncode
        stdout = output.decode(errors="replace")
    except subprocess.TimeoutExpired:
        # The whole group: time's child too, or it would go on competing with the next run.
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        code, stdout = None, ""
    wall = time.time() - started
    cpu = None
    try:
        fields = open("/tmp/link-family.time").read().split()
        cpu = float(fields[1]) + float(fields[2])
    except (OSError, IndexError, ValueError):
        pass
    return code, stdout, wall, cpu


def make_workloads(work, link, which, big_seconds, pool):
    """Files for a link: `big` is about big_seconds of its uplink; `small` 300 x 200 KiB; `mix`
    the 59 files of 109 MB of the project's first brief."""
    folders = {}
    for name in which:
        folder = os.path.join(work, "src", name)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        if name == "big":
            size = int(big_seconds * link["uplink"])
            copy_prefix(pool, os.path.join(folder, "big.bin"), size)
        elif name == "small":
            for i in range(300):
                copy_prefix(pool, os.path.join(folder, f"f{i:03}.bin"), 200 * 1024, offset=i * 200 * 1024)
        elif name == "mix":
            sizes = [int(20000 * 1.118 ** i) for i in range(59)]
            scale = 109_000_000 / sum(sizes)
            offset = 0
            for i, size in enumerate(sizes):
                copy_prefix(pool, os.path.join(folder, f"file{i:02}.dat"), int(size * scale), offset=offset)
                offset += int(size * scale)
        folders[name] = folder
    return folders


def copy_prefix(pool, target, size, offset=0):
    """`size` bytes of the random pool file (from `offset`, wrapping), so files need not be
    drawn from /dev/urandom each time."""
    pool_size = os.path.getsize(pool)
    with open(pool, "rb") as source, open(target, "wb") as sink:
        position = offset % pool_size
        left = size
        while left > 0:
            source.seek(position)
            piece = source.read(min(left, pool_size - position, 8 << 20))
            sink.write(piece)
            left -= len(piece)
            position = (position + len(piece)) % pool_size


def folder_bytes(folder):
    return sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))


def verdict(fraction, link_seconds, rtt, curl_fraction, kind):
    if fraction is None:
        return "FAIL (did not finish)"
    if link_seconds >= 10 and fraction < 0.95:
        return "FAIL (< 0.95)"
    if link_seconds >= 3 and rtt <= 100 and fraction < 0.90:
        return "FAIL (< 0.90)"
    if kind == "fills" and curl_fraction is not None and fraction < curl_fraction:
        return "FAIL (below curl)"
    if link_seconds >= 10:
        return "ok (≥ 0.95)"
    if link_seconds >= 3 and rtt <= 100:
        return "ok (≥ 0.90)"
    return "no target"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    parser.add_argument("--out", default="bench-out")
    args = parser.parse_args()
    seed = int(os.environ.get("SEED") or random.SystemRandom().randrange(1, 10 ** 6))
    count = int(os.environ.get("LINKS", "12"))
    workloads = os.environ.get("WORKLOADS", "big small mix").split()
    clients = os.environ.get("CLIENTS", "multilane curl8").split()
    big_seconds = float(os.environ.get("BIG_SECONDS", "20"))
    only = os.environ.get("ONLY")  # comma-separated link indexes, to look at a few again
    links = draw_links(seed, count)
    if only:
        keep = {int(i) for i in only.split(",")}
        links = [l for l in links if l["index"] in keep]
    binary = os.path.join(args.build, "app", "multilane")
    work = tempfile.mkdtemp(prefix="multilane-family.")
    print(f"seed {seed}: {len(links)} links; workloads {' '.join(workloads)}; clients {' '.join(clients)}", flush=True)
    for link in links:
        print(f"  link {link['index']} ({link['kind']}): {describe(link)}", flush=True)
    pool = os.path.join(work, "pool.bin")
    largest = max(int(big_seconds * l["uplink"]) for l in links) if "big" in workloads else 0
    with open(pool, "wb") as f:
        f.write(os.urandom(max(256 << 20, min(largest, 512 << 20))))
    storage = os.path.join(work, "storage")
    os.makedirs(storage)
    receiver = Receiver(os.path.join(args.build, "app", "multilane-receiver"), storage, os.path.join(work, "receiver.log"))
    rows = []
    try:
        for link in links:
            folders = make_workloads(work, link, workloads, big_seconds, pool)
            for workload in workloads:
                size = folder_bytes(folders[workload])
                link_seconds = size / link["uplink"]
                row = {"link": link, "workload": workload, "bytes": size, "link_seconds": link_seconds}
                for client in clients:
                    row[client] = run_client(client, args.build, binary, receiver, link, folders[workload], work,
                                             size, link_seconds)
                    # Only what the run stored: the receiver's own folder in storage stays.
                    for name in os.listdir(storage):
                        if not name.startswith("."):
                            shutil.rmtree(os.path.join(storage, name), ignore_errors=True)
                curl = row.get("curl8", {}).get("fraction")
                row["verdict"] = verdict(row.get("multilane", {}).get("fraction"), link_seconds, link["rtt"], curl,
                                         link["kind"])
                rows.append(row)
                print(format_row(row, clients), flush=True)
    finally:
        receiver.stop()
        shutil.rmtree(work, ignore_errors=True)
    write_outputs(args.out, seed, links, rows, clients)


def run_client(client, build, binary, receiver, link, folder, work, size, link_seconds):
    sim = Link(os.path.join(build, "bench", "linksim", "linksim"), receiver.urls, link["args"], work)
    cpu_before = receiver.cpu_seconds()
    # Slow single connections are measured over a bounded time: their rate, not their end.
    timeout = max(60.0, 4 * link_seconds)
    dest = f"r{time.time_ns()}"
    env = None
    stderr_path = None
    logs = os.environ.get("TUNER_LOGS")  # a folder: each Multilane run's tuner log goes there
    if logs and client.startswith("multilane"):
        os.makedirs(logs, exist_ok=True)
        stderr_path = os.path.join(logs, f"link{link['index']}-{os.path.basename(folder)}-{client}.log")
        env = dict(os.environ, QT_LOGGING_RULES="multilane.tuner.debug=true")
    if client == "multilane-unpipelined":
        # The same client with no chunk sent behind another (DirectTransport's switch): an A/B
        # of pipelining in one run.
        env = dict(env or os.environ, MULTILANE_PIPELINING="off")
    if client.startswith("multilane"):
        command = [binary, "upload", "--quiet", "--json", "--state-dir", os.path.join(work, "state"),
                   "--dest", dest] + sum((["--endpoint", u] for u in sim.urls), []) + [folder + "/"]
        timeout = max(120.0, 6 * link_seconds)
    else:
        script = 'ls "$1" | xargs -P 8 -I{} curl -sf -o /dev/null -T "$1/{}" "$2/v1/files/$3/"'
        command = ["bash", "-c", script, "_", folder, sim.urls[0], dest]
    started = time.time()
    code, stdout, wall, cpu = run_timed(command, timeout, env, stderr_path)
    ended = time.time()
    samples = sim.samples()
    sim.stop()
    receiver_cpu = receiver.cpu_seconds() - cpu_before
    moved = samples[-1][1] if samples else 0
    result = {"seconds": wall, "cpu": cpu, "receiver_cpu": receiver_cpu, "finished": code == 0}
    result["peak_connections"] = max((s[2] for s in samples), default=0)
    if code == 0:
        result["fraction"] = size / wall / link["uplink"]
    else:
        # Timed out (a slow single connection): the rate it moved at.
        result["fraction"] = moved / wall / link["uplink"] if client != "multilane" else None
    result["t90"] = seconds_to_90(samples, 0, ended - started)
    if client.startswith("multilane"):
        for line in stdout.splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "summary":
                result["connections"] = event.get("connections", {})
    return result


def format_row(row, clients):
    link = row["link"]
    cells = [str(link["index"]), link["kind"], f"{link['per'] / MB:.2f}", f"{link['uplink'] / MB:.1f}",
             f"{link['rtt']:.0f}", row["workload"], f"{row['link_seconds']:.1f}"]
    for client in clients:
        r = row.get(client, {})
        fraction = r.get("fraction")
        cells.append("-" if fraction is None else f"{fraction:.2f}")
        if client == "multilane":
            t90 = r.get("t90")
            cells.append("-" if t90 is None else f"{t90:.2f}")
            connections = r.get("connections", {})
            cells.append(str(connections.get("level", r.get("peak_connections", "-"))))
            cells.append("-" if r.get("cpu") is None else f"{r['cpu']:.1f}")
            cells.append(f"{r.get('receiver_cpu', 0):.1f}")
        elif client.startswith("multilane"):
            cells.append(str(r.get("connections", {}).get("level", r.get("peak_connections", "-"))))
    cells.append(row["verdict"])
    return "| " + " | ".join(cells) + " |"


def write_outputs(out, seed, links, rows, clients):
    header = ["link", "kind", "per conn MB/s", "uplink MB/s", "RTT ms", "workload", "link s"]
    for client in clients:
        header.append(f"{client} of uplink")
        if client == "multilane":
            header += ["s to 90 %", "connections", "client CPU s", "receiver CPU s"]
        elif client.startswith("multilane"):
            header.append(f"{client} connections")
    header.append("verdict")
    lines = [f"Seed {seed}.", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += [format_row(row, clients) for row in rows]
    failed = [r for r in rows if r["verdict"].startswith("FAIL")]
    untargeted = [r for r in rows if r["verdict"] == "no target"]
    targeted = len(rows) - len(untargeted)
    lines += ["", f"{targeted - len(failed)} of {targeted} rows with a target meet it "
                  f"({len(untargeted)} rows have none)."]
    path = os.path.join(out, f"link-family-{seed}.md")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    run_json = os.path.join(out, f"link-family-{seed}.json")
    with open(run_json, "w") as f:
        json.dump({"seed": seed, "links": links, "rows": rows}, f, indent=1, default=str)
    png = os.path.join(out, f"link-family-{seed}.png")
    chart.write_chart(run_json, png)
    print("\n".join(lines[-2:]))
    print(f"table: {path}   chart: {png}")


if __name__ == "__main__":
    sys.exit(main())
