package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"slices"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// summary gathers a run's figures as results arrive: every latency (for exact percentiles, so that
// runners' samples merge without estimation), failures as k6 counts them (a transport error or a
// status outside 200-399), failed body checks, and vegeta's own metrics beside them.
type summary struct {
	plan      plan
	latencies []float64 // ms
	answers   *answers
	failed    uint64
	checks    uint64
	overflow  uint64
	limit     int // the most samples kept (maxPlanned)
	first     time.Time
	last      time.Time
	codes     map[string]int // a gRPC stream's status codes (vegeta counts the HTTP ones)
	errors    []string       // and its errors
	vegeta    vegeta.Metrics
	// the connections the run opened (attack's count; none kept for merged runners' results)
	connections uint64
}

// Summary is what the driver writes: milliseconds and seconds, as the lab's reports print them.
type Summary struct {
	Engine        string           `json:"engine"`
	Model         string           `json:"model"`
	Planned       uint64           `json:"planned"`
	Requests      uint64           `json:"requests"`
	Dropped       uint64           `json:"dropped"`
	Failed        uint64           `json:"failed"`
	ErrorRate     float64          `json:"error_rate"`
	ChecksFailed  uint64           `json:"checks_failed"`
	Overflow      uint64           `json:"overflow"`
	Connections   uint64           `json:"connections,omitempty"`
	DurationS     float64          `json:"duration_s"`
	SendS         float64          `json:"send_s"`
	LatencyMs     Stats            `json:"latency_ms"`
	Fields        map[string]Stats `json:"fields,omitempty"`
	LatencyOf     map[string]Stats `json:"latency_of,omitempty"`
	StatusCodes   map[string]int   `json:"status_codes"`
	Errors        []string         `json:"errors"`
	VegetaMetrics *vegeta.Metrics  `json:"vegeta"`
}

// Stats holds exact order statistics (nearest rank) over every sample: latencies in ms, or the
// values of an answer's field in its own unit.
type Stats struct {
	Count int     `json:"count"`
	Sum   float64 `json:"sum"`
	Min   float64 `json:"min"`
	Mean  float64 `json:"mean"`
	SD    float64 `json:"sd"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

func newSummary(p plan) *summary {
	return &summary{
		plan: p, latencies: make([]float64, 0, min(p.planned(), maxPlanned)), limit: maxPlanned,
		answers: newAnswers(p.fields, p.latencyOf),
	}
}

func (s *summary) add(r *vegeta.Result) {
	s.vegeta.Add(r)
	// Failures as k6 counts them: a transport error or a status outside 200-399.
	s.record(r.Timestamp, r.Latency, r.Error != "" || r.Code < 200 || r.Code >= 400, r.URL, r.Body)
}

// record books one answer (or one failure): sent at `at`, answered after `latency`.
func (s *summary) record(at time.Time, latency time.Duration, failed bool, url string, body []byte) {
	if len(s.latencies) == s.limit {
		s.overflow++ // answers still in flight when the run was stopped at its bound
		return
	}
	s.latencies = append(s.latencies, float64(latency)/1e6)
	if s.first.IsZero() || at.Before(s.first) {
		s.first = at
	}
	if end := at.Add(latency); end.After(s.last) {
		s.last = end
	}
	if failed {
		s.failed++
	} else if !holdsAll(body, s.plan.expect) {
		s.checks++
	} else {
		s.answers.add(url, latency, body)
	}
}

func holdsAll(body []byte, texts [][]byte) bool {
	for _, text := range texts {
		if !bytes.Contains(body, text) {
			return false
		}
	}
	return true
}

func (s *summary) close() Summary {
	s.vegeta.Close()
	n := uint64(len(s.latencies))
	out := Summary{
		Engine:        "loadgen on vegeta v12.13.0",
		Model:         s.plan.model,
		Planned:       s.plan.planned(),
		Requests:      n,
		Failed:        s.failed,
		ChecksFailed:  s.checks,
		Overflow:      s.overflow,
		Connections:   s.connections,
		StatusCodes:   s.vegeta.StatusCodes,
		Errors:        append(s.vegeta.Errors, s.errors...),
		VegetaMetrics: &s.vegeta,
	}
	for code, count := range s.codes {
		if out.StatusCodes == nil {
			out.StatusCodes = map[string]int{}
		}
		out.StatusCodes[code] += count
	}
	if out.Planned > n {
		out.Dropped = out.Planned - n
	}
	if n == 0 {
		return out
	}
	out.ErrorRate = float64(s.failed) / float64(n)
	out.DurationS = s.last.Sub(s.first).Seconds()
	out.SendS = s.vegeta.Duration.Seconds() // 0 for a gRPC stream, which vegeta does not send
	out.LatencyMs = stats(s.latencies)
	out.Fields, out.LatencyOf = s.answers.close()
	return out
}

// stats sorts the samples and reads them: the p-th percentile is the smallest sample with at
// least p % of the samples at or below it. No sample: every figure 0, Count 0.
func stats(samples []float64) Stats {
	if len(samples) == 0 {
		return Stats{}
	}
	slices.Sort(samples)
	rank := func(p float64) float64 {
		i := int(math.Ceil(p/100*float64(len(samples)))) - 1
		return samples[max(i, 0)]
	}
	var sum, sq float64
	for _, v := range samples {
		sum += v
		sq += v * v
	}
	n := float64(len(samples))
	mean := sum / n
	return Stats{
		Count: len(samples), Sum: sum, Min: samples[0], Mean: mean, SD: math.Sqrt(max(0, sq/n-mean*mean)),
		P50: rank(50), P90: rank(90), P95: rank(95), P99: rank(99), Max: samples[len(samples)-1],
	}
}

// writeJSON writes the summary (indented) to its file.
func writeJSON(path string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
