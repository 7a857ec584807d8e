// product.js: GET /api/{MODE}/products/{id}, four slow dependencies in parallel (seed C).
// Closed model ramped through 6 stages as the seed did (7 minutes to 35 VUs), or an open model
// at a fixed arrival rate; ids drawn from a seeded PRNG so every run asks for the same products.
//
// Parameters (environment):
//   MODE          worker | virtual | virtual-loop | reactive                    required
//   BASE_URL      service root                                   http://127.0.0.1:8080
//   PEAK_VUS      the stages' peak                               35     (seed C; 350 for 10x)
//   DURATION      total of the 6 stages, in seconds              42     (SEED_RUN=1: 420, the seed's 7 min)
//   STAGES        explicit stages "30s:5,30s:10,..." (wins over PEAK_VUS/DURATION)
//   CLIENTS       reactive: the virtual mode's variant, the virtual thread awaits the Vert.x clients   (none)
//   MODEL         closed | open                                  closed
//   RATE          open: arrivals per second                      100
//   OPEN_DURATION open: how long                                 20s
//   MAX_VUS       open: most VUs k6 may hold                     1000
//   MAX_DROPPED   open: dropped arrivals tolerated               0
//   PRODUCTS      ids are drawn from 1..PRODUCTS                 10000
//   SEED          PRNG seed for the ids (each VU: SEED, its id)  42
//   SUMMARY_JSON  raw summary file for ./lab bench               (none)
//
// Run:  MODE=virtual k6 run k6/product.js
//       MODE=worker SEED_RUN=1 k6 run k6/product.js            (the seed's 7 minutes)
//       MODE=virtual PEAK_VUS=350 k6 run k6/product.js         (10x the seed's users)
//       MODE=worker MODEL=open RATE=310 k6 run k6/product.js   (1.2x the worker's fan-out bound)
//       MODE=virtual CLIENTS=reactive k6 run k6/product.js     (virtual threads await the reactive clients)
import { check, randomSeed } from 'k6';
import exec from 'k6/execution';
import {
  BASE_URL, mode, clientsParam, intEnv, closedStages, byModel, droppedThreshold, requireReady, getJson, labSummary, scenarioThresholds, think,
  TREND_STATS,
} from './lib/lab.js';

const MODE = mode('product');
const CLIENTS = clientsParam(MODE);
const PRODUCTS = intEnv('PRODUCTS', 10000);
const PEAK = intEnv('PEAK_VUS', 35);
const DURATION = intEnv('DURATION', __ENV.SEED_RUN === '1' ? 420 : 42);

// The seed's shape: up in four steps, hold, down; durations in sevenths of the total.
const SHAPE = [[1, 5], [1, 10], [1, 20], [1, 35], [2, 35], [1, 0]];

function stages() {
  if (__ENV.STAGES) {
    return __ENV.STAGES.split(',').map((s) => {
      const [duration, target] = s.split(':');
      return { duration, target: Number(target) };
    });
  }
  return SHAPE.map(([sevenths, target]) => ({
    duration: `${Math.max(1, Math.round((DURATION * sevenths) / 7))}s`,
    target: Math.round((target * PEAK) / 35),
  }));
}

// DURATION already means the stages' total (in seconds), so the open model has its own variable.
const scenario = byModel(closedStages(stages()), {
  rate: 100, duration: '20s', durationVar: 'OPEN_DURATION', maxVUs: 1000, latency: 0.4, // p95 of the slowest dependency
});

export const options = {
  scenarios: { product: scenario },
  summaryTrendStats: TREND_STATS,
  thresholds: scenarioThresholds('product', {
    // The seed's thresholds.
    'http_req_failed{scenario:product}': ['rate<0.10'],
    'http_req_duration{scenario:product}': ['p(95)<5000', 'p(90)<3000'],
    ...droppedThreshold(scenario),
  }),
};

export function setup() {
  return requireReady();
}

let seeded = false;

export default function () {
  if (!seeded) {
    // Math.random seeded once per VU: VU n asks for the same ids in every run.
    randomSeed(intEnv('SEED', 42) * 100003 + exec.vu.idInTest);
    seeded = true;
  }
  const id = 1 + Math.floor(Math.random() * PRODUCTS);
  const res = getJson(`${BASE_URL}/api/${MODE}/products/${id}${CLIENTS ? `?${CLIENTS}` : ''}`, `/api/${MODE}/products/{id}`, {
    'answered within 3 s': (r) => r.timings.duration < 3000,
    'has the product': (r) => r.body.includes(`"product":{"id":${id},`),
  });
  check(res, {
    'ran in the requested mode': (r) => r.body.includes(`"mode":"${MODE}"`),
    'through the requested clients': (r) => !CLIENTS || r.body.includes('"clients":"reactive"'),
  });
  think();
}

export function handleSummary(data) {
  return labSummary(data, 'product');
}
