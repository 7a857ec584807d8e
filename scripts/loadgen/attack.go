package main

import (
	"sync"
	"sync/atomic"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// attack runs the plan over the targeter's requests and hands every result to each sink in turn: one
// attacker, or for a paced run one a connection, each its single worker on its single connection. It
// returns the connections the run opened.
func attack(p plan, tr vegeta.Targeter, sinks ...func(*vegeta.Result)) uint64 {
	pacer, du, workers, heard := p.pacing()
	if heard != nil {
		sinks = append(sinks, heard)
	}
	// Enough of each body to find the checks' text in, or to read its fields (the rest is read and
	// dropped), or none.
	body := int64(0)
	if len(p.fields) > 0 {
		body = 64 << 10
	} else if len(p.expect) > 0 {
		body = 4096
	}
	var dials atomic.Uint64
	opts := []func(*vegeta.Attacker){
		vegeta.Timeout(p.timeout), vegeta.MaxBody(body), vegeta.MaxWorkers(workers), vegeta.Connections(int(workers)),
	}
	if p.model == "closed" {
		// Every user's worker from the start; an open run adds workers as its arrivals need them.
		opts = append(opts, vegeta.Workers(workers))
	}
	// Each attacker its own client (the options after it shape that client's transport), its dials
	// counted with every other's.
	newAttacker := func(more ...func(*vegeta.Attacker)) *vegeta.Attacker {
		all := append([]func(*vegeta.Attacker){vegeta.Client(countingClient(p.newConnections, &dials))}, opts...)
		return vegeta.NewAttacker(append(all, more...)...)
	}
	type lane struct {
		attacker *vegeta.Attacker
		pacer    vegeta.Pacer
	}
	var lanes []lane
	if p.arrivals == paced {
		for _, share := range shares(p.planned(), p.connections) {
			one := newAttacker(vegeta.Workers(1), vegeta.MaxWorkers(1), vegeta.Connections(1), vegeta.MaxConnections(1))
			lanes = append(lanes, lane{one, capped{pacer, share}})
		}
	} else {
		lanes = append(lanes, lane{newAttacker(), pacer})
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	answered := 0
	for _, l := range lanes {
		results := l.attacker.Attack(tr, l.pacer, du, "loadgen")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for res := range results {
				mu.Lock()
				for _, sink := range sinks {
					sink(res)
				}
				// A run bounded by time has no count planned: it ends when it has as many answers
				// as a run keeps (the summary counts those past it as overflow, a failed run).
				if answered++; answered == maxPlanned {
					for _, other := range lanes {
						other.attacker.Stop()
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return dials.Load()
}
