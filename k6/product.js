// product.js: GET /api/{MODE}/products/{id}, four slow dependencies in parallel (seed C).
// Closed model ramped through 6 stages as the seed did (7 minutes to 35 VUs); ids drawn from a
// seeded PRNG so every run asks for the same products.
//
// Parameters (environment):
//   MODE          worker | virtual                               required
//   BASE_URL      service root                                   http://127.0.0.1:8080
//   PEAK_VUS      the stages' peak                               35     (seed C; 350 for 10x)
//   DURATION      total of the 6 stages, in seconds              42     (SEED=1: 420, the seed's 7 min)
//   STAGES        explicit stages "30s:5,30s:10,..." (wins over PEAK_VUS/DURATION)
//   PRODUCTS      ids are drawn from 1..PRODUCTS                 10000
//   SEED          PRNG seed for the ids                          42
//   SUMMARY_JSON  raw summary file for ./lab bench               (none)
//
// Run:  MODE=virtual k6 run k6/product.js
//       MODE=worker SEED_RUN=1 k6 run k6/product.js            (the seed's 7 minutes)
//       MODE=virtual PEAK_VUS=350 k6 run k6/product.js         (10x the seed's users)
import { check } from 'k6';
import {
  BASE_URL, mode, intEnv, closedStages, requireReady, getJson, labSummary, scenarioThresholds, think,
  TREND_STATS,
} from './lib/lab.js';

const MODE = mode();
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

export const options = {
  scenarios: { product: closedStages(stages()) },
  summaryTrendStats: TREND_STATS,
  randomSeed: intEnv('SEED', 42),
  thresholds: scenarioThresholds('product', {
    // The seed's thresholds.
    'http_req_failed{scenario:product}': ['rate<0.10'],
    'http_req_duration{scenario:product}': ['p(95)<5000', 'p(90)<3000'],
  }),
};

export function setup() {
  return requireReady();
}

export default function () {
  const id = 1 + Math.floor(Math.random() * PRODUCTS);
  const res = getJson(`${BASE_URL}/api/${MODE}/products/${id}`, `/api/${MODE}/products/{id}`, {
    'answered within 3 s': (r) => r.timings.duration < 3000,
    'has the product': (r) => r.body.includes(`"product":{"id":${id},`),
  });
  check(res, { 'ran in the requested mode': (r) => r.body.includes(`"mode":"${MODE}"`) });
  think();
}

export function handleSummary(data) {
  return labSummary(data, 'product');
}
