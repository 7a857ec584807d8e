"""Unit tests of `verify`'s k6 file check: every file a script opens or imports is in the ConfigMap
the Jobs mount."""

import unittest


class K6Files(unittest.TestCase):
    CM = {
        "kind": "ConfigMap",
        "metadata": {"name": "k6-scripts"},
        "data": {
            "sleep.js": "import { x } from './lib/lab.js';",
            "lab.js": "open(import.meta.resolve('./modes.json'))",
            "modes.json": "{}",
        },
    }

    def job(self, items):
        return {
            "kind": "Job",
            "metadata": {"name": "k6"},
            "spec": {
                "template": {
                    "spec": {
                        "containers": [{"volumeMounts": [{"name": "s", "mountPath": "/scripts"}]}],
                        "volumes": [{"name": "s", "configMap": {"name": "k6-scripts", "items": items}}],
                    }
                }
            },
        }

    def test_a_script_reaching_a_file_that_is_not_mounted_is_named(self):
        from labmachine.verify import k6files

        job = self.job([{"key": "sleep.js", "path": "sleep.js"}, {"key": "lab.js", "path": "lib/lab.js"}])
        _, problems = k6files.check([self.CM, job])
        self.assertEqual(
            problems,
            ["Job/k6: /scripts/lib/lab.js reaches ./modes.json (/scripts/lib/modes.json)," " which is not mounted"],
        )

    def test_every_reached_file_mounted_passes(self):
        from labmachine.verify import k6files

        job = self.job(
            [
                {"key": "sleep.js", "path": "sleep.js"},
                {"key": "lab.js", "path": "lib/lab.js"},
                {"key": "modes.json", "path": "lib/modes.json"},
            ]
        )
        self.assertEqual(k6files.check([self.CM, job]), (2, []))

    def test_the_script_a_job_runs_must_be_mounted_beside_run_sh(self):
        from labmachine.verify import k6files

        cm = {**self.CM, "data": {**self.CM["data"], "run.sh": "k6 run /scripts/$SCRIPT", "mixed.js": ""}}
        job = self.job(
            [
                {"key": "run.sh", "path": "run.sh"},
                {"key": "sleep.js", "path": "sleep.js"},
                {"key": "lab.js", "path": "lib/lab.js"},
                {"key": "modes.json", "path": "lib/modes.json"},
            ]
        )
        job["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "SCRIPT", "value": "mixed.js"}]
        _, problems = k6files.check([cm, job])
        self.assertEqual(problems, ["Job/k6: SCRIPT mixed.js is not mounted (/scripts/mixed.js)"])
        job["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "SCRIPT", "value": "sleep.js"}]
        self.assertEqual(k6files.check([cm, job])[1], [])

    def test_references_cover_imports_opens_and_grpc_loads(self):
        from labmachine.verify import k6files

        src = (
            "import http from 'k6/http';\nimport {\n a } from \"./lib/lab.js\";\nopen('./data.csv');\n"
            "client.load([__ENV.PROTO_DIR || './proto'], 'ingest.proto');"
        )
        self.assertEqual(sorted(k6files.references(src)), ["./data.csv", "./lib/lab.js", "./proto/ingest.proto"])


if __name__ == "__main__":
    unittest.main()
