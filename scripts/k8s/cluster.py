#!/usr/bin/env python3
"""`./lab k8s up | down | status | env`: a real single-node Kubernetes on this machine.

Modelled on Kubernetes' own hack/local-up-cluster.sh: one entry point, every knob an environment
variable with a default, PIDs and logs in one run directory, cleanup on failure; and on kind for
how it feels: one command up, one down, a kubeconfig to point at, nothing left behind.

  up      Debian's containerd + runc + CNI plugins, etcd, kube-apiserver, kube-controller-manager,
          kube-scheduler, kubelet, kube-proxy and CoreDNS (all built once, scripts/k8s/tools.sh),
          the lab's images imported; ends with a Ready node, working DNS and a KUBECONFIG.
  down    stops every process it started (by PID) and undoes every host change, then compares the
          host with the snapshot `up` took (iptables, interfaces, addresses, routes, mounts,
          listening sockets, sysctls, cgroups): exit 1 if anything differs.
  status  what runs, the node, where the kubeconfig is.
  env     `export KUBECONFIG=...` for eval.

Confinement: pods and Services live on a bridge the lab creates (LOOMLAB_K8S_BRIDGE) with the node
address on it; the API server, kubelet and DNS listen on that address or on loopback; forwarded
traffic that does not both enter and leave through the bridge is dropped, and nothing is
masqueraded out: only loopback and the lab's ranges ever receive traffic.

Knobs (environment): LOOMLAB_K8S_HOME (default $LOOMLAB_CACHE/k8s), LOOMLAB_K8S_POD_CIDR
(10.244.0.0/24), LOOMLAB_K8S_SERVICE_CIDR (10.96.0.0/24), LOOMLAB_K8S_BRIDGE (loomlab0),
LOOMLAB_K8S_NODE (loom-lab-node), LOOMLAB_K8S_KEEP_ON_FAILURE (1: leave a failed `up` running).
"""

from __future__ import annotations

import ipaddress
import json
import os
import secrets
import shutil
import socket
import ssl
import struct
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import proc  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("LOOMLAB_CACHE", Path.home() / ".cache" / "loom-lab"))
HOME = Path(os.environ.get("LOOMLAB_K8S_HOME", CACHE / "k8s"))
RUN = HOME / "run"  # everything of one cluster's life: wiped by `down`
CONTAINERD_ROOT = HOME / "containerd"  # the image store: kept, so images survive a down/up
IMAGES = CACHE / "images"  # image archives built by scripts/k8s/images.sh
POD_CIDR = ipaddress.ip_network(os.environ.get("LOOMLAB_K8S_POD_CIDR", "10.244.0.0/24"))
SERVICE_CIDR = ipaddress.ip_network(os.environ.get("LOOMLAB_K8S_SERVICE_CIDR", "10.96.0.0/24"))
BRIDGE = os.environ.get("LOOMLAB_K8S_BRIDGE", "loomlab0")
NODE = os.environ.get("LOOMLAB_K8S_NODE", "loom-lab-node")
NODE_IP = str(next(POD_CIDR.hosts()))  # the bridge's own address: pods' gateway and the node
API_SERVICE_IP = str(next(SERVICE_CIDR.hosts()))
API_PORT = 6443
SOCK = RUN / "containerd" / "containerd.sock"
KUBECONFIG = RUN / "admin.kubeconfig"
PAUSE_IMAGE = "docker.io/loom-lab/pause:1.0-local"
# Chains of ours and of the components; `down` removes exactly these.
CHAIN_PREFIXES = ("KUBE-", "CNI-", "LOOMLAB-")
# Kernel settings the cluster changes (the kubelet sets the vm/kernel ones unless
# protectKernelDefaults): recorded by `up`, restored by `down`.
SYSCTLS = ["net.ipv4.ip_forward", "net.bridge.bridge-nf-call-iptables", "net.bridge.bridge-nf-call-ip6tables",
           "vm.overcommit_memory", "vm.panic_on_oom", "kernel.panic", "kernel.panic_on_oops",
           "kernel.keys.root_maxkeys", "kernel.keys.root_maxbytes", "net.ipv4.conf.all.route_localnet",
           "net.netfilter.nf_conntrack_max", "net.netfilter.nf_conntrack_tcp_timeout_established",
           "net.netfilter.nf_conntrack_tcp_timeout_close_wait"]
# Host paths a component writes to by default whatever we configure; removed by `down` when `up`
# found them absent.
HOST_PATHS = ["/var/lib/cni", "/var/log/containers", "/var/log/pods", "/run/netns", "/etc/cni",
              "/var/lib/kubelet", "/run/containerd", "/etc/kubernetes"]
PORTS = [2379, 2380, API_PORT, 10248, 10249, 10250, 10256, 10257, 10259]


def say(msg: str):
    print(f"\033[1;34m[k8s]\033[0m {msg}", flush=True)


def fail(msg: str):
    print(f"\033[1;31m[k8s] error:\033[0m {msg}", file=sys.stderr, flush=True)
    sys.exit(1)


def sh(*cmd, check=True, input=None, timeout=120) -> subprocess.CompletedProcess:
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, input=input, timeout=timeout)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))}: {(p.stderr or p.stdout).strip()}")
    return p


class Step:
    """Prints a step and how long it took."""

    timings: list[tuple[str, float]] = []

    def __init__(self, what: str):
        self.what = what

    def __enter__(self):
        self.started = time.monotonic()
        print(f"\033[1;34m[k8s]\033[0m {self.what} ...", end="", flush=True)
        return self

    def __exit__(self, kind, *_):
        took = time.monotonic() - self.started
        Step.timings.append((self.what, took))
        print(f" {'done' if kind is None else 'FAILED'} ({took:.1f} s)", flush=True)


# --------------------------------------------------------------------------------------------
# The host: what we change, and proof that `down` put it back
# --------------------------------------------------------------------------------------------


def _rules(save: str) -> list[str]:
    p = sh(save, check=False)
    # Counters and comments change by themselves; the rules are what matters.
    return sorted(line.split(" [")[0] if line.startswith(":") else line
                  for line in p.stdout.splitlines() if line and not line.startswith("#"))


def host_state() -> dict:
    links = sorted(l.split(": ")[1].split("@")[0] for l in sh("ip", "-o", "link").stdout.splitlines())
    addrs = sorted(" ".join(l.split()[1:4]) for l in sh("ip", "-o", "addr").stdout.splitlines())
    routes = sorted(sh("ip", "route", "show", "table", "all").stdout.splitlines())
    mounts = sorted(l.split()[4] for l in Path("/proc/self/mountinfo").read_text().splitlines())
    listening = sorted({" ".join(l.split()[:1] + l.split()[4:5])
                        for l in sh("ss", "-H", "-l", "-n", "-t", "-u").stdout.splitlines() if l.strip()})
    cgroups = sorted(str(d) for c in Path("/sys/fs/cgroup").iterdir() if c.is_dir()
                     for d in c.iterdir() if d.is_dir())
    return {"iptables": _rules("iptables-save"), "ip6tables": _rules("ip6tables-save"), "nft": nft_tables(),
            "links": links, "addresses": addrs, "routes": routes, "mounts": mounts, "listening": listening,
            "sysctls": read_sysctls(), "cgroups": cgroups,
            "paths": {p: os.path.lexists(p) for p in HOST_PATHS}}


def nft_tables() -> list[str]:
    """The nftables tables (iptables' nf_tables backend creates filter, nat, mangle on first use)."""
    if not shutil.which("nft"):
        return []
    return sorted(sh("nft", "list", "tables", check=False).stdout.splitlines())


def read_sysctls() -> dict:
    values = {}
    for key in SYSCTLS:
        path = Path("/proc/sys") / key.replace(".", "/")
        if path.exists():
            values[key] = path.read_text().strip()
    return values


def write_sysctl(key: str, value: str):
    path = Path("/proc/sys") / key.replace(".", "/")
    if path.exists() and path.read_text().strip() != value:
        path.write_text(value)


def compare_host(before: dict, after: dict) -> list[str]:
    diffs = []
    for key in before:
        b, a = before[key], after.get(key)
        if b == a:
            continue
        if isinstance(b, list):
            gone = [x for x in b if x not in a]
            new = [x for x in a if x not in b]
            diffs += [f"{key}: gone  {x}" for x in gone] + [f"{key}: added {x}" for x in new]
        else:
            diffs += [f"{key}: {k} was {b.get(k)}, now {a.get(k)}" for k in b if b.get(k) != a.get(k)]
    return diffs


def preflight():
    """What `up` needs, checked before it changes anything."""
    missing = []
    if os.geteuid() != 0:
        missing.append("root (containerd, the kubelet, iptables and the bridge need it): run as root")
    cap_eff = int(next(l for l in Path("/proc/self/status").read_text().splitlines()
                       if l.startswith("CapEff:")).split()[1], 16)
    for bit, name in ((12, "CAP_NET_ADMIN (bridge, iptables)"), (21, "CAP_SYS_ADMIN (mounts, namespaces)")):
        if not cap_eff & (1 << bit):
            missing.append(name)
    for cmd in ("containerd", "ctr", "runc", "ip", "iptables", "iptables-save", "iptables-restore",
                "ip6tables-save", "ip6tables-restore", "openssl", "conntrack", "ss", "kubectl"):
        if not shutil.which(cmd):
            missing.append(f"command {cmd} (Debian: containerd runc iptables conntrack iproute2 openssl)")
    for plugin in ("bridge", "host-local", "loopback"):
        if not Path(f"/usr/lib/cni/{plugin}").exists():
            missing.append(f"CNI plugin /usr/lib/cni/{plugin} (Debian: containernetworking-plugins)")
    if not Path("/proc/sys/net/bridge/bridge-nf-call-iptables").exists():
        missing.append("the br_netfilter kernel module (Services between pods on one bridge need it)")
    if not os.access("/sys/fs/cgroup", os.W_OK) and not any(
            os.access(c, os.W_OK) for c in Path("/sys/fs/cgroup").glob("*")):
        missing.append("writable cgroups (/sys/fs/cgroup)")
    busy = [p for p in PORTS if port_in_use(p)]
    if busy:
        missing.append(f"free ports {busy} (another cluster or etcd is running?)")
    if missing:
        fail("cannot bring the cluster up here; missing:\n  - " + "\n  - ".join(missing))


def port_in_use(port: int) -> bool:
    return any(l.split()[3].rsplit(":", 1)[-1] == str(port)
               for l in sh("ss", "-H", "-l", "-n", "-t").stdout.splitlines() if l.strip())


def network_up():
    """The bridge with the node's address, forwarding, and the rule that keeps pods' traffic in."""
    if sh("ip", "link", "show", BRIDGE, check=False).returncode != 0:
        sh("ip", "link", "add", BRIDGE, "type", "bridge")
    sh("ip", "addr", "replace", f"{NODE_IP}/{POD_CIDR.prefixlen}", "dev", BRIDGE)
    sh("ip", "link", "set", BRIDGE, "up")
    write_sysctl("net.ipv4.ip_forward", "1")
    write_sysctl("net.bridge.bridge-nf-call-iptables", "1")
    confine()


def confine():
    """Forwarded packets must enter and leave through the bridge: pod to pod, and pod to Service
    (DNAT'ed back onto the bridge). Anything else forwarded (a pod reaching out, the outside
    reaching in) is dropped. Re-applied after kube-proxy has inserted its own jumps."""
    if sh("iptables", "-n", "-L", "LOOMLAB-FORWARD", check=False).returncode != 0:
        sh("iptables", "-N", "LOOMLAB-FORWARD")
        sh("iptables", "-A", "LOOMLAB-FORWARD", "!", "-i", BRIDGE, "-j", "DROP")
        sh("iptables", "-A", "LOOMLAB-FORWARD", "!", "-o", BRIDGE, "-j", "DROP")
    while sh("iptables", "-D", "FORWARD", "-j", "LOOMLAB-FORWARD", check=False).returncode == 0:
        pass
    sh("iptables", "-I", "FORWARD", "1", "-j", "LOOMLAB-FORWARD")


def clean_iptables(save: str, restore: str):
    """Removes every chain named with CHAIN_PREFIXES and every rule that jumps to one, leaving the
    rest of each table as it is (what `kube-proxy --cleanup` does, for all of them at once)."""
    kept, changed = without_our_chains(sh(save, check=False).stdout)
    if changed:
        sh(restore, input=kept)


def without_our_chains(text: str) -> tuple[str, bool]:
    """An iptables-save text without the CHAIN_PREFIXES chains and the rules that use them."""
    kept, changed = [], False
    for line in text.splitlines():
        if line.startswith(":") and line[1:].startswith(CHAIN_PREFIXES):
            changed = True
            continue
        if line.startswith("-A "):
            words = line.split()
            targets = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-j", "-g", "--jump", "--goto")]
            if words[1].startswith(CHAIN_PREFIXES) or any(t.startswith(CHAIN_PREFIXES) for t in targets):
                changed = True
                continue
        kept.append(line)
    return "\n".join(kept) + "\n", changed


# --------------------------------------------------------------------------------------------
# Configuration: certificates, tokens, kubeconfigs, component configs
# --------------------------------------------------------------------------------------------


def openssl(*args):
    sh("openssl", *args)


def make_pki(pki: Path):
    pki.mkdir(parents=True, exist_ok=True)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-subj", "/CN=loom-lab-ca",
            "-keyout", pki / "ca.key", "-out", pki / "ca.crt")

    def cert(name: str, subject: str, sans: str | None = None, usage: str = "serverAuth"):
        ext = pki / f"{name}.ext"
        ext.write_text(f"extendedKeyUsage={usage}\n" + (f"subjectAltName={sans}\n" if sans else ""))
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", subject, "-keyout", pki / f"{name}.key",
                "-out", pki / f"{name}.csr")
        openssl("x509", "-req", "-in", pki / f"{name}.csr", "-CA", pki / "ca.crt", "-CAkey", pki / "ca.key",
                "-CAcreateserial", "-days", "30", "-extfile", ext, "-out", pki / f"{name}.crt")

    sans = ",".join([f"IP:{NODE_IP}", f"IP:{API_SERVICE_IP}", "IP:127.0.0.1", "DNS:localhost", "DNS:kubernetes",
                     "DNS:kubernetes.default", "DNS:kubernetes.default.svc",
                     "DNS:kubernetes.default.svc.cluster.local"])
    cert("apiserver", "/CN=kube-apiserver", sans)
    # The API server's client certificate towards the kubelet (logs, exec, port-forward).
    cert("apiserver-kubelet-client", "/O=system:masters/CN=kube-apiserver-kubelet-client", usage="clientAuth")
    openssl("genrsa", "-out", pki / "sa.key", "2048")
    openssl("rsa", "-in", pki / "sa.key", "-pubout", "-out", pki / "sa.pub")


# user -> groups; each gets a random token and a kubeconfig.
IDENTITIES = {
    "admin": ("loom-lab-admin", "system:masters"),
    "kubelet": (f"system:node:{NODE}", "system:nodes"),
    "controller-manager": ("system:kube-controller-manager", ""),
    "scheduler": ("system:kube-scheduler", ""),
    "proxy": ("system:kube-proxy", ""),
    "coredns": ("loom-lab:coredns", ""),
}


def make_kubeconfigs():
    lines = []
    for name, (user, groups) in IDENTITIES.items():
        token = secrets.token_hex(24)
        lines.append(f'{token},{user},{user},"{groups}"' if groups else f"{token},{user},{user}")
        cfg = {"apiVersion": "v1", "kind": "Config", "current-context": "loom-lab",
               "clusters": [{"name": "loom-lab", "cluster": {"server": f"https://{NODE_IP}:{API_PORT}",
                                                            "certificate-authority": str(RUN / "pki" / "ca.crt")}}],
               "users": [{"name": user, "user": {"token": token}}],
               "contexts": [{"name": "loom-lab", "context": {"cluster": "loom-lab", "user": user}}]}
        path = KUBECONFIG if name == "admin" else RUN / f"{name}.kubeconfig"
        path.write_text(json.dumps(cfg, indent=1))
        path.chmod(0o600)
    tokens = RUN / "pki" / "tokens.csv"
    tokens.write_text("\n".join(lines) + "\n")
    tokens.chmod(0o600)


def write_configs():
    cni = RUN / "cni" / "net.d"
    cni.mkdir(parents=True, exist_ok=True)
    (cni / "10-loomlab.conflist").write_text(json.dumps({
        "cniVersion": "1.0.0", "name": "loomlab",
        "plugins": [
            # No ipMasq: pod traffic is never rewritten to leave through the host's interfaces.
            {"type": "bridge", "bridge": BRIDGE, "isGateway": True, "ipMasq": False, "hairpinMode": True,
             "ipam": {"type": "host-local", "dataDir": str(RUN / "cni" / "ipam"),
                      "ranges": [[{"subnet": str(POD_CIDR), "gateway": NODE_IP,
                                   "rangeStart": str(POD_CIDR.network_address + 10)}]],
                      "routes": [{"dst": "0.0.0.0/0"}]}},
        ]}, indent=1))
    (RUN / "containerd").mkdir(parents=True, exist_ok=True)
    (RUN / "containerd" / "config.toml").write_text(f"""version = 2
root = "{CONTAINERD_ROOT}"
state = "{RUN / 'containerd' / 'state'}"
[grpc]
  address = "{SOCK}"
[plugins."io.containerd.internal.v1.opt"]
  path = "{RUN / 'containerd' / 'opt'}"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "{PAUSE_IMAGE}"
  # Without CAP_SYS_RESOURCE every sandbox fails ("can't get final child's PID from pipe").
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "{cni}"
""")
    (RUN / "resolv.conf").write_text("# pods resolve cluster names only: no upstream resolver\n")
    (RUN / "kubelet.yaml").write_text(json.dumps({
        "apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration",
        "address": NODE_IP, "port": 10250, "readOnlyPort": 0,
        "healthzBindAddress": "127.0.0.1", "healthzPort": 10248,
        "containerRuntimeEndpoint": f"unix://{SOCK}",
        "cgroupDriver": "cgroupfs", "failSwapOn": False,
        "clusterDNS": [NODE_IP], "clusterDomain": "cluster.local", "resolvConf": str(RUN / "resolv.conf"),
        "podLogsDir": str(RUN / "pod-logs"),
        "authentication": {"anonymous": {"enabled": False}, "webhook": {"enabled": True},
                           "x509": {"clientCAFile": str(RUN / "pki" / "ca.crt")}},
        "authorization": {"mode": "Webhook"},
        # Images here cannot be pulled again: never garbage-collect them, never evict for disk.
        "imageGCHighThresholdPercent": 100, "imageGCLowThresholdPercent": 99,
        "evictionHard": {"memory.available": "100Mi", "nodefs.available": "1%", "imagefs.available": "1%",
                         "nodefs.inodesFree": "1%"},
        "serializeImagePulls": False, "registerNode": True,
    }, indent=1))
    (RUN / "kube-proxy.yaml").write_text(json.dumps({
        "apiVersion": "kubeproxy.config.k8s.io/v1alpha1", "kind": "KubeProxyConfiguration",
        "clientConnection": {"kubeconfig": str(RUN / "proxy.kubeconfig")},
        "mode": "iptables", "clusterCIDR": str(POD_CIDR), "hostnameOverride": NODE,
        "bindAddress": NODE_IP, "healthzBindAddress": "127.0.0.1:10256", "metricsBindAddress": "127.0.0.1:10249",
        # NodePorts on the node's bridge address only, never on the machine's other interfaces.
        "nodePortAddresses": [f"{NODE_IP}/32"],
        "iptables": {"localhostNodePorts": False, "masqueradeAll": False, "minSyncPeriod": "1s"},
        # 0: leave the host's conntrack settings alone.
        "conntrack": {"maxPerCore": 0, "min": 0, "tcpEstablishedTimeout": "0s", "tcpCloseWaitTimeout": "0s"},
    }, indent=1))
    (RUN / "Corefile").write_text(f"""cluster.local:53 in-addr.arpa:53 ip6.arpa:53 {{
    bind {NODE_IP}
    errors
    ready 127.0.0.1:18181
    health 127.0.0.1:18080
    kubernetes cluster.local in-addr.arpa ip6.arpa {{
        kubeconfig {RUN / 'coredns.kubeconfig'} loom-lab
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }}
    cache 30
    loadbalance
}}
.:53 {{
    # No upstream: names outside the cluster are not resolved, so no query leaves the machine.
    bind {NODE_IP}
    errors
}}
""")


# --------------------------------------------------------------------------------------------
# Processes
# --------------------------------------------------------------------------------------------


def start(name: str, cmd: list, env: dict | None = None):
    (RUN / "logs").mkdir(parents=True, exist_ok=True)
    (RUN / "pids").mkdir(parents=True, exist_ok=True)
    log = (RUN / "logs" / f"{name}.log").open("ab")
    full_env = dict(os.environ)
    full_env.update(env or {})
    p = subprocess.Popen([str(c) for c in cmd], stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                         env=full_env, start_new_session=True)
    (RUN / "pids" / f"{name}.pid").write_text(f"{p.pid}\n{cmd[0]}\n")
    return p


def running(name: str) -> int | None:
    f = RUN / "pids" / f"{name}.pid"
    if not f.exists():
        return None
    pid, exe = f.read_text().split("\n")[:2]
    pid = int(pid)
    try:
        # Never signal a recycled PID: it must still run the binary we started.
        if proc.pid_alive(pid) and Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode() == exe:
            return pid
    except OSError:
        pass
    return None


def stop(name: str, timeout: float = 20):
    pid = running(name)
    if pid:
        proc.stop_pid(pid, timeout)
    (RUN / "pids" / f"{name}.pid").unlink(missing_ok=True)


def tools() -> dict:
    p = subprocess.run(["bash", str(ROOT / "scripts" / "k8s" / "tools.sh")], stdout=subprocess.PIPE, text=True)
    if p.returncode != 0:
        fail("building the Kubernetes components failed (see above)")
    return dict(l.split("=", 1) for l in p.stdout.splitlines() if "=" in l)


class Api:
    """The API server over HTTPS with the admin token (no kubectl process per poll)."""

    def __init__(self, kubeconfig: Path = KUBECONFIG):
        cfg = json.loads(kubeconfig.read_text())
        self.server = cfg["clusters"][0]["cluster"]["server"]
        self.token = cfg["users"][0]["user"]["token"]
        self.ctx = ssl.create_default_context(cafile=cfg["clusters"][0]["cluster"]["certificate-authority"])

    def get(self, path: str, timeout: float = 10) -> bytes:
        req = urllib.request.Request(self.server + path, headers={"Authorization": f"Bearer {self.token}"})
        with urllib.request.urlopen(req, timeout=timeout, context=self.ctx) as r:
            return r.read()

    def json(self, path: str, timeout: float = 10) -> dict:
        return json.loads(self.get(path, timeout))


def kubectl(*args, input=None, check=True, timeout=120) -> subprocess.CompletedProcess:
    return sh("kubectl", "--kubeconfig", KUBECONFIG, *args, input=input, check=check, timeout=timeout)


def dns_query(name: str, server: str, timeout: float = 2) -> list[str]:
    """A records of `name` from `server` (one UDP query)."""
    qid = secrets.randbits(16)
    q = struct.pack(">HHHHHH", qid, 0x0100, 1, 0, 0, 0)
    q += b"".join(bytes([len(p)]) + p.encode() for p in name.rstrip(".").split(".")) + b"\0" + struct.pack(">HH", 1, 1)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(timeout)
        s.sendto(q, (server, 53))
        data = s.recv(4096)
    answers = struct.unpack(">H", data[6:8])[0]
    i = 12
    while data[i]:
        i += data[i] + 1
    i += 5
    found = []
    for _ in range(answers):
        i += 2 if data[i] & 0xC0 == 0xC0 else data.index(b"\0", i) - i + 1
        rtype, _, _, length = struct.unpack(">HHIH", data[i:i + 10])
        i += 10
        if rtype == 1:
            found.append(socket.inet_ntoa(data[i:i + length]))
        i += length
    return found


def import_images(ctr_base: list):
    """Loads the image archives of scripts/k8s/images.sh into containerd, once per archive."""
    stamps = HOME / "imported"
    stamps.mkdir(parents=True, exist_ok=True)
    for archive in sorted(IMAGES.glob("*.tar")):
        if archive.stem == "debian":
            continue  # the base of the others, never run by itself
        stamp = stamps / (archive.name + ".stamp")
        signature = f"{archive.stat().st_size} {archive.stat().st_mtime_ns}"
        if stamp.exists() and stamp.read_text() == signature:
            continue
        sh(*ctr_base, "images", "import", archive, timeout=600)
        stamp.write_text(signature)


# --------------------------------------------------------------------------------------------
# up / down / status
# --------------------------------------------------------------------------------------------


def up():
    if running("kube-apiserver"):
        say(f"already up: export KUBECONFIG={KUBECONFIG}")
        return
    if RUN.exists():
        say("a previous cluster left state behind: cleaning it first")
        down(compare=False)
    preflight()
    started = time.monotonic()
    with Step("Kubernetes components (built once, then cached)"):
        t = tools()
    if not (IMAGES / "pause.tar").exists():
        with Step("the pod sandbox image (scripts/k8s/images.sh pause)"):
            sh("bash", ROOT / "scripts" / "k8s" / "images.sh", "pause", timeout=900)
    RUN.mkdir(parents=True, exist_ok=True)
    (RUN / "host-before.json").write_text(json.dumps(host_state(), indent=1))
    try:
        bring_up(t)
    except BaseException as e:  # noqa: BLE001 - leave nothing half-up behind
        print(f"\n\033[1;31m[k8s] up failed:\033[0m {e}", file=sys.stderr, flush=True)
        if os.environ.get("LOOMLAB_K8S_KEEP_ON_FAILURE") == "1":
            fail(f"left running for inspection (LOOMLAB_K8S_KEEP_ON_FAILURE=1); logs in {RUN / 'logs'}")
        logs = HOME / "last-failure-logs"
        shutil.rmtree(logs, ignore_errors=True)
        if (RUN / "logs").exists():
            shutil.copytree(RUN / "logs", logs)
        down(compare=False)
        fail(f"up failed and was undone; the components' logs are in {logs}")
    say(f"Ready in {time.monotonic() - started:.1f} s: node {NODE} ({NODE_IP}), Services {SERVICE_CIDR}, pods {POD_CIDR}")
    say("steps: " + ", ".join(f"{w.split(' (')[0]} {s:.1f} s" for w, s in Step.timings))
    say(f"components' memory (RSS) with the node idle: {components_rss_mb():.0f} MiB")
    say(f"export KUBECONFIG={KUBECONFIG}    (or: eval \"$(./lab k8s env)\")")


def bring_up(t: dict):
    with Step(f"network: bridge {BRIDGE} {NODE_IP}/{POD_CIDR.prefixlen}, forwarding confined to it"):
        network_up()
    with Step("certificates, tokens, kubeconfigs, component configuration"):
        make_pki(RUN / "pki")
        make_kubeconfigs()
        write_configs()
    pki = RUN / "pki"
    with Step("etcd on 127.0.0.1:2379"):
        etcd = start("etcd", [t["ETCD"], "--data-dir", RUN / "etcd", "--listen-client-urls", "http://127.0.0.1:2379",
                       "--advertise-client-urls", "http://127.0.0.1:2379", "--listen-peer-urls",
                       "http://127.0.0.1:2380", "--initial-advertise-peer-urls", "http://127.0.0.1:2380",
                       "--initial-cluster", "default=http://127.0.0.1:2380", "--log-level", "warn"])
        if not proc.wait_http("http://127.0.0.1:2379/health", 30, alive=lambda: etcd.poll() is None):
            raise RuntimeError("etcd did not become healthy")
    with Step(f"kube-apiserver on {NODE_IP}:{API_PORT}"):
        start("kube-apiserver", [
            t["KUBE_APISERVER"], "--etcd-servers", "http://127.0.0.1:2379",
            "--bind-address", NODE_IP, "--advertise-address", NODE_IP, "--secure-port", API_PORT,
            "--service-cluster-ip-range", SERVICE_CIDR, "--tls-cert-file", pki / "apiserver.crt",
            "--tls-private-key-file", pki / "apiserver.key", "--client-ca-file", pki / "ca.crt",
            "--token-auth-file", pki / "tokens.csv", "--authorization-mode", "Node,RBAC",
            "--enable-admission-plugins", "NodeRestriction", "--allow-privileged=false",
            "--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
            "--service-account-key-file", pki / "sa.pub", "--service-account-signing-key-file", pki / "sa.key",
            "--kubelet-client-certificate", pki / "apiserver-kubelet-client.crt",
            "--kubelet-client-key", pki / "apiserver-kubelet-client.key",
            "--kubelet-preferred-address-types", "InternalIP", "--profiling=false", "--v=1"])
        api = Api()
        if not proc.wait_until(lambda: api.get("/readyz", 2) == b"ok", 90, 0.2):
            raise RuntimeError(f"kube-apiserver not ready (see {RUN / 'logs' / 'kube-apiserver.log'})")
    with Step("containerd (own root, state and socket) and the lab's images"):
        start("containerd", ["containerd", "--config", RUN / "containerd" / "config.toml"])
        if not proc.wait_until(lambda: SOCK.exists() and sh("ctr", "--address", SOCK, "version", check=False,
                                                            timeout=5).returncode == 0, 30):
            raise RuntimeError("containerd did not start")
        import_images(["ctr", "--address", SOCK, "-n", "k8s.io"])
    with Step("controller-manager, scheduler, kubelet, kube-proxy, CoreDNS"):
        start("kube-controller-manager", [
            t["KUBE_CONTROLLER_MANAGER"], "--kubeconfig", RUN / "controller-manager.kubeconfig",
            "--authentication-kubeconfig", RUN / "controller-manager.kubeconfig",
            "--authorization-kubeconfig", RUN / "controller-manager.kubeconfig",
            "--bind-address", "127.0.0.1", "--leader-elect=false", "--cluster-name", "loom-lab",
            "--service-account-private-key-file", pki / "sa.key", "--root-ca-file", pki / "ca.crt",
            "--use-service-account-credentials=true", "--profiling=false", "--v=1"])
        start("kube-scheduler", [
            t["KUBE_SCHEDULER"], "--kubeconfig", RUN / "scheduler.kubeconfig",
            "--authentication-kubeconfig", RUN / "scheduler.kubeconfig",
            "--authorization-kubeconfig", RUN / "scheduler.kubeconfig",
            "--bind-address", "127.0.0.1", "--leader-elect=false", "--profiling=false", "--v=1"])
        start("kubelet", [
            t["KUBELET"], "--config", RUN / "kubelet.yaml", "--kubeconfig", RUN / "kubelet.kubeconfig",
            "--root-dir", RUN / "kubelet", "--cert-dir", RUN / "kubelet" / "pki",
            "--hostname-override", NODE, "--node-ip", NODE_IP, "--v=1"])
        start("kube-proxy", [t["KUBE_PROXY"], "--config", RUN / "kube-proxy.yaml", "--v=1"])
        kubectl("apply", "-f", "-", input=json.dumps(cluster_objects()))
        start("coredns", [t["COREDNS"], "-conf", RUN / "Corefile"])
    with Step(f"node {NODE} Ready"):
        def node_ready():
            # Ready, and the node controller has lifted the not-ready taint: pods can be scheduled.
            node = api.json(f"/api/v1/nodes/{NODE}", 2)
            return (any(c["type"] == "Ready" and c["status"] == "True" for c in node["status"]["conditions"])
                    and not node["spec"].get("taints"))

        if not proc.wait_until(node_ready, 90, 0.25):
            raise RuntimeError(f"the node did not become Ready (see {RUN / 'logs' / 'kubelet.log'})")
    with Step("cluster DNS answers kubernetes.default.svc.cluster.local"):
        if not proc.wait_until(lambda: API_SERVICE_IP in dns_query("kubernetes.default.svc.cluster.local", NODE_IP),
                               60, 0.25):
            raise RuntimeError(f"CoreDNS did not answer (see {RUN / 'logs' / 'coredns.log'})")
        # kube-proxy inserts its jumps at the top of FORWARD: ours goes first again.
        proc.wait_until(lambda: sh("iptables", "-n", "-L", "KUBE-FORWARD", check=False).returncode == 0, 20)
        confine()


def cluster_objects() -> dict:
    """Objects every run needs: DNS's read access, the default StorageClass and local volumes (no
    provisioner here: static local PersistentVolumes on this node, owned per pod by fsGroup)."""
    volumes = RUN / "volumes"
    items = [
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "loom-lab:coredns"},
         "rules": [{"apiGroups": [""], "resources": ["endpoints", "services", "pods", "namespaces"],
                    "verbs": ["list", "watch"]},
                   {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": ["list", "watch"]}]},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
         "metadata": {"name": "loom-lab:coredns"},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "loom-lab:coredns"},
         "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "loom-lab:coredns"}]},
        {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
         "metadata": {"name": "loom-lab-local",
                      "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
         "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer",
         "reclaimPolicy": "Delete"},
    ]
    for i in range(1, 7):
        path = volumes / f"pv{i}"
        path.mkdir(parents=True, exist_ok=True)
        items.append({
            "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": f"loom-lab-local-{i}"},
            "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
                     "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "loom-lab-local",
                     "local": {"path": str(path)},
                     "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                         {"key": "kubernetes.io/hostname", "operator": "In", "values": [NODE]}]}]}}}})
    return {"apiVersion": "v1", "kind": "List", "items": items}


def cgroup_dirs() -> list[Path]:
    return [d for c in Path("/sys/fs/cgroup").iterdir() if (d := c / "kubepods").is_dir()]


def kill_pods():
    """Every process in the kubelet's cgroups, killed."""
    for _ in range(20):
        pids = {int(p) for d in cgroup_dirs() for f in d.rglob("cgroup.procs") for p in f.read_text().split()}
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        time.sleep(0.25)


def unmount_under(*roots: Path):
    prefixes = tuple(str(r) for r in roots)
    for _ in range(5):
        mounts = [l.split()[4] for l in Path("/proc/self/mountinfo").read_text().splitlines()]
        ours = [m for m in mounts if m.startswith(prefixes)]
        if not ours:
            return
        for m in reversed(ours):
            subprocess.run(["umount", "-l", m], capture_output=True)


def down(compare: bool = True):
    if not RUN.exists():
        say("no cluster state here: nothing to do")
        return
    before_file = RUN / "host-before.json"
    before = json.loads(before_file.read_text()) if before_file.exists() else None
    with Step("pods deleted, then the components stopped"):
        stop("kube-controller-manager")
        stop("kube-scheduler")
        if running("kube-apiserver") and running("kubelet"):
            # The kubelet tears pods down properly (CNI DEL: veth and IP released) while it runs.
            kubectl("delete", "pods", "--all", "--all-namespaces", "--grace-period=0", "--force", "--wait=false",
                    check=False, timeout=30)
            ctr = ["ctr", "--address", SOCK, "-n", "k8s.io"]
            proc.wait_until(lambda: running("containerd") is None or
                            not sh(*ctr, "tasks", "ls", "-q", check=False, timeout=5).stdout.strip(), 30, 0.5)
        for name in ("kubelet", "kube-proxy", "coredns"):
            stop(name)
        kill_pods()
    with Step("containers removed, containerd stopped"):
        if running("containerd"):
            ctr = ["ctr", "--address", SOCK, "-n", "k8s.io"]
            for task in sh(*ctr, "tasks", "ls", "-q", check=False, timeout=10).stdout.split():
                sh(*ctr, "tasks", "kill", "-s", "SIGKILL", task, check=False, timeout=10)
                sh(*ctr, "tasks", "delete", "-f", task, check=False, timeout=10)
            for c in sh(*ctr, "containers", "ls", "-q", check=False, timeout=10).stdout.split():
                sh(*ctr, "containers", "delete", c, check=False, timeout=10)
        stop("containerd")
        # Shims outlive containerd by design; ours name our socket on their command line.
        for p in Path("/proc").glob("[0-9]*"):
            try:
                if str(SOCK).encode() in (p / "cmdline").read_bytes() or str(RUN).encode() in (p / "cmdline").read_bytes():
                    proc.stop_pid(int(p.name), 5)
            except OSError:
                pass
    with Step("API server and etcd stopped"):
        stop("kube-apiserver")
        stop("etcd")
    with Step("mounts, cgroups, network namespaces, bridge, iptables chains, sysctls undone"):
        unmount_under(RUN, CONTAINERD_ROOT)
        existed = (before or {}).get("paths", {})
        netns = Path("/run/netns")
        if netns.is_dir():
            for ns in netns.glob("cni-*"):
                subprocess.run(["umount", "-l", str(ns)], capture_output=True)
                ns.unlink(missing_ok=True)
        for d in cgroup_dirs():
            for sub in sorted((p for p in d.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
                sub.rmdir()
            d.rmdir()
        if sh("ip", "link", "show", BRIDGE, check=False).returncode == 0:
            for veth in sh("ip", "-o", "link", "show", "master", BRIDGE, check=False).stdout.splitlines():
                sh("ip", "link", "del", veth.split(": ")[1].split("@")[0], check=False)
            sh("ip", "link", "del", BRIDGE)
        clean_iptables("iptables-save", "iptables-restore")
        clean_iptables("ip6tables-save", "ip6tables-restore")
        if before:
            # Tables the components' first iptables call created, now empty: gone as they came.
            for table in set(nft_tables()) - set(before.get("nft", [])):
                sh("nft", "delete", *table.split(), check=False)  # "table ip filter"
        if before:
            for key, value in before["sysctls"].items():
                write_sysctl(key, value)
        for path, was in existed.items():
            if not was and os.path.lexists(path):
                subprocess.run(["umount", "-R", "-l", path], capture_output=True)
                shutil.rmtree(path, ignore_errors=True) if os.path.isdir(path) else os.unlink(path)
        shutil.rmtree(RUN)
    if compare and before:
        diffs = compare_host(before, host_state())
        if diffs:
            print("\n".join(f"  {d}" for d in diffs))
            fail("the host differs from before `up` (above)")
        say("host restored: iptables, interfaces, addresses, routes, mounts, listening sockets, sysctls and "
            "cgroups are as before `up`")


COMPONENTS = ["etcd", "kube-apiserver", "containerd", "kube-controller-manager", "kube-scheduler", "kubelet",
              "kube-proxy", "coredns"]


def components_rss_mb() -> float:
    total = 0
    for name in COMPONENTS:
        pid = running(name)
        if pid:
            status = Path(f"/proc/{pid}/status").read_text()
            total += int(next(l for l in status.splitlines() if l.startswith("VmRSS:")).split()[1])
    return total / 1024


def status() -> bool:
    states = {n: running(n) for n in COMPONENTS}
    for n in COMPONENTS:
        print(f"  {n:<24} {'pid ' + str(states[n]) if states[n] else 'stopped'}")
    if not states["kube-apiserver"]:
        print("cluster: down")
        return False
    try:
        node = Api().json(f"/api/v1/nodes/{NODE}", 3)
        ready = any(c["type"] == "Ready" and c["status"] == "True" for c in node["status"]["conditions"])
        print(f"node {NODE}: {'Ready' if ready else 'NotReady'}")
    except OSError as e:
        print(f"node {NODE}: unknown ({e})")
        ready = False
    print(f"components' memory (RSS): {components_rss_mb():.0f} MiB")
    print(f"export KUBECONFIG={KUBECONFIG}")
    return ready and all(states.values())


def main(argv: list[str]):
    cmd = argv[0] if argv else ""
    if cmd == "up":
        up()
    elif cmd == "down":
        down()
    elif cmd == "status":
        sys.exit(0 if status() else 1)
    elif cmd == "import":
        if not running("containerd"):
            fail("the cluster is not up: ./lab k8s up")
        import_images(["ctr", "--address", SOCK, "-n", "k8s.io"])
        say("images imported into the cluster's containerd")
    elif cmd == "env":
        if not KUBECONFIG.exists():
            fail("no cluster: ./lab k8s up")
        print(f"export KUBECONFIG={KUBECONFIG}")
    else:
        fail("usage: cluster.py up|down|status|env|import")


if __name__ == "__main__":
    main(sys.argv[1:])
