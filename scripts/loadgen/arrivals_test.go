package main

import (
	"net/http"
	"net/http/httptest"
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
		// The nearest period's start: a burst stamped a little before the first arrival's offset
		// still counts as its own.
		groups[int64((at.Sub(first)+p.burstPeriod/2)/p.burstPeriod)]++
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

// A paced run keeps one connection per -connections, each with one request in flight at most, each
// sending its next a period after its last, or when its answer came if that is later; every
// planned request goes out.
func TestPacedRunSendsAPeriodApartOnEachOfItsConnections(t *testing.T) {
	for _, c := range []struct {
		name       string
		answerIn   time.Duration
		atLeastGap time.Duration
	}{
		{"answers within the period", 0, 50 * time.Millisecond},                            // the period (100 ms), halved: the wire's jitter
		{"answers slower than the period", 150 * time.Millisecond, 140 * time.Millisecond}, // the answer sets the pace
	} {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			arrived := map[string][]time.Time{}
			inFlight := map[string]int{}
			most := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				arrived[r.RemoteAddr] = append(arrived[r.RemoteAddr], time.Now())
				inFlight[r.RemoteAddr]++
				most = max(most, inFlight[r.RemoteAddr])
				mu.Unlock()
				time.Sleep(c.answerIn)
				mu.Lock()
				inFlight[r.RemoteAddr]--
				mu.Unlock()
			}))
			t.Cleanup(srv.Close)
			// 4 connections at 40 a second: each sends every 100 ms, 5 requests each.
			p := plan{model: "open", rate: 40, duration: 500 * time.Millisecond, maxWorkers: 10, timeout: time.Minute, arrivals: paced, connections: 4}
			if err := p.validate(); err != nil {
				t.Fatal(err)
			}
			got := run(p, srv.URL)
			if got.Requests != 20 || got.Dropped != 0 || got.Failed != 0 {
				t.Fatalf("requests %d, dropped %d, failed %d; want 20, 0, 0", got.Requests, got.Dropped, got.Failed)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(arrived) != 4 || most != 1 || got.Connections != 4 {
				t.Fatalf("%d connections (%d opened), at most %d in flight on one; want 4 and 1", len(arrived), got.Connections, most)
			}
			for conn, at := range arrived {
				if len(at) != 5 {
					t.Errorf("%s: %d requests, want 5", conn, len(at))
				}
				for i := 1; i < len(at); i++ {
					if gap := at[i].Sub(at[i-1]); gap < c.atLeastGap {
						t.Errorf("%s: request %d came %s after the last, want %s or more", conn, i, gap, c.atLeastGap)
					}
				}
			}
		})
	}
}

func TestPacedIsPlannedForAnOpenRunOfKeptAliveConnections(t *testing.T) {
	good := plan{model: "open", rate: 1500, duration: time.Second, maxWorkers: 2000, timeout: time.Minute, arrivals: paced, connections: 150}
	if err := good.validate(); err != nil {
		t.Fatalf("150 connections at 1,500 a second refused: %v", err)
	}
	if period := pacedPeriod(good.rate, good.connections); period != 100*time.Millisecond {
		t.Errorf("period %s, want 100ms", period)
	}
	if got := shares(10, 4); got[0] != 3 || got[1] != 3 || got[2] != 2 || got[3] != 2 {
		t.Errorf("10 among 4: %v, want [3 3 2 2]", got)
	}
	none, tooMany, fresh, closed, stray := good, good, good, good, good
	none.connections = 0
	tooMany.connections = 1501 // more connections than requests
	fresh.newConnections = true
	closed.model, closed.users, closed.iterations = "closed", 1, 1
	stray.arrivals = uniform
	for name, p := range map[string]plan{"no connection": none, "a connection without a request": tooMany, "new connections": fresh, "closed": closed, "-connections without paced": stray} {
		if p.validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
