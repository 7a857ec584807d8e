// loadgen: the lab's load generator, a thin driver over vegeta's library (github.com/tsenart/vegeta,
// MIT). Vegeta paces, sends and times every request with its own attacker; this driver adds only what
// the lab's loads need and vegeta's command line does not give: a closed model of users x iterations
// that ends after exactly that many requests, exact percentiles and the standard deviation from every
// sample, a body check, and one JSON summary the harness reads (scripts/loomlab/engines).
//
// Models:
//
//	closed  -users U -iterations I   U workers send back to back, U x I requests in all (A3: 500 x 10)
//	closed  -users U -duration D     U workers send back to back for D (seeds B and E)
//	closed  -stages 6s:5,6s:10,...   users ramped linearly through the stages, as k6's ramping-vus
//	                                 (seed C)
//	open    -rate R -duration D      R arrivals a second for D, answered or not, up to -max-workers in
//	                                 flight; arrivals vegeta could not send for want of a worker are
//	                                 counted as dropped, as k6's dropped_iterations are; -arrivals
//	                                 bursts sends the same rate in bursts, -arrivals paced
//	                                 -connections N over N connections each at rate / N (arrivals.go)
//
// Every request comes from -targets, a file in vegeta's JSON target format (one per line: method,
// url, base64 body, header), taken in turn. With -bodies, each line of that file is the body of one
// request, in order and once (seed D's chunks), read as the requests go out. -results keeps vegeta's
// own results (gob): `vegeta report` reads them, and -merge reads those of several runners (each sent
// its share of the plan) as one run of the whole plan, with the same checks and fields: exact merged
// percentiles.
//
// A gRPC stream instead (seed D's transport): -grpc package.Service/Method -proto FILE -address
// HOST:PORT -bodies FILE sends each line of the bodies file as one message (proto3 JSON) on one
// stream in both directions, at most -window awaiting their acknowledgement; each acknowledgement is
// an answer (its latency from the chunk's send, its fields read as below). Plan -users 1
// -iterations <lines>.
//
// What an answer reports beyond its latency: -field PATH (repeatable) gives the figures of a numeric
// field of every successful answer's JSON body ("elapsedMs", "tableMs.recruit"); -latency-of TEXT
// (repeatable) the latency of the answers whose URL holds TEXT.
//
// Run: loadgen -targets t.jsonl -model closed -users 500 -iterations 10 -summary s.json
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	"google.golang.org/grpc/metadata"
)

// maxPlanned bounds the samples one run keeps (8 bytes each): 5 million is 40 MB. A plan of more is
// refused; a run bounded by time is stopped when it reaches it.
const maxPlanned = 5_000_000

// plan is one run's shape, from the flags.
type plan struct {
	model      string
	users      uint64
	iterations uint64
	rate       uint64
	duration   time.Duration
	maxWorkers uint64
	timeout    time.Duration
	// open: how arrivals are spread (arrivals.go: uniform, the default when empty, bursts or paced),
	// the time between bursts, and a paced run's connections
	arrivals    string
	burstPeriod time.Duration
	connections uint64
	// A new connection per request: kube-proxy spreads connections, not requests, so kept-alive
	// connections stay on the pods they first reached and a new pod would get none of the load.
	newConnections bool
	expect         [][]byte
	stages         []stage
	fields         []string
	latencyOf      []string
}

// planned is the number of requests the plan asks for.
func (p plan) planned() uint64 {
	if p.model == "closed" {
		return p.users * p.iterations // 0 for a closed run bounded by time: no count is planned
	}
	return uint64(p.duration.Seconds() * float64(p.rate))
}

func (p plan) validate() error {
	switch {
	case p.model == "closed" && len(p.stages) > 0:
		if p.users != 0 || p.iterations != 0 || p.duration != 0 || peak(p.stages) == 0 {
			return errors.New("closed: -stages go alone, and one stage at least has users")
		}
	case p.model == "closed" && (p.users == 0 || (p.iterations == 0) == (p.duration <= 0)):
		return errors.New("closed: -users, and one of -iterations and -duration, must be positive")
	case p.model == "open" && (p.rate == 0 || p.duration <= 0 || p.maxWorkers == 0):
		return errors.New("open: -rate, -duration and -max-workers must be positive")
	case p.arrivals != "" && p.arrivals != uniform && p.arrivals != bursts && p.arrivals != paced:
		return fmt.Errorf("-arrivals must be %s, %s or %s, got %q", uniform, bursts, paced, p.arrivals)
	case p.arrivals == bursts && (p.model != "open" || burstSize(p.rate, p.burstPeriod) == 0):
		return errors.New("-arrivals bursts: an open run whose -rate x -burst-period is one arrival or more")
	case p.arrivals == paced && (p.model != "open" || p.connections == 0 || p.connections > p.planned()):
		return errors.New("-arrivals paced: an open run of -connections 1 or more, each sending one request at least")
	case p.arrivals == paced && p.connections > p.maxWorkers:
		return fmt.Errorf("-arrivals paced: -connections %d over -max-workers %d", p.connections, p.maxWorkers)
	case p.arrivals == paced && p.newConnections:
		return errors.New("-arrivals paced keeps its connections alive: not with -new-connections")
	case p.arrivals != paced && p.connections != 0:
		return errors.New("-connections goes with -arrivals paced")
	case p.model != "closed" && p.model != "open":
		return fmt.Errorf("-model must be closed or open, got %q", p.model)
	case p.planned() > maxPlanned:
		return fmt.Errorf("%d requests planned: at most %d a run", p.planned(), maxPlanned)
	case p.timeout <= 0:
		return errors.New("-timeout must be positive")
	}
	return nil
}

// pacing is how the plan's requests go out: vegeta's pacer, the attack's duration (0: until the
// pacer stops it), the most requests in flight, and what must hear of each answer.
func (p plan) pacing() (vegeta.Pacer, time.Duration, uint64, func(*vegeta.Result)) {
	switch {
	case len(p.stages) > 0:
		pacer := newStagePacer(p.stages)
		return pacer, 0, peak(p.stages), func(*vegeta.Result) { pacer.done() }
	case p.model == "closed":
		// No pacing (each worker sends as soon as its last answer is in); the attack ends after
		// exactly users x iterations requests (none of them an error of the driver's own), or at
		// the end of its duration.
		return countPacer{total: p.planned()}, p.duration, p.users, nil
	case p.arrivals == paced:
		// One connection's pacer; attack caps each at its share of the plan.
		return connectionPacer{pacedPeriod(p.rate, p.connections)}, pacedStretch * p.duration, p.connections, nil
	case p.arrivals == bursts:
		pacer := burstPacer{size: burstSize(p.rate, p.burstPeriod), period: p.burstPeriod}
		return capped{pacer, p.planned()}, p.duration + lateGrace, p.maxWorkers, nil
	default:
		pacer := vegeta.ConstantPacer{Freq: int(p.rate), Per: time.Second}
		return capped{pacer, p.planned()}, p.duration + lateGrace, p.maxWorkers, nil
	}
}

func main() {
	var p plan
	var targetsPath, bodiesPath, resultsPath, samplesPath, summaryPath, stages string
	var g stream
	var method, proto string
	var merged []string
	g.metadata = metadata.MD{}
	flag.StringVar(&targetsPath, "targets", "", "targets, vegeta's JSON format, one a line (required)")
	flag.StringVar(&p.model, "model", "closed", "closed | open")
	flag.Uint64Var(&p.users, "users", 0, "closed: users (workers) sending back to back")
	flag.Uint64Var(&p.iterations, "iterations", 0, "closed: requests per user")
	flag.Uint64Var(&p.rate, "rate", 0, "open: arrivals per second")
	flag.DurationVar(&p.duration, "duration", 0, "open: how long arrivals go on; closed: how long users send (instead of -iterations)")
	flag.Uint64Var(&p.maxWorkers, "max-workers", 2000, "open: most requests in flight")
	flag.StringVar(&p.arrivals, "arrivals", uniform, "open: uniform (evenly spaced) | bursts (rate x -burst-period at once, every period) | paced (-connections N, each its next request rate/N after its last)")
	flag.Uint64Var(&p.connections, "connections", 0, "open, -arrivals paced: the kept-alive connections, each sending at -rate / N")
	flag.DurationVar(&p.burstPeriod, "burst-period", 100*time.Millisecond, "open, -arrivals bursts: the time between bursts")
	flag.DurationVar(&p.timeout, "timeout", 60*time.Second, "a request's timeout")
	flag.BoolVar(&p.newConnections, "new-connections", false, "a new connection per request (as many distinct clients), not kept alive")
	flag.StringVar(&stages, "stages", "", "closed: users ramped through DURATION:USERS,... (instead of -users)")
	flag.Func("expect", "text every answer's body must hold (a failed check otherwise); repeatable", func(v string) error {
		p.expect = append(p.expect, []byte(v))
		return nil
	})
	flag.Func("field", "a numeric field of each answer's JSON body to report (dotted path); repeatable", func(v string) error {
		p.fields = append(p.fields, v)
		return nil
	})
	flag.Func("latency-of", "report the latency of the answers whose URL holds this text apart; repeatable", func(v string) error {
		p.latencyOf = append(p.latencyOf, v)
		return nil
	})
	flag.StringVar(&bodiesPath, "bodies", "", "a body a line, each sent once in order (closed: -users 1 -iterations = its lines)")
	flag.StringVar(&method, "grpc", "", "a stream in both directions, package.Service/Method, instead of HTTP targets")
	flag.StringVar(&proto, "proto", "", "-grpc: the service's .proto (its imports beside it)")
	flag.StringVar(&g.address, "address", "", "-grpc: the service's HOST:PORT (plaintext)")
	flag.IntVar(&g.window, "window", 1, "-grpc: most messages awaiting their acknowledgement")
	flag.Func("metadata", "-grpc: KEY=VALUE sent with the stream; repeatable", func(v string) error {
		k, val, ok := strings.Cut(v, "=")
		if !ok {
			return fmt.Errorf("want KEY=VALUE, got %q", v)
		}
		g.metadata.Append(k, val)
		return nil
	})
	flag.StringVar(&resultsPath, "results", "", "vegeta's results (gob) to this file (none if empty)")
	flag.StringVar(&samplesPath, "samples", "", "every request (sent at, latency, status, error) as CSV to this file (none if empty)")
	flag.Func("merge", "a runner's -results file: the runners' results read as one run of the plan; repeatable", func(v string) error {
		merged = append(merged, v)
		return nil
	})
	flag.StringVar(&summaryPath, "summary", "", "the summary (JSON) to this file (required)")
	flag.Parse()
	if stages != "" {
		var err error
		if p.stages, err = parseStages(stages); err != nil {
			log.Fatal(err)
		}
	}
	if err := p.validate(); err != nil {
		log.Fatal(err)
	}
	if len(merged) > 0 {
		if err := mergeRun(p, merged, summaryPath); err != nil {
			log.Fatal(err)
		}
		return
	}
	if (targetsPath == "") == (method == "") || summaryPath == "" {
		log.Fatal("-summary, and one of -targets and -grpc, are required")
	}
	if method != "" {
		if err := streamRun(p, g, method, proto, bodiesPath, summaryPath); err != nil {
			log.Fatal(err)
		}
		return
	}
	targets, err := readTargets(targetsPath)
	if err != nil {
		log.Fatal(err)
	}
	tr, err := targeter(p, targets, bodiesPath)
	if err != nil {
		log.Fatal(err)
	}
	s := newSummary(p)
	sinks := []func(*vegeta.Result){s.add}
	if resultsPath != "" {
		sink, closeResults, err := resultsSink(resultsPath)
		if err != nil {
			log.Fatal(err)
		}
		defer closeResults()
		sinks = append(sinks, sink)
	}
	if samplesPath != "" {
		sink, closeSamples, err := samplesSink(samplesPath)
		if err != nil {
			log.Fatal(err)
		}
		defer func() {
			if err := closeSamples(); err != nil {
				log.Fatal(err)
			}
		}()
		sinks = append(sinks, sink)
	}
	s.connections = attack(p, tr, sinks...)
	if err := writeJSON(summaryPath, s.close()); err != nil {
		log.Fatal(err)
	}
}

// streamRun sends the bodies on one gRPC stream and writes the summary.
func streamRun(p plan, g stream, method, proto, bodiesPath, summaryPath string) error {
	if proto == "" || g.address == "" || bodiesPath == "" || g.window < 1 {
		return errors.New("-grpc needs -proto, -address, -bodies and a -window of 1 or more")
	}
	var err error
	if g.method, err = loadMethod(proto, method); err != nil {
		return err
	}
	bodies, err := openBodies(p, bodiesPath)
	if err != nil {
		return err
	}
	defer bodies.Close()
	g.timeout = p.timeout
	s := newSummary(p)
	if err := g.run(bodies, s); err != nil {
		return err
	}
	return writeJSON(summaryPath, s.close())
}
