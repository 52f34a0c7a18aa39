// pgsample records the Postgres server's own view of a window: what the
// app's backends are doing and waiting on (pg_stat_activity), commits and
// rollbacks (pg_stat_database), checkpoints (pg_stat_bgwriter) and WAL
// writes and syncs (pg_stat_wal), one JSON line per interval (format:
// formats/pglog). The bench runs it beside every window of a row on the
// lab's Postgres; at the end one verdict line goes to stderr.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"stacklab/formats/cli"
	"stacklab/formats/pglog"
)

const usage = `pgsample: the Postgres server's view of a window, as JSON lines.

Usage: pgsample --url postgres://USER@127.0.0.1:PORT/DB --database NAME --out FILE
                [--interval 100ms] [--duration D]

Samples every --interval until --duration elapses or SIGINT/SIGTERM
arrives: the client backends of database NAME by state and wait event
(pg_stat_activity, its own connection left out), NAME's commits and
rollbacks, the server's checkpoints and WAL records, bytes, writes and
syncs. One line per sample (formats/pglog); the verdict on stderr, e.g.

  pgsample: 51 samples; 12000 commits, 0 rollbacks, 0 checkpoints; active backends waited most on IO:WALSync (38% of their samples)
`

// The one query per sample: every figure from one statement.
const sampleSQL = `
SELECT
  (SELECT coalesce(json_object_agg(state, n), '{}') FROM
     (SELECT coalesce(state, 'unknown') AS state, count(*) AS n FROM pg_stat_activity
      WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid() GROUP BY 1) s)::text,
  (SELECT coalesce(json_object_agg(w, n), '{}') FROM
     (SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') AS w, count(*) AS n FROM pg_stat_activity
      WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND state = 'active' GROUP BY 1) x)::text,
  coalesce((SELECT xact_commit FROM pg_stat_database WHERE datname = $1), 0),
  coalesce((SELECT xact_rollback FROM pg_stat_database WHERE datname = $1), 0),
  b.checkpoints_timed, b.checkpoints_req, b.buffers_checkpoint,
  w.wal_records, w.wal_bytes::bigint, w.wal_write, w.wal_sync, w.wal_write_time, w.wal_sync_time
FROM pg_stat_bgwriter b, pg_stat_wal w`

func main() {
	fs := flag.NewFlagSet("pgsample", flag.ContinueOnError)
	dbURL := fs.String("url", "", "the server, as a role that may read every backend's activity (required)")
	database := fs.String("database", "app", "the app's database whose backends are sampled")
	out := fs.String("out", "", "JSON lines file (required)")
	interval := fs.Duration("interval", 100*time.Millisecond, "time between samples")
	duration := fs.Duration("duration", 0, "stop after this long (0: at SIGTERM)")
	cli.Parse(fs, os.Args[1:], usage)
	u, err := url.Parse(*dbURL)
	switch {
	case *dbURL == "" || *out == "":
		cli.Usage("pgsample", "--url and --out are required (see -h)")
	case err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Hostname() != "127.0.0.1":
		cli.Usage("pgsample", "--url %q: want postgres://USER@127.0.0.1:PORT/DB", *dbURL)
	case *interval < 10*time.Millisecond:
		cli.Usage("pgsample", "--interval %v: at least 10ms", *interval)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	conn, err := pgx.Connect(ctx, *dbURL)
	if err != nil {
		cli.Fail("pgsample", "%s: %v", *dbURL, err)
	}
	defer conn.Close(context.Background())
	enc, closer := cli.JSONLines("pgsample", *out)
	defer closer.Close()
	var samples []pglog.Sample
	tick := time.NewTicker(*interval)
	defer tick.Stop()
	for {
		s, err := sample(ctx, conn, *database)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			cli.Fail("pgsample", "%v", err)
		}
		if err := enc.Encode(s); err != nil {
			cli.Fail("pgsample", "%s: %v", *out, err)
		}
		samples = append(samples, s)
		select {
		case <-ctx.Done():
		case <-tick.C:
			continue
		}
		break
	}
	fmt.Fprintln(os.Stderr, verdict(pglog.Summarise(samples)))
}

func sample(ctx context.Context, c *pgx.Conn, database string) (pglog.Sample, error) {
	s := pglog.Sample{Format: pglog.FormatID}
	var backends, waits string
	err := c.QueryRow(ctx, sampleSQL, database).Scan(&backends, &waits, &s.XactCommit, &s.XactRollback,
		&s.CheckpointsTimed, &s.CheckpointsReq, &s.BuffersCheckpoint,
		&s.WALRecords, &s.WALBytes, &s.WALWrite, &s.WALSync, &s.WALWriteMs, &s.WALSyncMs)
	s.AtUnixNs = time.Now().UnixNano()
	if err != nil {
		return s, err
	}
	if s.Backends, err = counts(backends); err != nil {
		return s, err
	}
	s.Waits, err = counts(waits)
	return s, err
}

// counts reads json_object_agg's {"key": n} text.
func counts(text string) (map[string]int, error) {
	m := map[string]int{}
	text = strings.TrimSpace(text)
	if text == "" || text == "{}" {
		return m, nil
	}
	var raw map[string]float64
	if err := jsonUnmarshal(text, &raw); err != nil {
		return nil, fmt.Errorf("pg_stat_activity: %v", err)
	}
	for k, v := range raw {
		m[k] = int(v)
	}
	return m, nil
}

func verdict(w pglog.Window) string {
	if w.Samples < 2 {
		return fmt.Sprintf("pgsample: %d sample(s): too few for a window's figures", w.Samples)
	}
	line := fmt.Sprintf("pgsample: %d samples; %d commits, %d rollbacks, %d checkpoints, %d WAL syncs (%.0f ms)",
		w.Samples, w.Commits, w.Rollbacks, w.Checkpoints, w.WALSyncs, w.WALSyncMs)
	if w.TopWait == "" {
		return line + "; active backends never waited"
	}
	keys := make([]string, 0, len(w.WaitShare))
	for k := range w.WaitShare {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return line + fmt.Sprintf("; active backends waited most on %s (%.0f%% of their samples)", w.TopWait, 100*w.WaitShare[w.TopWait])
}
