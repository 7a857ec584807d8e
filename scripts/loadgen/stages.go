package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// stage is one step of a ramped closed model, as k6's ramping-vus executor takes it: the number
// of users moves linearly from the previous stage's target (0 before the first) to `target` over
// `duration`.
type stage struct {
	duration time.Duration
	target   uint64
}

// parseStages reads "30s:5,30s:10,...", k6/product.js's STAGES.
func parseStages(text string) ([]stage, error) {
	var out []stage
	for _, part := range strings.Split(text, ",") {
		d, t, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok {
			return nil, fmt.Errorf("stage %q: want DURATION:USERS", part)
		}
		duration, err := time.ParseDuration(d)
		if err != nil || duration <= 0 {
			return nil, fmt.Errorf("stage %q: bad duration", part)
		}
		target, err := strconv.ParseUint(t, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("stage %q: bad number of users", part)
		}
		out = append(out, stage{duration, target})
	}
	return out, nil
}

// users is the number of users the stages hold at `elapsed`, and false once they are over.
func users(stages []stage, elapsed time.Duration) (uint64, bool) {
	var from uint64
	for _, s := range stages {
		if elapsed < s.duration {
			frac := float64(elapsed) / float64(s.duration)
			return uint64(math.Round(float64(from) + (float64(s.target)-float64(from))*frac)), true
		}
		elapsed -= s.duration
		from = s.target
	}
	return 0, false
}

func peak(stages []stage) uint64 {
	var most uint64
	for _, s := range stages {
		most = max(most, s.target)
	}
	return most
}

// stagePacer paces a ramped closed model: it lets a request go only while fewer are in flight than
// the stages' users at that moment (each user sends as soon as its last answer is in), waiting for an
// answer or for the ramp to move. Vegeta's attack loop calls Pace before each request; the results'
// reader reports each answer with done().
type stagePacer struct {
	stages   []stage
	began    time.Time
	answered atomic.Uint64
	wake     chan struct{}
}

func newStagePacer(stages []stage) *stagePacer {
	return &stagePacer{stages: stages, wake: make(chan struct{}, 1)}
}

func (p *stagePacer) done() {
	p.answered.Add(1)
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *stagePacer) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	if p.began.IsZero() {
		p.began = time.Now().Add(-elapsed)
	}
	for {
		want, on := users(p.stages, time.Since(p.began))
		if !on {
			return 0, true
		}
		if hits-p.answered.Load() < want {
			return 0, false
		}
		// The ramp moves a user at most every few ms at the lab's sizes: look again then.
		select {
		case <-p.wake:
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Rate is that of a closed model: no arrival waits for the clock.
func (p *stagePacer) Rate(time.Duration) float64 { return math.Inf(1) }
