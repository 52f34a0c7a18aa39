package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// The app on the lab's Postgres (DATABASE_URL set, docs/postgres.md):
// database/sql with pgx's driver, so the handlers are the SQLite ones, and
// database/sql's pool of DB_POOL_SIZE connections. What a Go user of
// database/sql picks for Postgres; pgx's own pool (pgxpool) would skip
// database/sql's layer, but then every handler is written twice.
const (
	pgInsert = "INSERT INTO bench_events (payload, created_at) VALUES ($1, $2) RETURNING id"
	// The session's settings that matter (docs/app.md), read on the connection
	// that serves the request, which pg_backend_pid names: the server
	// process of that one connection.
	pgSettings = "SELECT current_setting('transaction_isolation'), current_setting('synchronous_commit'), " +
		"current_setting('statement_timeout'), current_setting('client_encoding'), pg_backend_pid()"
)

// openPostgres opens the pool. statement_timeout goes in every
// connection's startup message (pgx's RuntimeParams), so no connection the
// pool opens runs without it: a request waits at most 5 s for the server,
// as busy_timeout bounds a SQLite wait.
func openPostgres(ctx context.Context, url string, pool int) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %v", err)
	}
	cfg.RuntimeParams["statement_timeout"] = "5000"
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(pool)
	db.SetMaxIdleConns(pool)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_name IN "+labTablesIn).Scan(&n); err != nil {
		db.Close()
		return nil, fmt.Errorf("DATABASE_URL: %v", err)
	}
	if n != len(labTables) {
		db.Close()
		return nil, fmt.Errorf("DATABASE_URL: the lab's tables (%s) are not all there (seed it first)", strings.Join(labTables, ", "))
	}
	return db, nil
}

// pgSession is /bench/pragmas' answer on Postgres, keys in docs/app.md's order.
type pgSession struct {
	TransactionIsolation string `json:"transaction_isolation"`
	SynchronousCommit    string `json:"synchronous_commit"`
	StatementTimeout     string `json:"statement_timeout"`
	ClientEncoding       string `json:"client_encoding"`
	Connection           string `json:"connection"`
}

func readPgSession(ctx context.Context, c *sql.Conn) (pgSession, error) {
	var s pgSession
	var pid int64
	err := c.QueryRowContext(ctx, pgSettings).Scan(&s.TransactionIsolation, &s.SynchronousCommit, &s.StatementTimeout, &s.ClientEncoding, &pid)
	s.Connection = fmt.Sprintf("backend pid %d", pid)
	return s, err
}
