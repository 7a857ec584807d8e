package main

import (
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// server answers /ok with a body that names it and /fail with a 503; it counts what it served.
func server(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var served atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, _ *http.Request) {
		served.Add(1)
		_, _ = w.Write([]byte(`{"mode":"virtual"}`))
	})
	mux.HandleFunc("/fail", func(w http.ResponseWriter, _ *http.Request) {
		served.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s, &served
}

func run(p plan, url string) Summary {
	s := newSummary(p)
	s.connections = attack(p, vegeta.NewStaticTargeter(vegeta.Target{Method: "GET", URL: url}), s.add)
	return s.close()
}

func TestClosedModelSendsExactlyUsersTimesIterations(t *testing.T) {
	srv, served := server(t)
	p := plan{model: "closed", users: 20, iterations: 7, timeout: time.Minute, expect: [][]byte{[]byte(`"mode":"virtual"`)}}
	got := run(p, srv.URL+"/ok")
	if got.Requests != 140 || served.Load() != 140 || got.Planned != 140 || got.Dropped != 0 {
		t.Fatalf("requests %d, served %d, planned %d, dropped %d; want 140, 140, 140, 0",
			got.Requests, served.Load(), got.Planned, got.Dropped)
	}
	if got.Failed != 0 || got.ChecksFailed != 0 || got.StatusCodes["200"] != 140 {
		t.Fatalf("failed %d, checks failed %d, codes %v", got.Failed, got.ChecksFailed, got.StatusCodes)
	}
}

func TestClosedModelBoundedByTimeStopsAfterIt(t *testing.T) {
	srv, served := server(t)
	started := time.Now()
	got := run(plan{model: "closed", users: 4, duration: time.Second, timeout: time.Minute}, srv.URL+"/ok")
	if took := time.Since(started); took < time.Second || took > 30*time.Second {
		t.Fatalf("took %s for a 1 s run", took)
	}
	if got.Requests == 0 || int64(got.Requests) != served.Load() || got.Planned != 0 || got.Dropped != 0 {
		t.Fatalf("requests %d, served %d, planned %d, dropped %d", got.Requests, served.Load(), got.Planned, got.Dropped)
	}
}

func TestFailedStatusAndFailedCheckAreCountedApart(t *testing.T) {
	srv, _ := server(t)
	failing := run(plan{model: "closed", users: 2, iterations: 5, timeout: time.Minute}, srv.URL+"/fail")
	if failing.Failed != 10 || failing.ErrorRate != 1 || failing.StatusCodes["503"] != 10 {
		t.Fatalf("a 503 must fail: failed %d, rate %v, codes %v", failing.Failed, failing.ErrorRate, failing.StatusCodes)
	}
	wrong := run(plan{model: "closed", users: 2, iterations: 5, timeout: time.Minute, expect: [][]byte{[]byte(`"mode":"worker"`)}},
		srv.URL+"/ok")
	if wrong.Failed != 0 || wrong.ChecksFailed != 10 {
		t.Fatalf("a 200 in the wrong mode fails its check only: failed %d, checks failed %d", wrong.Failed, wrong.ChecksFailed)
	}
}

func TestOpenModelOffersTheRateForTheDuration(t *testing.T) {
	srv, _ := server(t)
	got := run(plan{model: "open", rate: 100, duration: 2 * time.Second, maxWorkers: 50, timeout: time.Minute}, srv.URL+"/ok")
	// Vegeta's pacer sends 200 arrivals over the 2 s; on a busy machine a few may still be in flight
	// at the end, so the count is held to a band, not to the exact figure.
	if got.Planned != 200 || got.Requests < 190 || got.Requests > 200 || got.Dropped != got.Planned-got.Requests {
		t.Fatalf("planned %d, requests %d, dropped %d", got.Planned, got.Requests, got.Dropped)
	}
}

func TestRampedUsersFollowTheStagesAndNeverExceedThem(t *testing.T) {
	var inFlight, most atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/slow", func(w http.ResponseWriter, _ *http.Request) {
		now := inFlight.Add(1)
		for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
		}
		time.Sleep(20 * time.Millisecond)
		inFlight.Add(-1)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	stages, err := parseStages("500ms:4,500ms:4,300ms:0")
	if err != nil {
		t.Fatal(err)
	}
	got := run(plan{model: "closed", stages: stages, timeout: time.Minute}, srv.URL+"/slow")
	// Four users at most, each 20 ms a request for about a second: far fewer than 200 requests.
	if most.Load() > 4 || got.Requests == 0 || got.Requests > 200 || got.Failed != 0 {
		t.Fatalf("most in flight %d, requests %d, failed %d", most.Load(), got.Requests, got.Failed)
	}
}

func TestStagesRampLinearlyAsK6Does(t *testing.T) {
	stages, err := parseStages("10s:10, 10s:10,10s:0")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at   time.Duration
		want uint64
		on   bool
	}{{0, 0, true}, {5 * time.Second, 5, true}, {15 * time.Second, 10, true}, {25 * time.Second, 5, true}, {30 * time.Second, 0, false}} {
		if got, on := users(stages, c.at); got != c.want || on != c.on {
			t.Errorf("at %s: %d users (on %v), want %d (%v)", c.at, got, on, c.want, c.on)
		}
	}
	for _, bad := range []string{"10s", "x:1", "10s:-1", "0s:5"} {
		if _, err := parseStages(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestAnswersPastTheKeptSamplesAreCountedAsOverflow(t *testing.T) {
	s := newSummary(plan{model: "closed", users: 1, duration: time.Second})
	s.limit = 3
	for i := 0; i < 5; i++ {
		s.add(&vegeta.Result{Code: 200, Latency: time.Millisecond, Timestamp: time.Now()})
	}
	if got := s.close(); got.Requests != 3 || got.Overflow != 2 {
		t.Fatalf("requests %d, overflow %d; want 3 kept and 2 past them", got.Requests, got.Overflow)
	}
}

func TestPercentilesAreExactNearestRank(t *testing.T) {
	samples := make([]float64, 0, 100)
	for i := 100; i >= 1; i-- { // 1..100 ms, given out of order
		samples = append(samples, float64(i))
	}
	got := stats(samples)
	want := Stats{Count: 100, Sum: 5050, Min: 1, Mean: 50.5, P50: 50, P90: 90, P95: 95, P99: 99, Max: 100}
	// Population standard deviation of 1..100: sqrt((100^2 - 1) / 12).
	if math.Abs(got.SD-math.Sqrt(9999.0/12)) > 1e-9 {
		t.Fatalf("sd %v", got.SD)
	}
	got.SD = 0
	if got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestPlansOutsideTheBoundsAreRefused(t *testing.T) {
	for name, p := range map[string]plan{
		"no users":         {model: "closed", iterations: 1, timeout: time.Second},
		"count and time":   {model: "closed", users: 1, iterations: 1, duration: time.Second, timeout: time.Second},
		"neither":          {model: "closed", users: 1, timeout: time.Second},
		"no rate":          {model: "open", duration: time.Second, maxWorkers: 1, timeout: time.Second},
		"unknown model":    {model: "ramp", timeout: time.Second},
		"too many":         {model: "closed", users: 10_000, iterations: 1_000, timeout: time.Second},
		"no timeout":       {model: "closed", users: 1, iterations: 1},
		"no max workers":   {model: "open", rate: 1, duration: time.Second, timeout: time.Second},
		"stages and users": {model: "closed", users: 1, stages: []stage{{time.Second, 1}}, timeout: time.Second},
		"nobody staged":    {model: "closed", stages: []stage{{time.Second, 0}}, timeout: time.Second},
	} {
		if p.validate() == nil {
			t.Errorf("%s: %+v accepted", name, p)
		}
	}
}

// With -new-connections every request opens its own connection; kept alive, the users reuse theirs.
func TestNewConnectionsOpenOnePerRequest(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok"))
	}))
	srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	p := plan{model: "closed", users: 2, iterations: 10, timeout: time.Minute}
	keptRun := run(p, srv.URL)
	kept := conns.Swap(0)
	p.newConnections = true
	freshRun := run(p, srv.URL)
	// Kept alive, the 2 users reuse theirs (a user may open another while its last one is still
	// being returned to the pool: a few, never one a request).
	if fresh := conns.Load(); kept >= 10 || fresh != 20 {
		t.Fatalf("connections: %d kept alive (want a few, under 10), %d new (want 20)", kept, fresh)
	}
	// The summary's count is the server's.
	if keptRun.Connections != uint64(kept) || freshRun.Connections != 20 {
		t.Errorf("summaries: %d and %d connections, the server saw %d and 20", keptRun.Connections, freshRun.Connections, kept)
	}
}
