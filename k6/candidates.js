// candidates.js: POST /api/{MODE}/candidates/batch?writes=WRITES, streaming RECORDS synthetic
// candidates (people) in chunks of CHUNK, one chunk after another: seed D's second domain, the
// same stream as recruits.js (lib/ingest.js), so the two domains compare on the same load.
//
// Parameters (environment):
//   MODE          worker | virtual | virtual-loop | reactive                 required
//   WRITES        sequential | parallel | copy (not reactive) sequential
//   BASE_URL      service root                                http://127.0.0.1:8080
//   RECORDS       how many candidates                         87488
//   CHUNK         candidates per request                      100     (seed D)
//   ID_BASE       first candidate id                          1
//   DIM           embedding dimension                         384
//   SEED          PRNG seed                                   42
//   MAX_DURATION  hard stop                                   900s
//   SUMMARY_JSON  raw summary file for ./lab bench            (none)
//
// Run:  MODE=virtual WRITES=parallel RECORDS=5000 k6 run k6/candidates.js
import { requireReady } from './lib/lab.js';
import {
  CITIES, ingestOptions, ingestSummary, postChunk, recordPrng, skillsOf, withEmbedding,
} from './lib/ingest.js';

export const options = ingestOptions('candidates');

const FIRST = ['Minjun', 'Seoyeon', 'Jiho', 'Haeun', 'Doyun', 'Jiwoo', 'Ara', 'Taeyang'];
const LAST = ['Kim', 'Lee', 'Park', 'Choi', 'Jung', 'Kang'];

/** One candidate's fields but its embedding; the same id always gives the same record. */
export function candidate(id) {
  const r = recordPrng(id);
  const pick = (list) => list[Math.floor(r() * list.length)];
  const skills = skillsOf(r);
  const years = Math.floor(r() * 25);
  return {
    id,
    name: `${pick(FIRST)} ${pick(LAST)}`,
    headline: `${pick(['Backend', 'Platform', 'Data', 'Frontend', 'Site reliability'])} engineer`,
    location: pick(CITIES),
    yearsOfExperience: years,
    desiredSalary: 30000 + years * 3000 + Math.floor(r() * 20) * 1000,
    skills,
    profile: `Candidate ${id}: ${years} years with ${skills.map((s) => s.name).join(', ')}.`,
  };
}

/** One candidate as JSON text. */
export function candidateJson(id) {
  return withEmbedding(id, candidate(id));
}

export function setup() {
  return requireReady();
}

export default function () {
  postChunk('candidates', candidateJson);
}

export function handleSummary(data) {
  return ingestSummary(data, 'candidates');
}
