package main

// The sleep's socket-waiting twin: the service's pool-bound slow query (seed B, GET
// /api/{mode}/db/slow?ms=N) on Go, a goroutine per request waiting on its connection's socket for
// PostgreSQL's answer to pg_sleep, where the timer sleep waits on the runtime's timer. With the
// service's bounds: a pool of its size, a connection waited for within its budget (503 after it),
// its statement timeout on every session.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// dbMaxMs is the longest query a request may ask for, the service's loomlab.db.max-ms default.
const dbMaxMs = 10000

// dbSettings are the database's: where (a libpq URL; user and password from PGUSER and
// PGPASSWORD, as libpq reads them), the pool's size, how long a request waits for a connection.
type dbSettings struct {
	url              string
	pool             int
	wait             time.Duration
	statementTimeout time.Duration
}

// openPool connects lazily (the first request opens the first connection, as Agroal's min-size 0).
func openPool(settings dbSettings) (*pgxpool.Pool, error) {
	config, err := pgxpool.ParseConfig(settings.url)
	if err != nil {
		return nil, fmt.Errorf("-db %q: %w", settings.url, err)
	}
	if settings.pool < 1 {
		return nil, fmt.Errorf("-db-pool must be at least 1, got %d", settings.pool)
	}
	config.MaxConns = int32(settings.pool)
	config.MinConns = 0
	config.ConnConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(settings.statementTimeout.Milliseconds(), 10)
	return pgxpool.NewWithConfig(context.Background(), config)
}

// slowQuery holds one pooled connection ms milliseconds; a bad ms is a 400, no connection within
// the wait a 503 (as the service's bulkhead), a failed query a 503.
func slowQuery(pool *pgxpool.Pool, wait time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ms, ok := msParam(w, r, 200, dbMaxMs)
		if !ok {
			return
		}
		started := time.Now()
		waitCtx, cancel := context.WithTimeout(r.Context(), wait)
		conn, err := pool.Acquire(waitCtx)
		cancel()
		if err != nil {
			unavailable(w, fmt.Sprintf("no connection within %s: %v", wait, err))
			return
		}
		defer conn.Release()
		acquired := time.Since(started)
		if _, err := conn.Exec(r.Context(), "SELECT pg_sleep($1::bigint / 1000.0)", ms); err != nil {
			if errors.Is(err, context.Canceled) {
				return
			}
			unavailable(w, "the query failed: "+err.Error())
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"mode": "reference", "thread": "goroutine", "virtual": false, "sleptMs": ms,
			"acquireMs": acquired.Milliseconds(),
		})
	}
}
