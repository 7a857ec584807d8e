// recruits.js: POST /api/{MODE}/recruits/batch?writes=WRITES, streaming RECORDS synthetic recruits
// (job postings) in chunks of CHUNK, one chunk after another as the seed did (seed D). Records come
// from a seeded PRNG, so every run writes the same rows. The stream itself: lib/ingest.js.
//
// Parameters (environment):
//   MODE          worker | virtual | virtual-loop | reactive                 required
//   WRITES        sequential | parallel | copy (not reactive) sequential
//   BASE_URL      service root                                http://127.0.0.1:8080
//   RECORDS       how many recruits                           87488   (seed D)
//   CHUNK         recruits per request                        100     (seed D)
//   ID_BASE       first recruit id                            1
//   DIM           embedding dimension                         384
//   SEED          PRNG seed                                   42
//   MAX_DURATION  hard stop                                   900s
//   SUMMARY_JSON  raw summary file for ./lab bench            (none)
//
// Run:  MODE=virtual WRITES=parallel RECORDS=5000 k6 run k6/recruits.js
import { requireReady } from './lib/lab.js';
import {
  CITIES, ingestOptions, ingestSummary, postChunk, recordPrng, skillsOf, withEmbedding,
} from './lib/ingest.js';

export const options = ingestOptions('recruits');

/** One recruit's fields but its embedding; the same id always gives the same record. */
export function recruit(id) {
  const r = recordPrng(id);
  const pick = (list) => list[Math.floor(r() * list.length)];
  const skills = skillsOf(r);
  const min = 30000 + Math.floor(r() * 50) * 1000;
  return {
    id,
    company: `Company ${Math.floor(r() * 5000)}`,
    title: `${pick(['Backend', 'Platform', 'Data', 'Frontend', 'Site reliability'])} engineer`,
    location: pick(CITIES),
    salaryMin: min,
    salaryMax: min + Math.floor(r() * 60) * 1000,
    postedAt: new Date(Date.UTC(2026, 0, 1) + Math.floor(r() * 300) * 86400000).toISOString(),
    skills,
    description: `Recruit ${id}: we build ${pick(['payments', 'search', 'logistics', 'games'])} with ${skills.map((s) => s.name).join(', ')}.`,
  };
}

/** One recruit as JSON text. */
export function recruitJson(id) {
  return withEmbedding(id, recruit(id));
}

export function setup() {
  return requireReady();
}

export default function () {
  postChunk('recruits', recruitJson);
}

export function handleSummary(data) {
  return ingestSummary(data, 'recruits');
}
