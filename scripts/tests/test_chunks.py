"""Seed D's chunk bodies (bench.workloads.chunks) are the records k6's scripts make, byte for byte:
the SHA-256 of each record's JSON text as k6 v1.8.1 printed it (recruitJson and candidateJson of
k6/recruits.js and k6/candidates.js, seed 42, 384 dimensions, on 2026-11-28)."""

from __future__ import annotations

import hashlib
import json
import unittest

from loomlab.bench.workloads import chunks

K6_RECORDS = {
    ("recruits", 1): "ef47719344a88a06ae5a5e5bb98d7dabb087535aeaeec3f58f19b32940a9cc1d",
    ("recruits", 2): "4aecec02203fcc43f4f3ab5d87f1e0688e8dcbfc58c08cbc71fbb84a5478f52b",
    ("recruits", 77): "fc90ad1acf814ac07f945a5e8fdbafdb7b9c12a67a87cf86c503a172208f166b",
    ("recruits", 1001): "e196f87bd7001625bbece0672e17168b40ed47202a6f4c9ec46054b456a299ec",
    ("candidates", 1): "bbf70202819dd230bb5a63db338eb0baaebca386d8e2aed535d57f7c9f23392c",
    ("candidates", 5): "b5537784482021a702c4864929cb91dcd577da2048fcfdd00577321c823bd679",
    ("candidates", 300): "d78104ac724c24cd733e22ba082a9e5fb1902496b3a85965a41ab97af6aa5d53",
}


class ChunksTest(unittest.TestCase):
    def test_each_record_is_the_text_k6_made_for_it(self):
        pool = chunks.embeddings(42, 384)
        for (domain, id_), digest in K6_RECORDS.items():
            text = chunks.record_json(domain, id_, 42, pool)
            self.assertEqual(hashlib.sha256(text.encode()).hexdigest(), digest, f"{domain} {id_}: {text[:80]}")

    def test_a_record_reads_as_its_domain_s_fields(self):
        recruit = json.loads(chunks.record_json("recruits", 1, 42, chunks.embeddings(42, 384)))
        self.assertEqual(recruit["company"], "Company 3023")
        self.assertTrue(recruit["postedAt"].endswith("T00:00:00.000Z"))
        self.assertTrue(1 <= len(recruit["skills"]) <= 5)
        self.assertTrue(all(-1 <= v <= 1 for v in recruit["embedding"]))

    def test_the_stream_holds_every_record_once_in_chunks(self):
        env = {"RECORDS": "7", "CHUNK": "3", "ID_BASE": "10", "DIM": "4"}
        got = [[r["id"] for r in json.loads(line)] for line in chunks.chunk_lines(env, "candidates")]
        self.assertEqual(got, [[10, 11, 12], [13, 14, 15], [16]])
        self.assertEqual(chunks.chunk_count(env), 3)

    def test_javascript_numbers_and_rounding(self):
        self.assertEqual([chunks.js_number(v) for v in (1.0, -0.0, 0.1234, -0.5)], ["1", "0", "0.1234", "-0.5"])
        self.assertEqual(chunks.imul(0xFFFFFFFF, 5), (0xFFFFFFFF * 5) & 0xFFFFFFFF)


if __name__ == "__main__":
    unittest.main()
