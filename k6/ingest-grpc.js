// ingest-grpc.js: seed D's own transport. The records of recruits.js or candidates.js (DOMAIN),
// the same ids and fields, streamed as protobuf chunks of CHUNK on gRPC streams
// (loomlab.ingest.v1.Ingest, k6/proto/ingest.proto = src/main/proto/ingest.proto), each chunk
// acknowledged after its commit. One chunk in flight by default, as the REST script posts one
// after another, so HTTP/JSON and gRPC/protobuf differ only in transport and encoding; WINDOW
// lets the stream send ahead. The report reads a chunk as a request: its time is from its write to
// its acknowledgement, the same rows and trends as recruits.js (lib/ingest.js).
//
// Parameters (environment):
//   MODE              worker | virtual | virtual-loop         required
//   DOMAIN            recruits | candidates                   recruits
//   WRITES            sequential | parallel | copy            sequential
//   BASE_URL          service root (its host:port is dialled) http://127.0.0.1:8080
//   RECORDS           how many records                        87488   (seed D)
//   CHUNK             records per chunk                       100     (seed D)
//   CHUNKS_PER_STREAM chunks per stream (one k6 iteration)    all: one stream, as the seed
//   WINDOW            chunks sent ahead of their ack          1
//   ID_BASE, DIM, SEED, MAX_DURATION, SUMMARY_JSON            as recruits.js
//
// Run:  MODE=virtual DOMAIN=candidates WRITES=parallel RECORDS=5000 k6 run k6/ingest-grpc.js
import { Client, Stream } from 'k6/net/grpc';
import exec from 'k6/execution';
import { Counter, Rate, Trend } from 'k6/metrics';
import {
  BASE_URL, MODE_MATRIX, TREND_STATS, closedIterations, intEnv, requireReady, trackMs,
} from './lib/lab.js';
import {
  CHUNKS, MODE, WRITES, bookChunk, chunkIds, embeddingOf, ingestSummary,
} from './lib/ingest.js';
import { recruit } from './recruits.js';
import { candidate } from './candidates.js';

const STREAM_MODES = MODE_MATRIX['ingest-grpc'];
if (!STREAM_MODES.includes(MODE)) {
  throw new Error(`the gRPC stream runs on threads only: MODE must be one of ${STREAM_MODES.join(', ')}, got '${MODE}'`);
}
const DOMAIN = __ENV.DOMAIN || 'recruits';
const DOMAINS = {
  recruits: { method: 'WriteRecruits', field: 'recruits', record: recruit },
  candidates: { method: 'WriteCandidates', field: 'candidates', record: candidate },
};
if (!DOMAINS[DOMAIN]) throw new Error(`DOMAIN must be one of ${Object.keys(DOMAINS)}, got ${DOMAIN}`);
const { method, field, record } = DOMAINS[DOMAIN];
const PER_STREAM = intEnv('CHUNKS_PER_STREAM', CHUNKS);
const WINDOW = Math.max(1, intEnv('WINDOW', 1));
const STREAMS = Math.ceil(CHUNKS / PER_STREAM);
const SCENARIO = `${DOMAIN}_grpc`;
const ADDRESS = BASE_URL.replace(/^https?:\/\//, '');

const chunkDuration = new Trend('loomlab_chunk_duration', true);
const chunks = new Counter('loomlab_chunks');
const chunkFailed = new Rate('loomlab_chunk_failed');

const client = new Client();
client.load([__ENV.PROTO_DIR || './proto'], 'ingest.proto');

export const options = {
  scenarios: { [SCENARIO]: closedIterations(1, STREAMS, __ENV.MAX_DURATION || '900s') },
  summaryTrendStats: TREND_STATS,
  thresholds: {
    [`loomlab_chunk_failed{scenario:${SCENARIO}}`]: ['rate<0.01'],
    [`loomlab_chunks{scenario:${SCENARIO}}`]: ['count>0'],
    [`loomlab_chunk_duration{scenario:${SCENARIO}}`]: [],
  },
};

export function setup() {
  return requireReady();
}

function chunkMessage(index) {
  const [first, last] = chunkIds(index);
  const list = [];
  for (let id = first; id < last; id++) list.push({ ...record(id), embedding: embeddingOf(id) });
  return { sequence: index, [field]: list };
}

export default function () {
  if (exec.vu.iterationInScenario === 0) client.connect(ADDRESS, { plaintext: true });
  const first = exec.scenario.iterationInTest * PER_STREAM;
  const end = Math.min(CHUNKS, first + PER_STREAM);
  const sentAt = {};
  let next = first;
  const stream = new Stream(client, `loomlab.ingest.v1.Ingest/${method}`, {
    metadata: { 'loomlab-mode': MODE, 'loomlab-writes': WRITES },
  });
  const send = () => {
    sentAt[next] = Date.now();
    stream.write(chunkMessage(next));
    next += 1;
    if (next === end) stream.end();
  };
  stream.on('data', (ack) => {
    const seq = Number(ack.sequence || 0);
    const ms = Date.now() - sentAt[seq];
    delete sentAt[seq];
    chunks.add(1);
    chunkFailed.add(false);
    chunkDuration.add(ms);
    trackMs(ms);
    bookChunk(ack.records || 0, Number(ack.totalMs || 0), (ack.tables || []).map((t) => Number(t.ms || 0)));
    if (next < end) send();
  });
  stream.on('error', (e) => {
    // The call ended with a status: every chunk without an acknowledgement failed.
    const lost = Object.keys(sentAt).length + (end - next);
    for (let i = 0; i < lost; i++) chunkFailed.add(true);
    console.error(`${method} ${MODE}: ${e.code} ${e.message}`);
  });
  while (next < end && next - first < WINDOW) send();
}

export function handleSummary(data) {
  return ingestSummary(data, SCENARIO);
}
