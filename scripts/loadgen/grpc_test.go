package main

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// The service's own contract, as the lab sends seed D's chunks on it.
const ingestProto = "../../src/main/proto/ingest.proto"

// ingestServer acknowledges each RecruitChunk with its records and a parent table's time; after
// `failAfter` chunks (0: never) it ends the stream with UNAVAILABLE. It keeps the mode it was sent.
func ingestServer(t *testing.T, m protoreflect.MethodDescriptor, failAfter int) (string, *string) {
	mode := new(string)
	srv := grpc.NewServer(grpc.UnknownServiceHandler(func(_ any, str grpc.ServerStream) error {
		md, _ := metadata.FromIncomingContext(str.Context())
		*mode = strings.Join(md.Get("loomlab-mode"), ",")
		for n := 1; ; n++ {
			chunk := dynamicpb.NewMessage(m.Input())
			if err := str.RecvMsg(chunk); err != nil {
				return nil
			}
			if n == failAfter {
				return status.Error(codes.Unavailable, "the database is gone")
			}
			records := chunk.Get(m.Input().Fields().ByName("recruits")).List().Len()
			ack := dynamicpb.NewMessage(m.Output())
			if err := protojson.Unmarshal([]byte(`{"sequence": "`+chunk.Get(m.Input().Fields().ByName("sequence")).String()+
				`", "records": `+strconv.Itoa(records)+`, "tables": [{"role": "SKILL", "ms": "9"}, {"role": "PARENT", "ms": "3"}]}`), ack); err != nil {
				t.Error(err)
			}
			if err := str.SendMsg(ack); err != nil {
				return err
			}
		}
	}))
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return lis.Addr().String(), mode
}

func bodiesFile(t *testing.T, lines ...string) *os.File {
	path := filepath.Join(t.TempDir(), "chunks.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

var chunks = []string{
	`{"sequence": 0, "recruits": [{"id": 1, "company": "A", "title": "T", "postedAt": "2026-01-02T00:00:00.000Z", "embedding": [0.5]}]}`,
	`{"sequence": 1, "recruits": [{"id": 2, "company": "A", "title": "T"}, {"id": 3, "company": "B", "title": "T"}]}`,
	`{"sequence": 2, "recruits": [{"id": 4, "company": "A", "title": "T"}]}`,
}

func TestAStreamSendsEveryChunkAndReadsEachAcknowledgement(t *testing.T) {
	m, err := loadMethod(ingestProto, "loomlab.ingest.v1.Ingest/WriteRecruits")
	if err != nil {
		t.Fatal(err)
	}
	address, mode := ingestServer(t, m, 0)
	p := plan{model: "closed", users: 1, iterations: 3, timeout: time.Minute,
		fields: []string{"records", "tables.role=PARENT.ms"}}
	s := newSummary(p)
	g := stream{address: address, method: m, metadata: metadata.Pairs("loomlab-mode", "virtual"), window: 1, timeout: time.Minute}
	if err := g.run(bodiesFile(t, chunks...), s); err != nil {
		t.Fatal(err)
	}
	got := s.close()
	if got.Requests != 3 || got.Failed != 0 || got.StatusCodes["OK"] != 3 || *mode != "virtual" {
		t.Fatalf("requests %d, failed %d, codes %v, mode %q", got.Requests, got.Failed, got.StatusCodes, *mode)
	}
	if got.Fields["records"].Sum != 4 || got.Fields["tables.role=PARENT.ms"].Max != 3 {
		t.Fatalf("fields %+v", got.Fields)
	}
}

func TestChunksPastAStreamsFailureAreLost(t *testing.T) {
	m, err := loadMethod(ingestProto, "loomlab.ingest.v1.Ingest/WriteRecruits")
	if err != nil {
		t.Fatal(err)
	}
	address, _ := ingestServer(t, m, 2)
	p := plan{model: "closed", users: 1, iterations: 3, timeout: time.Minute}
	s := newSummary(p)
	g := stream{address: address, method: m, metadata: metadata.MD{}, window: 1, timeout: time.Minute}
	if err := g.run(bodiesFile(t, chunks...), s); err != nil {
		t.Fatal(err)
	}
	got := s.close()
	// One acknowledged, the second refused in flight, the third never sent: all three booked.
	if got.Requests != 3 || got.Failed != 2 || got.StatusCodes["OK"] != 1 || got.StatusCodes["Unavailable"] != 1 {
		t.Fatalf("requests %d, failed %d, codes %v, errors %v", got.Requests, got.Failed, got.StatusCodes, got.Errors)
	}
}

func TestABodyThatIsNoMessageEndsTheRun(t *testing.T) {
	m, err := loadMethod(ingestProto, "loomlab.ingest.v1.Ingest/WriteRecruits")
	if err != nil {
		t.Fatal(err)
	}
	address, _ := ingestServer(t, m, 0)
	s := newSummary(plan{model: "closed", users: 1, iterations: 1, timeout: time.Minute})
	g := stream{address: address, method: m, metadata: metadata.MD{}, window: 1, timeout: time.Minute}
	if err := g.run(bodiesFile(t, `{"recruits": "nope"}`), s); err == nil {
		t.Fatal("a body that is no RecruitChunk must end the run with an error")
	}
	for _, bad := range []string{"loomlab.ingest.v1.Ingest", "loomlab.ingest.v1.Nope/WriteRecruits", "loomlab.ingest.v1.Ingest/Nope"} {
		if _, err := loadMethod(ingestProto, bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
