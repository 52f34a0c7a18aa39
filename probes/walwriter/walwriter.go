// Package walwriter is the SQLite write workload that probes/walstall and
// probes/dirty run: N writers, each on its own connection to one WAL
// database, each committing one row per transaction (BEGIN IMMEDIATE,
// INSERT, COMMIT) as fast as it can, every commit timed.
package walwriter

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	_ "github.com/mattn/go-sqlite3"
)

// Config is one run of the workload.
type Config struct {
	Path        string // database file (created if missing)
	Writers     int
	RowBytes    int    // payload per row
	Synchronous string // OFF, NORMAL, FULL or EXTRA
	// Autocheckpoint is PRAGMA wal_autocheckpoint: 0 turns automatic
	// checkpoints off, a negative value keeps SQLite's default (1000 pages).
	Autocheckpoint int
	// KeepRows bounds the table: each commit also deletes the rows older
	// than the newest KeepRows, so a long run reuses pages instead of
	// growing the file (0: keep everything).
	KeepRows int
	// Pragmas run on every writer's connection, e.g. "journal_size_limit = 67108864".
	Pragmas []string
}

// Commit is one transaction as a writer saw it.
type Commit struct {
	TUs       int64  `json:"t_us"` // when it completed, from the run's start
	Writer    int    `json:"writer"`
	LatencyUs int64  `json:"latency_us"` // BEGIN IMMEDIATE to COMMIT returning
	Err       string `json:"err,omitempty"`
	// Backfilled counts WAL frames a checkpoint copied into the database while
	// this commit ran: its latency includes (part of) that checkpoint.
	Backfilled uint32 `json:"backfilled,omitempty"`
}

// Latency is the commit's latency as a duration.
func (c Commit) Latency() time.Duration { return time.Duration(c.LatencyUs) * time.Microsecond }

// At is the commit's completion as an offset from the run's start.
func (c Commit) At() time.Duration { return time.Duration(c.TUs) * time.Microsecond }

// DSN opens path in WAL mode with the given synchronous setting on every
// connection (go-sqlite3 applies DSN pragmas on each open).
func DSN(path, synchronous string) string {
	v := url.Values{}
	v.Set("_journal_mode", "WAL")
	v.Set("_synchronous", synchronous)
	v.Set("_busy_timeout", "10000")
	return "file:" + path + "?" + v.Encode()
}

// Run runs the workload until ctx ends, calling emit (serially) for every
// commit. start is the zero of the commits' times.
func Run(ctx context.Context, cfg Config, start time.Time, emit func(Commit)) error {
	switch strings.ToUpper(cfg.Synchronous) {
	case "OFF", "NORMAL", "FULL", "EXTRA":
	default:
		return fmt.Errorf("synchronous %q: want OFF, NORMAL, FULL or EXTRA", cfg.Synchronous)
	}
	if cfg.Writers < 1 || cfg.RowBytes < 1 {
		return errors.New("writers and row bytes must be positive")
	}
	db, err := sql.Open("sqlite3", DSN(cfg.Path, strings.ToUpper(cfg.Synchronous)))
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(cfg.Writers)
	db.SetMaxIdleConns(cfg.Writers)
	if _, err := db.Exec("CREATE TABLE IF NOT EXISTS bench_events(id INTEGER PRIMARY KEY, payload BLOB NOT NULL, created_at INTEGER NOT NULL)"); err != nil {
		return fmt.Errorf("%s: %v", cfg.Path, err)
	}
	conns := make([]*sql.Conn, cfg.Writers)
	for i := range conns {
		c, err := db.Conn(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		for _, p := range cfg.Pragmas {
			if _, err := c.ExecContext(ctx, "PRAGMA "+p); err != nil {
				return fmt.Errorf("PRAGMA %s: %v", p, err)
			}
		}
		if cfg.Autocheckpoint >= 0 {
			if _, err := c.ExecContext(ctx, fmt.Sprintf("PRAGMA wal_autocheckpoint = %d", cfg.Autocheckpoint)); err != nil {
				return err
			}
		}
		conns[i] = c
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			payload := make([]byte, cfg.RowBytes)
			for ctx.Err() == nil {
				rand.Read(payload) // incompressible, and every page really changes
				before, _ := ReadIndex(cfg.Path)
				t0 := time.Now()
				err := commit(c, payload, cfg.KeepRows)
				t1 := time.Now()
				if ctx.Err() != nil && err != nil {
					return // cut off by the deadline: not a result
				}
				after, _ := ReadIndex(cfg.Path)
				x := Commit{TUs: t1.Sub(start).Microseconds(), Writer: i + 1, LatencyUs: t1.Sub(t0).Microseconds()}
				if after.NBackfill > before.NBackfill {
					x.Backfilled = after.NBackfill - before.NBackfill
				}
				if err != nil {
					x.Err = err.Error()
				}
				mu.Lock()
				emit(x)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return nil
}

// commit runs one transaction. It does not take ctx: a commit in flight at
// the deadline finishes, so no transaction is left half done.
func commit(c *sql.Conn, payload []byte, keep int) error {
	bg := context.Background()
	if _, err := c.ExecContext(bg, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	res, err := c.ExecContext(bg, "INSERT INTO bench_events(payload, created_at) VALUES (?, ?)", payload, time.Now().UnixMilli())
	if err == nil && keep > 0 {
		id, _ := res.LastInsertId()
		_, err = c.ExecContext(bg, "DELETE FROM bench_events WHERE id <= ?", id-int64(keep))
	}
	if err != nil {
		c.ExecContext(bg, "ROLLBACK")
		return err
	}
	_, err = c.ExecContext(bg, "COMMIT")
	return err
}
