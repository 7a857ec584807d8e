// recruits.js: POST /api/{MODE}/recruits/batch?writes=WRITES, streaming RECORDS synthetic recruits
// in chunks of CHUNK, one chunk after another as the seed did (seed D). Records come from a
// seeded PRNG, so every run writes the same rows.
//
// Parameters (environment):
//   MODE          worker | virtual                            required
//   WRITES        sequential | parallel | copy                sequential
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
import http from 'k6/http';
import exec from 'k6/execution';
import { check } from 'k6';
import { Counter, Trend } from 'k6/metrics';
import {
  BASE_URL, mode, intEnv, closedIterations, requireReady, labSummary, scenarioThresholds, track, TREND_STATS,
} from './lib/lab.js';

const MODE = mode();
const WRITES = __ENV.WRITES || 'sequential';
const RECORDS = intEnv('RECORDS', 87488);
const CHUNK = intEnv('CHUNK', 100);
const ID_BASE = intEnv('ID_BASE', 1);
const DIM = intEnv('DIM', 384);
const SEED = intEnv('SEED', 42);
const CHUNKS = Math.ceil(RECORDS / CHUNK);

const records = new Counter('lab_records');
const tableMs = {
  recruit: new Trend('lab_table_recruit_ms'),
  recruit_skill: new Trend('lab_table_recruit_skill_ms'),
  recruit_description: new Trend('lab_table_recruit_description_ms'),
  recruit_skill_embedding: new Trend('lab_table_recruit_skill_embedding_ms'),
};
const serverMs = new Trend('lab_chunk_server_ms');

export const options = {
  scenarios: { recruits: closedIterations(1, CHUNKS, __ENV.MAX_DURATION || '900s') },
  summaryTrendStats: TREND_STATS,
  thresholds: scenarioThresholds('recruits'),
};

// mulberry32: small, fast, and the same numbers in every k6.
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SKILLS = ['java', 'kotlin', 'sql', 'postgresql', 'kubernetes', 'quarkus', 'spring', 'go', 'python', 'kafka',
  'redis', 'aws', 'react', 'typescript', 'terraform'];
const CITIES = ['Seoul', 'Busan', 'Incheon', 'Daegu', 'Daejeon', 'Gwangju', 'remote'];

// Embeddings are the bulk of a chunk (DIM numbers each): a pool of them is generated and
// serialised once per VU, and each recruit takes one by id, so generating a chunk costs k6
// little next to what the service does with it.
const EMBEDDINGS = (() => {
  const r = prng(SEED);
  const pool = [];
  for (let k = 0; k < 64; k++) {
    const e = new Array(DIM);
    for (let i = 0; i < DIM; i++) e[i] = Math.round((r() * 2 - 1) * 1e4) / 1e4;
    pool.push(JSON.stringify(e));
  }
  return pool;
})();

/** One recruit as JSON text; the same id always gives the same text. */
export function recruitJson(id) {
  const r = prng(SEED * 1000003 + id);
  const pick = (list) => list[Math.floor(r() * list.length)];
  const n = 1 + Math.floor(r() * 5);
  const start = Math.floor(r() * SKILLS.length);
  const skills = [];
  for (let k = 0; k < n; k++) skills.push({ name: SKILLS[(start + k) % SKILLS.length], level: 1 + Math.floor(r() * 5) });
  const min = 30000 + Math.floor(r() * 50) * 1000;
  const fields = {
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
  const json = JSON.stringify(fields);
  return `${json.slice(0, -1)},"embedding":${EMBEDDINGS[id % EMBEDDINGS.length]}}`;
}

export function setup() {
  return requireReady();
}

export default function () {
  const first = ID_BASE + exec.scenario.iterationInTest * CHUNK;
  const last = Math.min(ID_BASE + RECORDS, first + CHUNK);
  const parts = [];
  for (let id = first; id < last; id++) parts.push(recruitJson(id));
  const res = track(http.post(`${BASE_URL}/api/${MODE}/recruits/batch?writes=${WRITES}`, `[${parts.join(',')}]`, {
    headers: { 'Content-Type': 'application/json' },
    tags: { name: `/api/${MODE}/recruits/batch` },
  }));
  const ok = check(res, { 'status is 200': (r) => r.status === 200 });
  if (!ok) return;
  const body = res.json();
  records.add(body.records);
  serverMs.add(body.totalMs);
  for (const [table, trend] of Object.entries(tableMs)) trend.add(body.tableMs[table]);
}


export function handleSummary(data) {
  const out = labSummary(data, 'recruits');
  const rec = data.metrics.lab_records ? data.metrics.lab_records.values : { count: 0, rate: 0 };
  out.stdout += `  ${WRITES}: ${rec.count} records, ${rec.rate.toFixed(1)} records/s\n`;
  return out;
}
