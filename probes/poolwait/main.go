// poolwait answers: how long do requests wait for a pooled database
// connection, against how long they hold it? W workers send requests through
// database/sql with a pool of P connections to SQLite; each request takes a
// connection (waiting at most the acquire timeout T), writes one row, and
// gives it back. --stall EVERY:FOR makes another connection hold the write
// lock now and then, so a short T turns the stall into errors and a long T
// into latency. --postgres URL does the same against a Postgres server (a
// table of its own, dropped after; the stall is a table lock held from
// outside the pool).
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"stacklab/formats/cli"
	"stacklab/probes/walwriter"
)

const help = `poolwait: how long do requests wait for a pooled connection, against how long they hold it?

Usage: poolwait [--workers 16] [--pool 4] [--timeout 500ms,5s] [--duration 10s]
                [--stall EVERY:FOR] [--think 0] [--dir DIR] [--out FILE]
                [--postgres URL]

--workers goroutines each send requests back to back (after --think) through
one database/sql pool of --pool connections (SetMaxOpenConns and
SetMaxIdleConns) to a fresh SQLite WAL database. A request takes a connection
with db.Conn under the acquire timeout, then writes one row (BEGIN IMMEDIATE,
INSERT, COMMIT; busy_timeout 5000) and gives the connection back. Per
request: wait (to get a connection), hold (while it had one), outcome (ok,
acquire timeout, database error).

--stall EVERY:FOR: every EVERY, a connection outside the pool takes the write
lock and holds it for FOR, as a long transaction or a checkpoint would.
--timeout takes a list: the run is repeated for each acquire timeout.

--postgres URL: the pool is of connections to that Postgres server (pgx's
database/sql driver) instead of a SQLite file; each run writes to a table
of its own (BEGIN, INSERT, COMMIT), dropped after, and --stall holds a lock
on that table (LOCK TABLE ... IN EXCLUSIVE MODE) from outside the pool.
scripts/pg-poolwait starts the lab's Postgres role and runs it there.

Examples:
  poolwait --stall 2s:1s                          # 500ms vs 5s acquire timeout
  poolwait --workers 64 --pool 8 --timeout 1s --duration 20s --out requests.jsonl
`

type options struct {
	workers, pool int
	timeouts      []time.Duration
	duration      time.Duration
	stallEvery    time.Duration
	stallFor      time.Duration
	think         time.Duration
	dir           string
	postgres      string // a server's URL; "" for SQLite
}

func main() {
	fs := flag.NewFlagSet("poolwait", flag.ContinueOnError)
	var o options
	fs.IntVar(&o.workers, "workers", 16, "concurrent requests (like a server's worker count)")
	fs.IntVar(&o.pool, "pool", 4, "connections in the pool")
	timeouts := fs.String("timeout", "500ms,5s", "acquire timeout, or a comma list to compare")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "how long each run lasts")
	stall := fs.String("stall", "", "EVERY:FOR, e.g. 2s:1s: hold the write lock FOR, every EVERY")
	fs.DurationVar(&o.think, "think", 0, "pause between one worker's requests")
	fs.StringVar(&o.dir, "dir", os.TempDir(), "directory for the database")
	out := fs.String("out", "", "write every request as JSON lines here")
	fs.StringVar(&o.postgres, "postgres", "", "a Postgres server's URL: pool connections to it instead of to SQLite")
	cli.Parse(fs, os.Args[1:], help)
	var err error
	if o.timeouts, err = parseTimeouts(*timeouts); err != nil {
		cli.Usage("poolwait", "--timeout %q: %v", *timeouts, err)
	}
	if o.stallEvery, o.stallFor, err = parseStall(*stall); err != nil {
		cli.Usage("poolwait", "--stall %q: %v", *stall, err)
	}
	switch {
	case o.workers < 1 || o.workers > 10000:
		cli.Usage("poolwait", "--workers %d: want 1 to 10000", o.workers)
	case o.pool < 1 || o.pool > 1000:
		cli.Usage("poolwait", "--pool %d: want 1 to 1000", o.pool)
	case o.duration <= 0:
		cli.Usage("poolwait", "--duration %v: must be positive", o.duration)
	case o.think < 0:
		cli.Usage("poolwait", "--think %v: must not be negative", o.think)
	}
	if o.postgres != "" && !strings.HasPrefix(o.postgres, "postgres://") && !strings.HasPrefix(o.postgres, "postgresql://") {
		cli.Usage("poolwait", "--postgres %q: want a postgres:// URL", o.postgres)
	}
	if o.postgres == "" {
		cli.RequireDir("poolwait", o.dir)
	}
	enc, outFile := cli.JSONLines("poolwait", *out)
	defer outFile.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var runs []*Run
	for i, t := range o.timeouts {
		fmt.Fprintf(os.Stderr, "poolwait: run %d of %d, acquire timeout %v, %v…\n", i+1, len(o.timeouts), t, o.duration)
		r, err := runOnce(ctx, o, t, i+1)
		if err != nil {
			cli.Fail("poolwait", "acquire timeout %v: %v", t, err)
		}
		runs = append(runs, r)
		if enc != nil {
			for _, q := range r.Requests {
				enc.Encode(q)
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	report(os.Stdout, runs, o)
}

func parseTimeouts(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, p := range strings.Split(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(p))
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("%q is not a positive duration", p)
		}
		out = append(out, d)
	}
	return out, nil
}

func parseStall(s string) (every, hold time.Duration, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return 0, 0, errors.New("want EVERY:FOR, e.g. 2s:1s")
	}
	if every, err = time.ParseDuration(a); err != nil || every <= 0 {
		return 0, 0, fmt.Errorf("EVERY %q is not a positive duration", a)
	}
	if hold, err = time.ParseDuration(b); err != nil || hold <= 0 {
		return 0, 0, fmt.Errorf("FOR %q is not a positive duration", b)
	}
	if hold >= every {
		return 0, 0, fmt.Errorf("FOR %v must be shorter than EVERY %v", hold, every)
	}
	return every, hold, nil
}

// Outcomes of a request.
const (
	OK             = "ok"
	AcquireTimeout = "acquire_timeout"
	DBError        = "db_error"
)

// Request is one request as a worker saw it.
type Request struct {
	TimeoutMs int64  `json:"acquire_timeout_ms"`
	TUs       int64  `json:"t_us"` // when it started, from the run's start
	Worker    int    `json:"worker"`
	WaitUs    int64  `json:"wait_us"`
	HoldUs    int64  `json:"hold_us"`
	Outcome   string `json:"outcome"`
	Err       string `json:"err,omitempty"`
}

// Run is one acquire timeout's results.
type Run struct {
	Timeout  time.Duration
	Elapsed  time.Duration
	Requests []Request
	Stalls   int // write-lock holds that began and ended inside the run
}

// target is where a run writes: a fresh SQLite file, or a table of its
// own on a Postgres server.
type target struct {
	driver, dsn string
	create      string // the table, made before the run
	drop        string // the table's removal after it ("" for SQLite: the file goes)
	begin       string // the transaction's first statement
	insert      string
	lock        string // what the stall holds, after begin
}

// newTarget picks the run's database; done removes what it made on disk.
func newTarget(o options, run int) (tg target, done func(), err error) {
	if o.postgres != "" {
		table := fmt.Sprintf("poolwait_%d_%d", os.Getpid(), run)
		return target{driver: "pgx", dsn: o.postgres, begin: "BEGIN",
			create: "CREATE TABLE " + table + "(id bigserial PRIMARY KEY, payload text NOT NULL, created_at bigint NOT NULL)",
			drop:   "DROP TABLE IF EXISTS " + table,
			insert: "INSERT INTO " + table + "(payload, created_at) VALUES ($1, $2)",
			lock:   "LOCK TABLE " + table + " IN EXCLUSIVE MODE"}, func() {}, nil
	}
	dir, err := os.MkdirTemp(o.dir, "stacklab-poolwait-")
	if err != nil {
		return target{}, nil, err
	}
	return target{driver: "sqlite3", dsn: walwriter.DSN(filepath.Join(dir, "poolwait.db"), "NORMAL"), begin: "BEGIN IMMEDIATE",
		create: "CREATE TABLE bench_events(id INTEGER PRIMARY KEY, payload TEXT NOT NULL, created_at INTEGER NOT NULL)",
		insert: "INSERT INTO bench_events(payload, created_at) VALUES (?, ?)"}, func() { os.RemoveAll(dir) }, nil
}

func runOnce(ctx context.Context, o options, timeout time.Duration, run int) (*Run, error) {
	tg, done, err := newTarget(o, run)
	if err != nil {
		return nil, err
	}
	defer done()
	db, err := sql.Open(tg.driver, tg.dsn)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(o.pool)
	db.SetMaxIdleConns(o.pool)
	if _, err := db.Exec(tg.create); err != nil {
		return nil, err
	}
	if tg.drop != "" {
		defer db.Exec(tg.drop)
	}
	r := &Run{Timeout: timeout}
	runCtx, cancel := context.WithTimeout(ctx, o.duration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	if o.stallEvery > 0 {
		wg.Add(1)
		go func() { defer wg.Done(); r.Stalls = holdWriteLock(runCtx, tg, o.stallEvery, o.stallFor) }()
	}
	var mu sync.Mutex
	payload := strings.Repeat("x", 200)
	for w := 1; w <= o.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for runCtx.Err() == nil {
				q := request(runCtx, db, tg, timeout, payload)
				q.TUs, q.Worker, q.TimeoutMs = q.TUs-start.UnixMicro(), w, timeout.Milliseconds()
				if runCtx.Err() != nil && q.Outcome != OK {
					return // cut off by the end of the run, not by the pool
				}
				mu.Lock()
				r.Requests = append(r.Requests, q)
				mu.Unlock()
				if o.think > 0 {
					time.Sleep(o.think)
				}
			}
		}()
	}
	wg.Wait()
	r.Elapsed = time.Since(start)
	return r, nil
}

// request takes a connection under the acquire timeout and writes one row.
func request(ctx context.Context, db *sql.DB, tg target, timeout time.Duration, payload string) Request {
	t0 := time.Now()
	q := Request{TUs: t0.UnixMicro()}
	actx, cancel := context.WithTimeout(ctx, timeout)
	c, err := db.Conn(actx)
	cancel()
	t1 := time.Now()
	q.WaitUs = t1.Sub(t0).Microseconds()
	if err != nil {
		q.Outcome, q.Err = AcquireTimeout, err.Error()
		if !errors.Is(err, context.DeadlineExceeded) {
			q.Outcome = DBError
		}
		return q
	}
	err = write(c, tg, payload)
	c.Close() // back to the pool
	q.HoldUs = time.Since(t1).Microseconds()
	q.Outcome = OK
	if err != nil {
		q.Outcome, q.Err = DBError, err.Error()
	}
	return q
}

func write(c *sql.Conn, tg target, payload string) error {
	bg := context.Background()
	if _, err := c.ExecContext(bg, tg.begin); err != nil {
		return err
	}
	if _, err := c.ExecContext(bg, tg.insert, payload, time.Now().UnixMilli()); err != nil {
		c.ExecContext(bg, "ROLLBACK")
		return err
	}
	_, err := c.ExecContext(bg, "COMMIT")
	return err
}

// holdWriteLock takes the write lock (SQLite's, or a lock on the run's
// Postgres table) from outside the pool every `every` and keeps it for
// `hold`; it returns how many holds began and ended inside the run.
func holdWriteLock(ctx context.Context, tg target, every, hold time.Duration) int {
	db, err := sql.Open(tg.driver, tg.dsn)
	if err != nil {
		return 0
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	n := 0
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return n
		case <-tick.C:
		}
		c, err := db.Conn(context.Background())
		if err != nil {
			continue
		}
		if _, err := c.ExecContext(context.Background(), tg.begin); err == nil {
			if tg.lock != "" {
				if _, err := c.ExecContext(context.Background(), tg.lock); err != nil {
					c.ExecContext(context.Background(), "ROLLBACK")
					c.Close()
					continue
				}
			}
			// A writer the busy handler kept waiting may get the lock only
			// after the run: such a hold stalled nobody and is not counted.
			inRun := ctx.Err() == nil
			time.Sleep(hold)
			c.ExecContext(context.Background(), "COMMIT")
			if inRun && ctx.Err() == nil {
				n++
			}
		}
		c.Close()
	}
}
