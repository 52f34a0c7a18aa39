// Command go-nethttp is the lab app (../../docs/app.md)
// in Go's standard library: net/http, database/sql with
// mattn/go-sqlite3, html/template and encoding/json.
//
// Environment: PORT (8080), DATABASE_PATH (/data/app.db), DATABASE_URL
// (unset; a postgres:// URL: the lab's Postgres instead, postgres.go), UPSTREAM_URL
// (http://127.0.0.1:9090), LAB_CPUS (CPUs given; sets GOMAXPROCS),
// DB_POOL_SIZE (default max(4, 2 × GOMAXPROCS)), DB_ACQUIRE_TIMEOUT_MS
// (default none: a write waits for a pooled connection as long as it takes),
// SELFTEST_BURN_US (default 0: the lab's planted slowdown, burn.go),
// SELFTEST_PAUSE_MS and SELFTEST_PAUSE_EVERY_MS (default 0: the lab's
// planted stop-the-world pause, pause.go), SELFTEST_PRAGMAS_ONCE (default
// 0; 1: the pragmas on the pool's first connection only, the fault verify's
// test must catch, db.go), SELFTEST_DROP_EVERY (default 0; n: every n-th
// write after the first 2n answered but rolled back, the fault the rows
// check must catch), SELFTEST_ANY_COOKIE (default 0; 1: any lab_session
// cookie is user 1's session, no database check) and SELFTEST_NO_CSRF
// (default 0; 1: a form post passes without its CSRF token), the faults
// verify's signed-in checks must catch.
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"
)

// processStart is when the process started: the planted pauses count
// their periods from it.
var processStart = time.Now()

type config struct {
	port        string
	dbPath      string
	dbURL       string
	dropEvery   int
	upstreamURL string
	procs       int
	pool        int
	acquire     time.Duration
	burnUS      int
	pause       time.Duration // SELFTEST_PAUSE_MS
	pauseEvery  time.Duration // SELFTEST_PAUSE_EVERY_MS
	anyCookie   bool          // SELFTEST_ANY_COOKIE
	noCSRF      bool          // SELFTEST_NO_CSRF
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func positive(name string) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s must be a positive integer, got %q", name, v)
	}
	return n, nil
}

func loadConfig() (config, error) {
	c := config{
		port:        env("PORT", "8080"),
		dbPath:      env("DATABASE_PATH", "/data/app.db"),
		dbURL:       os.Getenv("DATABASE_URL"),
		upstreamURL: env("UPSTREAM_URL", "http://127.0.0.1:9090"),
	}
	if n, err := strconv.Atoi(c.port); err != nil || n < 1 || n > 65535 {
		return c, fmt.Errorf("PORT must be a TCP port number, got %q", c.port)
	}
	if u, err := url.Parse(c.upstreamURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, fmt.Errorf("UPSTREAM_URL must be an http:// URL, got %q", c.upstreamURL)
	}
	var err error
	// The Go runtime already sizes GOMAXPROCS from the CPU affinity mask
	// (--cpuset-cpus) and, since Go 1.25, the cgroup CPU quota. LAB_CPUS is
	// the lab saying the same thing explicitly; GOMAXPROCS, if set, wins.
	if c.procs, err = positive("LAB_CPUS"); err != nil {
		return c, err
	}
	if c.procs > 0 && os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(c.procs)
	}
	c.procs = runtime.GOMAXPROCS(0)
	if c.pool, err = positive("DB_POOL_SIZE"); err != nil {
		return c, err
	}
	if c.pool == 0 {
		c.pool = max(4, 2*c.procs)
	}
	ms, err := positive("DB_ACQUIRE_TIMEOUT_MS")
	if err != nil {
		return c, err
	}
	c.acquire = time.Duration(ms) * time.Millisecond
	if v := os.Getenv("SELFTEST_BURN_US"); v != "" && v != "0" {
		if c.burnUS, err = positive("SELFTEST_BURN_US"); err != nil {
			return c, err
		}
	}
	if v := os.Getenv("SELFTEST_DROP_EVERY"); v != "" && v != "0" {
		if c.dropEvery, err = positive("SELFTEST_DROP_EVERY"); err != nil {
			return c, err
		}
	}
	if c.pause, c.pauseEvery, err = pauseConfig(); err != nil {
		return c, err
	}
	once, err := zeroOrOne("SELFTEST_PRAGMAS_ONCE")
	if err != nil {
		return c, err
	}
	pragmasOnce.Store(once)
	if c.anyCookie, err = zeroOrOne("SELFTEST_ANY_COOKIE"); err != nil {
		return c, err
	}
	if c.noCSRF, err = zeroOrOne("SELFTEST_NO_CSRF"); err != nil {
		return c, err
	}
	return c, nil
}

// zeroOrOne reads a planted-fault switch: unset or 0 off, 1 on, anything
// else refused.
func zeroOrOne(name string) (bool, error) {
	switch v := os.Getenv(name); v {
	case "", "0":
		return false, nil
	case "1":
		return true, nil
	default:
		return false, fmt.Errorf("%s must be 0 or 1, got %q", name, v)
	}
}

// pauseConfig reads the planted pause: both variables or neither (unset
// or 0), and the pause shorter than its period.
func pauseConfig() (length, every time.Duration, err error) {
	var ms [2]int
	names := [2]string{"SELFTEST_PAUSE_MS", "SELFTEST_PAUSE_EVERY_MS"}
	for i, name := range names {
		if v := os.Getenv(name); v != "" && v != "0" {
			if ms[i], err = positive(name); err != nil {
				return 0, 0, err
			}
		}
	}
	switch {
	case ms[0] == 0 && ms[1] == 0:
		return 0, 0, nil
	case ms[0] == 0 || ms[1] == 0:
		return 0, 0, fmt.Errorf("SELFTEST_PAUSE_MS and SELFTEST_PAUSE_EVERY_MS go together, got %q and %q", os.Getenv(names[0]), os.Getenv(names[1]))
	case ms[0] >= ms[1]:
		return 0, 0, fmt.Errorf("SELFTEST_PAUSE_MS (%d) must be shorter than SELFTEST_PAUSE_EVERY_MS (%d)", ms[0], ms[1])
	}
	return time.Duration(ms[0]) * time.Millisecond, time.Duration(ms[1]) * time.Millisecond, nil
}

// newUpstreamClient is the one shared keep-alive client of /bench/upstream.
// The io study runs 512 connections through the app, so up to 512 upstream
// requests are in flight at once: the idle pool per host must hold them all,
// or connections are closed after each burst and re-dialled (the default
// keeps 2 per host).
func newUpstreamClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil // loopback only; never pick up a proxy from the environment
	t.MaxIdleConns = 1024
	t.MaxIdleConnsPerHost = 1024
	t.MaxConnsPerHost = 0
	t.IdleConnTimeout = 90 * time.Second
	t.DisableCompression = true
	return &http.Client{Transport: t, Timeout: 15 * time.Second}
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "go-nethttp: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	var db *sql.DB
	if cfg.dbURL != "" {
		db, err = openPostgres(ctx, cfg.dbURL, cfg.pool)
	} else {
		db, err = openDB(ctx, cfg.dbPath, cfg.pool)
	}
	if err != nil {
		return err
	}
	defer db.Close()
	a, err := newApp(ctx, db, newUpstreamClient(), cfg.upstreamURL, cfg.dbURL != "")
	if err != nil {
		return err
	}
	a.dropEvery = int64(cfg.dropEvery)
	a.acquire = cfg.acquire
	a.anyCookie, a.noCSRF = cfg.anyCookie, cfg.noCSRF
	if cfg.anyCookie {
		log.Printf("go-nethttp: SELFTEST_ANY_COOKIE=1: any lab_session cookie is user 1's session, the sessions table unread")
	}
	if cfg.noCSRF {
		log.Printf("go-nethttp: SELFTEST_NO_CSRF=1: form posts are not checked for their CSRF token")
	}
	// The background worker: one goroutine, stopped after the server has
	// finished the requests in flight (so their jobs are written first).
	wctx, stopWorker := context.WithCancel(context.Background())
	workerDone := make(chan struct{})
	go func() {
		defer close(workerDone)
		a.runWorker(wctx)
	}()
	defer func() {
		stopWorker()
		<-workerDone
	}()
	handler, rounds := burning(a.routes(), cfg.burnUS)
	if rounds > 0 {
		log.Printf("go-nethttp: SELFTEST_BURN_US=%d: %d rounds of busy work before every request", cfg.burnUS, rounds)
	}
	handler = pausing(handler, cfg.pause, cfg.pauseEvery, processStart)
	if cfg.pause > 0 {
		log.Printf("go-nethttp: SELFTEST_PAUSE_MS=%d SELFTEST_PAUSE_EVERY_MS=%d: every request arriving in the first %v of each %v (from start) waits for its end",
			cfg.pause.Milliseconds(), cfg.pauseEvery.Milliseconds(), cfg.pause, cfg.pauseEvery)
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          log.New(os.Stderr, "go-nethttp: ", 0),
	}
	ln, err := net.Listen("tcp4", "0.0.0.0:"+cfg.port)
	if err != nil {
		return err
	}
	log.Printf("go-nethttp: listening on %s, GOMAXPROCS=%d, db pool=%d, acquire timeout=%v, db=%s, upstream=%s",
		ln.Addr(), cfg.procs, cfg.pool, cfg.acquire, cfg.dbPath, cfg.upstreamURL)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// docs/app.md: exit within 5 s of SIGTERM. Requests in flight get 4 s
	// (the slowest route waits 100 ms on the upstream).
	sctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
