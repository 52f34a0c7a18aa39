package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync/atomic"

	"github.com/mattn/go-sqlite3"
)

// driverName is our own registration of go-sqlite3: the stock "sqlite3"
// driver has no hook, and database/sql opens and closes physical connections
// on its own schedule, so per-connection pragmas must run in ConnectHook.
const driverName = "sqlite3_lab"

// connPragmas run on every new physical connection, before first use
// (docs/app.md). The driver already sets busy_timeout and synchronous on open;
// they are repeated here so the app does not lean on a driver default.
var connPragmas = []string{
	"PRAGMA journal_mode = WAL",
	"PRAGMA synchronous = NORMAL",
	"PRAGMA busy_timeout = 5000",
	"PRAGMA cache_size = 2000",
	"PRAGMA mmap_size = 134217728",
	"PRAGMA journal_size_limit = 67108864",
	"PRAGMA foreign_keys = ON",
}

// pragmasOnce is the lab's planted fault (SELFTEST_PRAGMAS_ONCE=1, for
// verify's own test): the pragmas run on the pool's first connection only,
// as a pool that sets them once at start-up would; the others keep the
// driver's defaults, SQLite's synchronous=FULL among them (openDB).
var pragmasOnce, pragmasDone atomic.Bool

func init() {
	sql.Register(driverName, &sqlite3.SQLiteDriver{
		ConnectHook: func(c *sqlite3.SQLiteConn) error {
			if pragmasOnce.Load() && pragmasDone.Swap(true) {
				return nil
			}
			for _, p := range connPragmas {
				if _, err := c.Exec(p, nil); err != nil {
					return fmt.Errorf("%s: %w", p, err)
				}
			}
			return nil
		},
	})
}

// openDB opens the lab's seeded database. mode=rw: the app never creates the
// file or its tables, so a wrong path fails here instead of serving an empty
// database. _txlock=immediate: every BeginTx is BEGIN IMMEDIATE, so writers
// queue on busy_timeout instead of failing on a lock upgrade.
func openDB(ctx context.Context, path string, pool int) (*sql.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("DATABASE_PATH %s: %v", path, err)
	}
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?mode=rw&_txlock=immediate"
	if pragmasOnce.Load() {
		dsn += "&_sync=FULL" // what a connection no pragma reached runs at
	}
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		return nil, err
	}
	// Equal limits: with fewer idle than open slots, database/sql closes
	// connections after each burst and reopens them (re-running the hook).
	db.SetMaxOpenConns(pool)
	db.SetMaxIdleConns(pool)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "+labTablesIn).Scan(&n); err != nil {
		db.Close()
		return nil, fmt.Errorf("DATABASE_PATH %s: %v", path, err)
	}
	if n != len(labTables) {
		db.Close()
		return nil, fmt.Errorf("DATABASE_PATH %s: the lab's tables (%s) are not all there (seed it first)", path, strings.Join(labTables, ", "))
	}
	return db, nil
}

// labTables are the tables the app reads and writes (docs/app.md, "Schema and
// seed"); the lab creates them, the app only checks they are there.
var labTables = []string{"items", "bench_events", "users", "sessions", "orders", "jobs", "audit"}

// labTablesIn is labTables as an SQL list: ('items', ...).
var labTablesIn = "('" + strings.Join(labTables, "', '") + "')"

// pragmas is the answer of /bench/pragmas, keys in docs/app.md's order, then
// the connection that served it.
type pragmas struct {
	JournalMode      string `json:"journal_mode"`
	Synchronous      int64  `json:"synchronous"`
	BusyTimeout      int64  `json:"busy_timeout"`
	CacheSize        int64  `json:"cache_size"`
	MmapSize         int64  `json:"mmap_size"`
	JournalSizeLimit int64  `json:"journal_size_limit"`
	ForeignKeys      int64  `json:"foreign_keys"`
	Connection       string `json:"connection"`
}

// readPragmas reads the values on one pinned connection, and names it by
// the address of the driver's connection object, which go-sqlite3 allocates
// when database/sql opens the connection: one per SQLite handle, whatever
// the hook did.
func readPragmas(ctx context.Context, c *sql.Conn) (pragmas, error) {
	var p pragmas
	if err := c.Raw(func(dc any) error {
		p.Connection = fmt.Sprintf("%p", dc)
		return nil
	}); err != nil {
		return p, err
	}
	if err := c.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&p.JournalMode); err != nil {
		return p, err
	}
	ints := []struct {
		name string
		dst  *int64
	}{
		{"synchronous", &p.Synchronous},
		{"busy_timeout", &p.BusyTimeout},
		{"cache_size", &p.CacheSize},
		{"mmap_size", &p.MmapSize},
		{"journal_size_limit", &p.JournalSizeLimit},
		{"foreign_keys", &p.ForeignKeys},
	}
	for _, q := range ints {
		if err := c.QueryRowContext(ctx, "PRAGMA "+q.name).Scan(q.dst); err != nil {
			return p, fmt.Errorf("PRAGMA %s: %w", q.name, err)
		}
	}
	return p, nil
}
