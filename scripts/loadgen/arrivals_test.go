package main

import (
	"sync"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

func TestBurstPacerReleasesEachBurstAtItsPeriod(t *testing.T) {
	b := burstPacer{size: 3, period: 100 * time.Millisecond}
	for _, c := range []struct {
		elapsed time.Duration
		hits    uint64
		wait    time.Duration
	}{
		{0, 0, 0}, {0, 2, 0}, // the first burst at once
		{time.Millisecond, 3, 99 * time.Millisecond}, // the fourth waits for the second burst
		{100 * time.Millisecond, 5, 0},
		{150 * time.Millisecond, 6, 50 * time.Millisecond},
		{450 * time.Millisecond, 6, 0}, // a late burst goes at once, it is not skipped
	} {
		if wait, stop := b.Pace(c.elapsed, c.hits); wait != c.wait || stop {
			t.Errorf("Pace(%s, %d) = %s, %v; want %s, false", c.elapsed, c.hits, wait, stop, c.wait)
		}
	}
	if _, stop := (capped{b, 9}).Pace(time.Second, 9); !stop {
		t.Error("the pacer went on past the plan's count")
	}
	if got := b.Rate(0) * 1e9; got < 29.999 || got > 30.001 {
		t.Errorf("rate %g a second, want 30", got)
	}
}

func TestBurstsArePlannedOnlyForAnOpenRunOfOneArrivalOrMore(t *testing.T) {
	open := plan{model: "open", rate: 50, duration: time.Second, maxWorkers: 10, timeout: time.Minute, arrivals: bursts, burstPeriod: 100 * time.Millisecond}
	if err := open.validate(); err != nil {
		t.Fatalf("5 arrivals a burst refused: %v", err)
	}
	tooFew := open
	tooFew.burstPeriod = 10 * time.Millisecond // 0.5 of an arrival a burst
	closed := plan{model: "closed", users: 1, iterations: 1, timeout: time.Minute, arrivals: bursts, burstPeriod: time.Second}
	unknown := open
	unknown.arrivals = "poisson"
	for name, p := range map[string]plan{"under one arrival": tooFew, "closed": closed, "unknown": unknown} {
		if p.validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// An open run in bursts sends as many requests as a uniform one, and they arrive together: the
// server sees them in `rate x period` groups, one group a period.
func TestOpenRunInBurstsArrivesInGroups(t *testing.T) {
	srv, served := server(t)
	p := plan{model: "open", rate: 40, duration: time.Second, maxWorkers: 50, timeout: time.Minute, arrivals: bursts, burstPeriod: 250 * time.Millisecond}
	var mu sync.Mutex
	var sent []time.Time
	s := newSummary(p)
	attack(p, vegeta.NewStaticTargeter(vegeta.Target{Method: "GET", URL: srv.URL + "/ok"}), s.add, func(r *vegeta.Result) {
		mu.Lock()
		defer mu.Unlock()
		sent = append(sent, r.Timestamp)
	})
	got := s.close()
	if got.Requests != 40 || served.Load() != 40 || got.Dropped != 0 {
		t.Fatalf("requests %d, served %d, dropped %d; want 40, 40, 0", got.Requests, served.Load(), got.Dropped)
	}
	// Each burst's 10 go out together; bursts are a period apart. Grouped by the burst they belong
	// to, a burst's arrivals lie closer to each other than to the next burst's (a generous margin:
	// the machine may be busy).
	first := sent[0]
	for _, at := range sent {
		if first.After(at) {
			first = at
		}
	}
	groups := map[int64]int{}
	for _, at := range sent {
		groups[int64(at.Sub(first)/p.burstPeriod)]++
	}
	if len(groups) != 4 {
		t.Fatalf("arrivals fell in %d periods, want 4: %v", len(groups), groups)
	}
	for period, n := range groups {
		if n != 10 {
			t.Errorf("period %d: %d arrivals, want 10 (%v)", period, n, groups)
		}
	}
}

// The last arrival of an open run is due one interval before its end; a pacer that wakes late on a
// busy machine still sends it (not a dropped arrival, which says the server had no worker free), and
// no arrival goes past the plan's count.
func TestAnOpenRunSendsItsLastArrivalLateButNothingMore(t *testing.T) {
	for _, arrivals := range []string{uniform, bursts} {
		p := plan{model: "open", rate: 1500, duration: 4 * time.Second, maxWorkers: 10, timeout: time.Minute, arrivals: arrivals, burstPeriod: 100 * time.Millisecond}
		pacer, du, _, _ := p.pacing()
		late := p.duration + 3*time.Millisecond
		if du < late {
			t.Errorf("%s: the attack ends at %s, before a last arrival 3 ms late", arrivals, du)
		}
		if wait, stop := pacer.Pace(late, 5999); wait != 0 || stop {
			t.Errorf("%s: the last arrival, 3 ms late: wait %s, stop %v", arrivals, wait, stop)
		}
		if _, stop := pacer.Pace(late, 6000); !stop {
			t.Errorf("%s: the pacer went past the plan's 6,000", arrivals)
		}
	}
}
