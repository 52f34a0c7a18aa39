// walstall answers: when do SQLite commits stall, and what lines up with it?
// It runs the walwriter workload, times every commit, follows the WAL file's
// size and the host's dirty pages, times checkpoints (automatic, inside the
// commit that triggers one, and forced ones it runs itself), and lists each
// stall with what coincided. --sync full,normal measures what a commit costs
// in each synchronous mode on this disk.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"stacklab/formats/cgroupstat"
	"stacklab/formats/cli"
	"stacklab/probes/walwriter"
)

const help = `walstall: when do SQLite commits stall, and what lines up with it?

Usage: walstall [--sync normal | --sync full,normal] [--writers 1] [--duration 10s]
                [--row-bytes 4096] [--stall 100ms] [--checkpoint EVERY[:MODE]]
                [--autocheckpoint N] [--dir DIR] [--out FILE]

Runs N writers (one connection each, BEGIN IMMEDIATE / INSERT / COMMIT as fast
as they can) on a fresh WAL database in --dir for --duration. Every commit is
timed; a commit slower than --stall is a stall, listed with what coincided: a
checkpoint (automatic ones run inside the commit that crosses
wal_autocheckpoint pages; --checkpoint forces one every EVERY from another
connection, MODE PASSIVE, FULL, RESTART or TRUNCATE), the WAL file's size, the
host's dirty and writeback pages and IO pressure.

With a list (--sync full,normal) the same run is repeated once per mode on a
fresh database, and a table compares what a commit costs.

Examples:
  walstall --sync full,normal --duration 5s
  walstall --writers 4 --duration 20s --checkpoint 2s:TRUNCATE --out commits.jsonl
  walstall --autocheckpoint 0 --duration 30s      # no checkpoints: watch the WAL grow
`

type options struct {
	modes          []string
	writers        int
	duration       time.Duration
	rowBytes       int
	stall          time.Duration
	ckptEvery      time.Duration
	ckptMode       string
	autocheckpoint int
	dir            string
}

func main() {
	fs := flag.NewFlagSet("walstall", flag.ContinueOnError)
	syncs := fs.String("sync", "normal", "synchronous mode, or a comma list to compare")
	var o options
	fs.IntVar(&o.writers, "writers", 1, "concurrent writers, one connection each")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "how long each run lasts")
	fs.IntVar(&o.rowBytes, "row-bytes", 4096, "payload bytes per row (one row per commit)")
	fs.DurationVar(&o.stall, "stall", 100*time.Millisecond, "a commit slower than this is a stall")
	ckpt := fs.String("checkpoint", "", "force a checkpoint every EVERY, e.g. 2s or 2s:TRUNCATE")
	fs.IntVar(&o.autocheckpoint, "autocheckpoint", -1, "PRAGMA wal_autocheckpoint (pages; 0 off; -1 SQLite's default, 1000)")
	fs.StringVar(&o.dir, "dir", os.TempDir(), "directory for the database: the disk under test")
	out := fs.String("out", "", "write every commit, checkpoint and WAL sample as JSON lines here")
	cli.Parse(fs, os.Args[1:], help)
	var err error
	if o.modes, err = parseModes(*syncs); err != nil {
		cli.Usage("walstall", "--sync %q: %v", *syncs, err)
	}
	if o.ckptEvery, o.ckptMode, err = parseCheckpoint(*ckpt); err != nil {
		cli.Usage("walstall", "--checkpoint %q: %v", *ckpt, err)
	}
	switch {
	case o.writers < 1 || o.writers > 256:
		cli.Usage("walstall", "--writers %d: want 1 to 256", o.writers)
	case o.duration <= 0:
		cli.Usage("walstall", "--duration %v: must be positive", o.duration)
	case o.rowBytes < 1 || o.rowBytes > 16<<20:
		cli.Usage("walstall", "--row-bytes %d: want 1 to 16 MiB", o.rowBytes)
	case o.stall <= 0:
		cli.Usage("walstall", "--stall %v: must be positive", o.stall)
	}
	cli.RequireDir("walstall", o.dir)
	rec, outFile := cli.JSONLines("walstall", *out)
	defer outFile.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var runs []*Run
	for i, mode := range o.modes {
		if len(o.modes) > 1 {
			fmt.Fprintf(os.Stderr, "walstall: run %d of %d, synchronous=%s, %v…\n", i+1, len(o.modes), mode, o.duration)
		}
		r, err := runOnce(ctx, o, mode, rec)
		if err != nil {
			cli.Fail("walstall", "synchronous=%s: %v", mode, err)
		}
		runs = append(runs, r)
		if ctx.Err() != nil {
			break
		}
	}
	if len(runs) > 1 {
		printComparison(runs, o)
		return
	}
	printRun(runs[0], o)
}

func parseModes(s string) ([]string, error) {
	var out []string
	for _, m := range strings.Split(s, ",") {
		m = strings.ToUpper(strings.TrimSpace(m))
		switch m {
		case "OFF", "NORMAL", "FULL", "EXTRA":
			out = append(out, m)
		default:
			return nil, fmt.Errorf("%q is not a synchronous mode (off, normal, full, extra)", m)
		}
	}
	return out, nil
}

func parseCheckpoint(s string) (time.Duration, string, error) {
	if s == "" {
		return 0, "", nil
	}
	every, mode, _ := strings.Cut(s, ":")
	d, err := time.ParseDuration(every)
	if err != nil || d <= 0 {
		return 0, "", fmt.Errorf("%q is not a positive duration", every)
	}
	if mode == "" {
		mode = "PASSIVE"
	}
	mode = strings.ToUpper(mode)
	switch mode {
	case "PASSIVE", "FULL", "RESTART", "TRUNCATE":
	default:
		return 0, "", fmt.Errorf("mode %q: want PASSIVE, FULL, RESTART or TRUNCATE", mode)
	}
	return d, mode, nil
}

// Checkpoint is one forced checkpoint, timed.
type Checkpoint struct {
	Kind      string `json:"kind"` // "checkpoint"
	Mode      string `json:"mode"`
	StartUs   int64  `json:"start_us"`
	LatencyUs int64  `json:"latency_us"`
	Busy      int    `json:"busy"`
	LogFrames int    `json:"log_frames"`
	Done      int    `json:"checkpointed_frames"`
	WALBefore int64  `json:"wal_bytes_before"`
	WALAfter  int64  `json:"wal_bytes_after"`
	Err       string `json:"err,omitempty"`
}

// HostSample is the WAL's size and the host's state at one moment.
type HostSample struct {
	Kind       string   `json:"kind"` // "sample"
	TUs        int64    `json:"t_us"`
	WALBytes   int64    `json:"wal_bytes"`
	Dirty      *uint64  `json:"host_nr_dirty_bytes"`
	Writeback  *uint64  `json:"host_nr_writeback_bytes"`
	PSIIOSome  *float64 `json:"psi_io_some_avg10"`
	PSIScope   string   `json:"psi_scope"`
	CgroupDirt *uint64  `json:"cgroup_dirty_bytes"`
}

// Run is one mode's results.
type Run struct {
	Mode        string
	Elapsed     time.Duration
	Commits     []walwriter.Commit
	Checkpoints []Checkpoint
	Samples     []HostSample
}

func runOnce(ctx context.Context, o options, mode string, rec *json.Encoder) (*Run, error) {
	dir, err := os.MkdirTemp(o.dir, "stacklab-walstall-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "walstall.db")
	r := &Run{Mode: mode}
	var mu sync.Mutex
	record := func(v any) {
		if rec != nil {
			mu.Lock()
			rec.Encode(v)
			mu.Unlock()
		}
	}
	runCtx, cancel := context.WithTimeout(ctx, o.duration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); r.Samples = sampleHost(runCtx, path, start, record) }()
	if o.ckptEvery > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Checkpoints = forceCheckpoints(runCtx, path, mode, o.ckptEvery, o.ckptMode, start, record)
		}()
	}
	err = walwriter.Run(runCtx, walwriter.Config{Path: path, Writers: o.writers, RowBytes: o.rowBytes, Synchronous: mode, Autocheckpoint: o.autocheckpoint}, start, func(c walwriter.Commit) {
		r.Commits = append(r.Commits, c)
		record(struct {
			Kind string `json:"kind"`
			Mode string `json:"synchronous"`
			walwriter.Commit
		}{"commit", mode, c})
	})
	r.Elapsed = time.Since(start)
	cancel()
	wg.Wait()
	return r, err
}

// sampleHost follows the WAL's size every 20 ms and the host's dirty pages
// and IO pressure (through cgroupstat, on this process's own cgroup).
func sampleHost(ctx context.Context, path string, start time.Time, record func(any)) []HostSample {
	s, err := cgroupstat.Open(cgroupstat.Target{PID: os.Getpid()})
	if err != nil {
		s = nil
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var out []HostSample
	for i := 0; ; i++ {
		h := HostSample{Kind: "sample", TUs: time.Since(start).Microseconds(), WALBytes: walwriter.WALSize(path)}
		if s != nil && i%5 == 0 { // the host every 100 ms
			if x, err := s.Sample(); err == nil {
				h.Dirty, h.Writeback, h.PSIIOSome, h.PSIScope, h.CgroupDirt = x.HostNrDirtyBytes, x.HostNrWritebackBytes, x.PSIIOSomeAvg10, x.PSIScope, x.DirtyBytes
			}
		}
		out = append(out, h)
		record(h)
		select {
		case <-ctx.Done():
			return out
		case <-tick.C:
		}
	}
}

func forceCheckpoints(ctx context.Context, path, mode string, every time.Duration, ckMode string, start time.Time, record func(any)) []Checkpoint {
	db, err := sql.Open("sqlite3", walwriter.DSN(path, mode))
	if err != nil {
		return nil
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var out []Checkpoint
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return out
		case <-tick.C:
		}
		c := Checkpoint{Kind: "checkpoint", Mode: ckMode, WALBefore: walwriter.WALSize(path)}
		t0 := time.Now()
		c.StartUs = t0.Sub(start).Microseconds()
		err := db.QueryRow("PRAGMA wal_checkpoint("+ckMode+")").Scan(&c.Busy, &c.LogFrames, &c.Done)
		c.LatencyUs = time.Since(t0).Microseconds()
		c.WALAfter = walwriter.WALSize(path)
		if err != nil {
			c.Err = err.Error()
		}
		out = append(out, c)
		record(c)
	}
}
