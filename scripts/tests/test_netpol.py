"""./lab k8s netpol without a cluster: every policy of deploy/k8s has an allowed and a refused case,
the broken policies under testdata stand in for real ones, and the probe's own code runs."""

import subprocess
import sys
import unittest

from loomlab import ROOT
from loomlab.incluster.experiments import netpol, netpolcases


class CasesTest(unittest.TestCase):
    def test_every_policy_in_deploy_k8s_has_an_allowed_and_a_refused_case(self):
        names = set(netpolcases.policies_by_name(ROOT / "deploy/k8s"))
        self.assertEqual(
            names,
            {
                "default-deny",
                "dns-from-every-pod",
                "dns-to-the-node",
                "postgres-from-service-only",
                "service-from-namespace-only",
                "service-to-database-only",
                "loadgen-to-service-only",
                "k6-to-service-prometheus-and-runners",
                "k6-api-from-starter-only",
                "prometheus-from-namespace-and-keda",
                "prometheus-to-targets",
                "prometheus-to-the-api-server",
                "k6-api-from-operator",
            },
        )
        self.assertEqual(netpolcases.uncovered(names), [])

    def test_the_lab_s_node_is_the_one_address_its_pods_resolve_names_at(self):
        from labmachine.cluster import settings

        (policy,) = netpol.load_policies(ROOT / "deploy/k8s/lab-node/dns.yaml")
        (rule,) = policy["spec"]["egress"]
        self.assertEqual(rule["to"], [{"ipBlock": {"cidr": f"{settings.NODE_IP}/32"}}])
        self.assertEqual({p["port"] for p in rule["ports"]}, {53})

    def test_prometheus_reaches_the_lab_s_api_server_and_no_other_address(self):
        from labmachine.cluster import settings

        (policy,) = netpol.load_policies(ROOT / "deploy/k8s/lab-node/api-server.yaml")
        (rule,) = policy["spec"]["egress"]
        self.assertEqual(rule["to"], [{"ipBlock": {"cidr": f"{settings.NODE_IP}/32"}}])
        self.assertEqual(rule["ports"], [{"protocol": "TCP", "port": settings.API_PORT}])
        (targets,) = [
            d for d in netpolcases.policy_docs(ROOT / "deploy/k8s") if d["metadata"]["name"] == "prometheus-to-targets"
        ]
        self.assertTrue(all("to" in r and "ipBlock" not in str(r) for r in targets["spec"]["egress"]))

    def test_a_probe_with_prometheus_labels_is_no_endpoint_of_its_service(self):
        docs = netpol.load_policies(ROOT / "deploy/k8s/components/monitoring/prometheus.yaml")
        (service,) = [d for d in docs if d["kind"] == "Service"]
        self.assertFalse(service["spec"]["selector"].items() <= netpolcases.AS_PROMETHEUS.labels.items())

    def test_the_namespace_denies_both_ways_by_default(self):
        (deny,) = [d for d in netpol.load_policies(netpol.POLICIES) if d["metadata"]["name"] == "default-deny"]
        self.assertEqual(deny["spec"], {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]})

    def test_a_deny_only_policy_needs_a_refused_case(self):
        allowed_only = [c for c in netpolcases.CASES if c.allowed]
        self.assertEqual(netpolcases.uncovered({"default-deny"}, allowed_only), ["default-deny"])

    def test_a_refusal_to_a_listener_is_tested_after_an_allowed_case_has_waited_for_it(self):
        # A refused case passes at once on "refused": the listener must be known up before it.
        listeners = {"{" + key + "}": p.listens for key, p in netpolcases.LISTENERS.items()}
        for host, ports in listeners.items():
            for port in ports:
                with self.subTest(listener=host, port=port):
                    cases = [c for c in netpolcases.CASES if c.host == host and c.port == str(port)]
                    self.assertTrue(cases[0].allowed)
                    self.assertIn(False, [c.allowed for c in cases])

    def test_every_listener_a_case_reaches_is_a_probe_the_check_starts(self):
        started = [p.name for p in netpolcases.all_probes()]
        self.assertEqual(len(set(started)), len(started))
        reached = {c.host for c in netpolcases.CASES if "." not in c.host}  # a probe's address
        self.assertEqual(reached, {"{" + key + "}" for key in netpolcases.LISTENERS})
        listening = [p.name for p in netpolcases.all_probes() if p.listens]
        self.assertEqual(listening, [p.name for p in netpolcases.LISTENERS.values()])

    def test_a_probe_listens_on_53_as_no_root_and_with_no_capability(self):
        pod = netpol.listening_pod(netpolcases.ELSEWHERE_SERVER, "loadgen")
        security = pod["spec"]["securityContext"]
        self.assertTrue(security["runAsNonRoot"])
        self.assertEqual(security["sysctls"], [{"name": "net.ipv4.ip_unprivileged_port_start", "value": "53"}])
        self.assertEqual(pod["spec"]["containers"][0]["securityContext"]["capabilities"], {"drop": ["ALL"]})
        self.assertIn("http.server 53 ", pod["spec"]["containers"][0]["command"][2])
        self.assertNotIn("sysctls", netpol.listening_pod(netpolcases.K6, "loadgen")["spec"]["securityContext"])

    def test_a_policy_with_only_refused_cases_is_uncovered(self):
        refused_only = [c for c in netpolcases.CASES if not c.allowed]
        self.assertEqual(
            netpolcases.uncovered({"postgres-from-service-only"}, refused_only), ["postgres-from-service-only"]
        )

    def test_testdata_is_not_a_policy_of_the_lab(self):
        self.assertNotIn(
            "testdata", {p for n in netpolcases.policies_by_name(ROOT / "deploy/k8s") for p in n.split("/")}
        )

    def test_each_broken_case_replaces_a_real_policy(self):
        lab = netpolcases.policies_by_name(ROOT / "deploy/k8s")
        for folder in (ROOT / "deploy/k8s/testdata/netpol").iterdir():
            docs = netpol.broken_policies(str(folder), lab)
            self.assertTrue(docs, folder)
            for doc in docs:
                self.assertNotEqual(doc, lab[doc["metadata"]["name"]], folder)

    def test_a_broken_case_of_no_policy_is_refused(self):
        with self.assertRaisesRegex(netpol.LabError, "no policy in its"):
            netpol.broken_policies(str(ROOT / "deploy/k8s/access"), {})

    def test_a_broken_case_naming_no_policy_of_the_lab_is_refused(self):
        lab = netpolcases.policies_by_name(ROOT / "deploy/k8s")
        folder = ROOT / "deploy/k8s/testdata/netpol/api-server-at-any-address"
        with self.assertRaisesRegex(netpol.LabError, "no policy of deploy/k8s is named"):
            netpol.broken_policies(str(folder), {k: v for k, v in lab.items() if k != "prometheus-to-the-api-server"})

    def test_the_probes_connect_code_tells_reached_from_refused_on_loopback(self):
        import socket

        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen()
        open_port = server.getsockname()[1]
        closed = socket.socket()
        closed.bind(("127.0.0.1", 0))
        closed_port = closed.getsockname()[1]
        closed.close()
        try:
            for port, seen in ((open_port, "reached"), (closed_port, "refused")):
                out = subprocess.run(
                    [sys.executable, "-c", netpol.CONNECT, "127.0.0.1", str(port)], capture_output=True, text=True
                )
                self.assertEqual(out.stdout.strip(), seen)
            out = subprocess.run(
                [sys.executable, "-c", netpol.CONNECT, "localhost", "dns"], capture_output=True, text=True
            )
            self.assertEqual(out.stdout.strip(), "127.0.0.1")
        finally:
            server.close()


if __name__ == "__main__":
    unittest.main()


class PolicyEngineBuildTest(unittest.TestCase):
    """The engine's build module keeps every library with an advisory at or past its fixed release."""

    FIXED = {
        "golang.org/x/net": "0.38.0",
        "google.golang.org/protobuf": "1.33.0",
        "google.golang.org/grpc": "1.64.1",
        "github.com/docker/docker": "25.0.6",
        "golang.org/x/oauth2": "0.27.0",
    }

    def test_each_flawed_library_is_at_or_past_its_fix(self):
        import re

        text = (ROOT / "scripts/k8s/kube-router/go.mod").read_text()
        self.assertIn("github.com/cloudnativelabs/kube-router/v2 v2.1.0", text)
        for module, fixed in self.FIXED.items():
            found = re.search(rf"^\s*(?:require\s+)?{re.escape(module)} v([0-9.]+)", text, re.M)
            assert found, module
            version = tuple(int(x) for x in found.group(1).split("."))
            self.assertGreaterEqual(version, tuple(int(x) for x in fixed.split(".")), module)
