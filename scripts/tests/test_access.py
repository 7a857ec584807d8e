"""The runner's Role (deploy/k8s/access) asks for what `./lab k8s run` needs and no more: a cluster
admin reads it before binding it, and a test keeps it from growing back."""

import unittest

import yaml

from loomlab import ROOT

RUNNER = ROOT / "deploy/k8s/access/runner.yaml"


def role_rules() -> list[dict]:
    docs = [d for d in yaml.safe_load_all(RUNNER.read_text()) if d]
    (role,) = [d for d in docs if d["kind"] == "Role"]
    rules: list[dict] = role["rules"]
    return rules


def grants(resource: str) -> list[dict]:
    return [r for r in role_rules() if resource in r["resources"]]


class RunnerRoleTest(unittest.TestCase):
    def test_no_wildcard_anywhere(self):
        for rule in role_rules():
            for key in ("apiGroups", "resources", "verbs"):
                self.assertNotIn("*", rule[key], rule)

    def test_secrets_are_never_read_listed_or_watched(self):
        for rule in grants("secrets"):
            self.assertFalse({"get", "list", "watch"} & set(rule["verbs"]), rule)

    def test_secrets_are_changed_only_by_name(self):
        for rule in grants("secrets"):
            if set(rule["verbs"]) - {"create"}:
                self.assertEqual(rule.get("resourceNames"), ["db-credentials"], rule)

    def test_network_policies_are_applied_never_deleted(self):
        for rule in grants("networkpolicies"):
            self.assertFalse({"delete", "deletecollection", "list", "watch"} & set(rule["verbs"]), rule)

    def test_exec_is_the_results_readers_alone(self):
        (rule,) = grants("pods/exec")
        self.assertEqual(sorted(rule["verbs"]), ["create", "get"])


if __name__ == "__main__":
    unittest.main()
