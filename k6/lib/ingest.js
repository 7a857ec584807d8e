// ingest.js: what the chunked-write scripts (recruits.js, candidates.js) share: the stream of
// seeded records in chunks, one chunk after another as the seed did (seed D), the per-table
// trends by role, and the summary line. A script declares its domain and how one record reads.
import http from 'k6/http';
import exec from 'k6/execution';
import { check } from 'k6';
import { Counter, Trend } from 'k6/metrics';
import {
  BASE_URL, mode, intEnv, closedIterations, scenarioThresholds, labSummary, track, TREND_STATS } from './lab.js';

export const WRITES = __ENV.WRITES || 'sequential';
// Both domains' chunk writers have the same modes; COPY has its own (no reactive form: the Vert.x
// client has no COPY).
export const MODE = mode(WRITES === 'copy' ? 'copy' : 'recruits');
export const RECORDS = intEnv('RECORDS', 87488);
export const CHUNK = intEnv('CHUNK', 100);
export const ID_BASE = intEnv('ID_BASE', 1);
export const DIM = intEnv('DIM', 384);
export const SEED = intEnv('SEED', 42);
export const CHUNKS = Math.ceil(RECORDS / CHUNK);

const records = new Counter('loomlab_records');
// The server's milliseconds per table, by role (the answer lists its tables in this order), so
// every domain reports the same figures.
const ROLES = ['parent', 'skill', 'text', 'embedding'];
const tableMs = ROLES.map((role) => new Trend(`loomlab_table_${role}_ms`));
const serverMs = new Trend('loomlab_chunk_server_ms');

/** The options of a chunk stream for `scenario`. */
export function ingestOptions(scenario) {
  return {
    scenarios: { [scenario]: closedIterations(1, CHUNKS, __ENV.MAX_DURATION || '900s') },
    summaryTrendStats: TREND_STATS,
    thresholds: scenarioThresholds(scenario),
  };
}

// mulberry32: small, fast, and the same numbers in every k6.
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A record's own PRNG: the same id always gives the same record. */
export function recordPrng(id) {
  return prng(SEED * 1000003 + id);
}

export const SKILLS = ['java', 'kotlin', 'sql', 'postgresql', 'kubernetes', 'quarkus', 'spring', 'go', 'python',
  'kafka', 'redis', 'aws', 'react', 'typescript', 'terraform'];
export const CITIES = ['Seoul', 'Busan', 'Incheon', 'Daegu', 'Daejeon', 'Gwangju', 'remote'];

/** 1-5 distinct skills with levels 1-5. */
export function skillsOf(r) {
  const n = 1 + Math.floor(r() * 5);
  const start = Math.floor(r() * SKILLS.length);
  const skills = [];
  for (let k = 0; k < n; k++) skills.push({ name: SKILLS[(start + k) % SKILLS.length], level: 1 + Math.floor(r() * 5) });
  return skills;
}

// Embeddings are the bulk of a chunk (DIM numbers each): a pool of them is generated and
// serialised once per VU, and each record takes one by id, so generating a chunk costs k6
// little next to what the service does with it.
const EMBEDDINGS = (() => {
  const r = prng(SEED);
  const pool = [];
  for (let k = 0; k < 64; k++) {
    const e = new Array(DIM);
    for (let i = 0; i < DIM; i++) e[i] = Math.round((r() * 2 - 1) * 1e4) / 1e4;
    pool.push(e);
  }
  return pool;
})();
const EMBEDDINGS_JSON = EMBEDDINGS.map((e) => JSON.stringify(e));

/** A record's fields as JSON text with its embedding appended. */
export function withEmbedding(id, fields) {
  const json = JSON.stringify(fields);
  return `${json.slice(0, -1)},"embedding":${EMBEDDINGS_JSON[id % EMBEDDINGS.length]}}`;
}

/** A record's embedding as numbers (the gRPC stream sends them as packed floats). */
export function embeddingOf(id) {
  return EMBEDDINGS[id % EMBEDDINGS.length];
}

/** The ids of chunk `index` of the stream: [first, last). */
export function chunkIds(index) {
  const first = ID_BASE + index * CHUNK;
  return [first, Math.min(ID_BASE + RECORDS, first + CHUNK)];
}

/** Books a chunk's answer (REST body or gRPC acknowledgement): records and per-table times. */
export function bookChunk(recordsWritten, totalMs, msByRole) {
  records.add(recordsWritten);
  serverMs.add(totalMs);
  msByRole.forEach((ms, i) => tableMs[i].add(ms));
}


/** One chunk of the stream: this iteration's records to /api/{MODE}/{domain}/batch. */
export function postChunk(domain, recordJson) {
  const [first, last] = chunkIds(exec.scenario.iterationInTest);
  const parts = [];
  for (let id = first; id < last; id++) parts.push(recordJson(id));
  const res = track(http.post(`${BASE_URL}/api/${MODE}/${domain}/batch?writes=${WRITES}`, `[${parts.join(',')}]`, {
    headers: { 'Content-Type': 'application/json' },
    tags: { name: `/api/${MODE}/${domain}/batch` },
  }));
  const ok = check(res, { 'status is 200': (r) => r.status === 200 });
  if (!ok) return;
  const body = res.json();
  bookChunk(body.records, body.totalMs, Object.values(body.tableMs));
}

/** The lab's summary plus the records written and their rate. */
export function ingestSummary(data, scenario) {
  const out = labSummary(data, scenario);
  const rec = data.metrics.loomlab_records ? data.metrics.loomlab_records.values : { count: 0, rate: 0 };
  out.stdout += `  ${WRITES}: ${rec.count} records, ${rec.rate.toFixed(1)} records/s\n`;
  return out;
}
