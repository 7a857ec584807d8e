package main

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// countingClient is the client vegeta builds for itself (NewAttacker in its attack.go: the same
// dialer and transport settings), with its dials counted: the connections a run opened, which its
// arrival pattern decides (one a request with -new-connections, -connections with -arrivals paced,
// as many as the requests in flight at once otherwise). Vegeta's options that come after it (timeout,
// idle and most connections) set this client's transport as they would their own.
func countingClient(newConnections bool, dials *atomic.Uint64) *http.Client {
	dialer := &net.Dialer{KeepAlive: 30 * time.Second}
	if newConnections {
		dialer.KeepAlive = 0
	}
	return &http.Client{
		Timeout: vegeta.DefaultTimeout,
		Transport: &http.Transport{
			Proxy: http.ProxyFromEnvironment,
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				dials.Add(1)
				return dialer.DialContext(ctx, network, addr)
			},
			TLSClientConfig:     vegeta.DefaultTLSConfig,
			DisableKeepAlives:   newConnections,
			MaxIdleConnsPerHost: vegeta.DefaultConnections,
			MaxConnsPerHost:     vegeta.DefaultMaxConnections,
		},
	}
}
