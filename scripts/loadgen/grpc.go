package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bufbuild/protocompile"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// stream is one bidirectional gRPC stream over grpc-go, as seed D sends its chunks: each line of the
// bodies file is one request message (proto3 JSON), sent in order with at most `window` awaiting
// their acknowledgement; each answer acknowledges the oldest (the service answers in order). A
// chunk's latency is from its send to its acknowledgement; the acknowledgement's fields are read as
// an HTTP answer's body is (-field). The service's .proto is compiled at start, as k6 loads it.
type stream struct {
	address  string
	method   protoreflect.MethodDescriptor
	metadata metadata.MD
	window   int
	timeout  time.Duration // the most one acknowledgement may take
}

// loadMethod compiles the .proto at `path` (its imports beside it, and the well-known types) and
// finds `name`, "package.Service/Method", a stream in both directions.
func loadMethod(path, name string) (protoreflect.MethodDescriptor, error) {
	service, method, ok := strings.Cut(name, "/")
	if !ok {
		return nil, fmt.Errorf("-grpc %q: want package.Service/Method", name)
	}
	compiler := protocompile.Compiler{Resolver: protocompile.WithStandardImports(
		&protocompile.SourceResolver{ImportPaths: []string{filepath.Dir(path)}})}
	files, err := compiler.Compile(context.Background(), filepath.Base(path))
	if err != nil {
		return nil, err
	}
	d := files[0].Services().ByName(protoreflect.FullName(service).Name())
	if d == nil || d.FullName() != protoreflect.FullName(service) {
		return nil, fmt.Errorf("%s: no service %s", path, service)
	}
	m := d.Methods().ByName(protoreflect.Name(method))
	if m == nil || !m.IsStreamingClient() || !m.IsStreamingServer() {
		return nil, fmt.Errorf("%s: %s has no method %s streaming both ways", path, service, method)
	}
	return m, nil
}

// run sends every line of `bodies` on one stream and books each acknowledgement (or each chunk
// lost to the stream's end) in the summary; an error is the driver's own (a body that is no
// message), which ends the run.
func (g stream) run(bodies io.Reader, s *summary) error {
	conn, err := grpc.NewClient(g.address, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithCancel(metadata.NewOutgoingContext(context.Background(), g.metadata))
	defer cancel()
	full := fmt.Sprintf("/%s/%s", g.method.Parent().FullName(), g.method.Name())
	str, err := conn.NewStream(ctx, &grpc.StreamDesc{ClientStreams: true, ServerStreams: true}, full)
	if err != nil {
		s.lost(time.Now(), err)
		return nil
	}
	// A chunk waiting longer than the timeout for its acknowledgement ends the stream.
	watchdog := time.AfterFunc(g.timeout, cancel)
	defer watchdog.Stop()

	var mu sync.Mutex
	var sent []time.Time // the send times of the chunks awaiting acknowledgement, oldest first
	slots := make(chan struct{}, g.window)
	type outcome struct {
		unsent int
		err    error
	}
	done := make(chan outcome, 1)
	go func() {
		unsent, err := g.send(str, bodies, slots, func(at time.Time) {
			mu.Lock()
			sent = append(sent, at)
			mu.Unlock()
		})
		if err != nil {
			cancel()
		}
		done <- outcome{unsent, err}
	}()
	for {
		ack := dynamicpb.NewMessage(g.method.Output())
		err := str.RecvMsg(ack)
		now := time.Now()
		mu.Lock()
		if err != nil || len(sent) == 0 {
			// The stream's end: every chunk still awaiting its acknowledgement is lost.
			awaiting := sent
			sent = nil
			mu.Unlock()
			if errors.Is(err, io.EOF) && len(awaiting) == 0 {
				break
			}
			if err == nil || errors.Is(err, io.EOF) {
				err = errors.New("the stream ended with chunks unacknowledged")
			}
			for _, at := range awaiting {
				s.lost(at, err)
			}
			break
		}
		at := sent[0]
		sent = sent[1:]
		mu.Unlock()
		watchdog.Reset(g.timeout)
		body, _ := protojson.MarshalOptions{EmitUnpopulated: true}.Marshal(ack)
		s.record(at, now.Sub(at), false, full, body)
		s.code("OK")
		<-slots
	}
	cancel() // the sender, if still waiting for a slot, stops
	out := <-done
	for range out.unsent {
		s.lost(time.Now(), errors.New("not sent: the stream ended first"))
	}
	return out.err
}

// send writes each line as a message once a slot of the window is free, then closes its side. It
// gives the number of lines it did not send because the stream ended first, or its own error.
func (g stream) send(str grpc.ClientStream, bodies io.Reader, slots chan struct{}, sentAt func(time.Time)) (int, error) {
	lines := bufio.NewReaderSize(bodies, 1<<20)
	unsent, ended := 0, false
	for {
		line, err := lines.ReadBytes('\n')
		if len(line) == 0 && errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return unsent, err
		}
		if ended {
			unsent++
			continue
		}
		msg := dynamicpb.NewMessage(g.method.Input())
		if err := protojson.Unmarshal(line, msg); err != nil {
			return unsent, fmt.Errorf("a body is no %s: %w", g.method.Input().FullName(), err)
		}
		select {
		case slots <- struct{}{}:
		case <-str.Context().Done():
			ended, unsent = true, unsent+1
			continue
		}
		sentAt(time.Now())
		// A failed send ends the stream: the receiver books this chunk as lost, the rest are unsent.
		ended = str.SendMsg(msg) != nil
	}
	if !ended {
		_ = str.CloseSend()
	}
	return unsent, nil
}

// lost books a chunk that got no acknowledgement.
func (s *summary) lost(at time.Time, err error) {
	s.record(at, time.Since(at), true, "", nil)
	if st, ok := status.FromError(err); ok {
		s.code(st.Code().String())
	}
	if !slices.Contains(s.errors, err.Error()) {
		s.errors = append(s.errors, err.Error())
	}
}

func (s *summary) code(name string) {
	if s.codes == nil {
		s.codes = map[string]int{}
	}
	s.codes[name]++
}

// openBodies opens a file of bodies for a stream, with its line count checked against the plan.
func openBodies(p plan, path string) (*os.File, error) {
	lines, err := countLines(path)
	if err != nil {
		return nil, err
	}
	if p.planned() != lines {
		return nil, fmt.Errorf("-bodies: %s holds %d bodies, the plan sends %d requests", path, lines, p.planned())
	}
	return os.Open(path)
}
