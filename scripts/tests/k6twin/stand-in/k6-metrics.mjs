// k6/metrics: the metrics are declared and fed; the twin compares requests, not figures.
class Metric {
  add() {}
}
export class Counter extends Metric {}
export class Trend extends Metric {}
export class Rate extends Metric {}
