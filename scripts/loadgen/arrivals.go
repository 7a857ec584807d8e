package main

import (
	"math"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// The arrival patterns of an open run at the same mean rate: "uniform" spaces arrivals evenly (one
// every 1/rate, vegeta's constant pacer); "bursts" lets rate x period of them go at once at the start
// of every period; "paced" keeps -connections N kept-alive connections, each sending its next
// request one period (N / rate) after its last was sent, or as soon as its answer is in if that is
// later, all started together: the pattern of hey's workers (`hey -c 150 -q 10`). A server pays per
// wake-up, so the pattern can move its CPU per request at the same rate.
const (
	uniform = "uniform"
	bursts  = "bursts"
	paced   = "paced"
)

// pacedStretch bounds a paced run: a connection whose answers come slower than its period sends
// later than planned, and what it has not sent by this multiple of the run's duration is dropped
// (the server could not keep half again its pace).
const pacedStretch = 2

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

// connectionPacer paces one connection of a paced run: its first request at once, each next one a
// period after the last was sent. Vegeta calls Pace right after it handed the last request to the
// connection's one worker, and that worker takes the next only when its answer is in: so the next
// request goes a period after the last was sent, or when its answer came if that is later.
type connectionPacer struct{ period time.Duration }

func (c connectionPacer) Pace(_ time.Duration, hits uint64) (time.Duration, bool) {
	if hits == 0 {
		return 0, false
	}
	return c.period, false
}

// Rate is one arrival a period, in arrivals per nanosecond.
func (c connectionPacer) Rate(time.Duration) float64 {
	return 1 / float64(c.period.Nanoseconds())
}

// pacedPeriod is the time between two requests of one connection: connections / rate.
func pacedPeriod(rate, connections uint64) time.Duration {
	return time.Duration(float64(connections) / float64(rate) * float64(time.Second))
}

// shares splits `total` arrivals among `n` connections, the first ones one more where they do not
// divide.
func shares(total, n uint64) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = total / n
		if uint64(i) < total%n {
			out[i]++
		}
	}
	return out
}

// lateGrace is how long past its duration an open run may still send its planned arrivals: the last
// is due one interval before the end, and a pacer's sleep that ends late on a busy machine would
// otherwise lose it to the attack's clock and count it as dropped, a failure of the server's. An
// arrival held back for want of a worker (the server's failure) is still dropped: the grace is
// shorter than any run's arrivals by far.
const lateGrace = 10 * time.Millisecond

// capped stops a pacer after `total` arrivals: an open run sends at most its plan, however late.
type capped struct {
	vegeta.Pacer
	total uint64
}

func (c capped) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	if hits >= c.total {
		return 0, true
	}
	return c.Pacer.Pace(elapsed, hits)
}

// countPacer sends without pause until `total` requests have gone out (0: until the attack's
// duration ends): a closed model's pacing, where the workers' own round trips set the rate.
type countPacer struct{ total uint64 }

func (c countPacer) Pace(_ time.Duration, hits uint64) (time.Duration, bool) {
	return 0, c.total > 0 && hits >= c.total
}

// Rate is infinite: no arrival waits for the clock.
func (c countPacer) Rate(time.Duration) float64 { return math.Inf(1) }
