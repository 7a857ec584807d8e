package main

import "time"

// The arrival patterns of an open run at the same mean rate: "uniform" spaces arrivals evenly (one
// every 1/rate, vegeta's constant pacer); "bursts" lets rate x period of them go at once at the start
// of every period, the pattern of hey's workers (each sends once a period, all started together).
// A server pays per wake-up, so the pattern can move its CPU per request at the same rate.
const (
	uniform = "uniform"
	bursts  = "bursts"
)

// burstSize is the arrivals of one burst: rate x period, rounded down (0: the plan is refused).
func burstSize(rate uint64, period time.Duration) uint64 {
	if period <= 0 {
		return 0
	}
	return uint64(float64(rate) * period.Seconds())
}

// burstPacer releases `size` arrivals at every multiple of `period`, the first burst at once (the
// plan's count caps it: main.go's capped).
type burstPacer struct {
	size   uint64
	period time.Duration
}

// Pace lets the next arrival go at once when its burst is due, and otherwise waits for its burst.
func (b burstPacer) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	due := time.Duration(hits/b.size) * b.period
	if elapsed >= due {
		return 0, false
	}
	return due - elapsed, false
}

// Rate is the mean rate in arrivals per nanosecond, as vegeta's pacers give it.
func (b burstPacer) Rate(time.Duration) float64 {
	return float64(b.size) / float64(b.period.Nanoseconds())
}
