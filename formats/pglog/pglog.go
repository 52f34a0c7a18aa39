// Package pglog reads and writes the Postgres server's own view of a
// window (bench/pgsample): JSON lines, format id "stacklab-pg/1", one
// Sample per line, in time order. Counters are the server's cumulative
// ones as read (pg_stat_database, pg_stat_bgwriter, pg_stat_wal), so a
// window's figure is the last sample's minus the first's; Backends and
// Waits are what pg_stat_activity showed at that instant, for the app's
// database, the sampler's own connection left out.
//
//	{"format":"stacklab-pg/1","at_unix_ns":1764650000000000000,"backends":{"active":3,"idle":5},"waits":{"IO:WALSync":1,"LWLock:WALWrite":2},"xact_commit":1200,"xact_rollback":0,"checkpoints_timed":0,"checkpoints_req":1,"buffers_checkpoint":40,"wal_records":2400,"wal_bytes":410000,"wal_write":1100,"wal_sync":1100,"wal_write_ms":3.1,"wal_sync_ms":180.5}
package pglog

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// FormatID is every line's "format".
const FormatID = "stacklab-pg/1"

// Sample is one reading of the server.
type Sample struct {
	Format   string `json:"format"`
	AtUnixNs int64  `json:"at_unix_ns"`
	// Backends counts the app database's client backends by state
	// ("active", "idle", "idle in transaction", ...).
	Backends map[string]int `json:"backends"`
	// Waits counts the active backends by what they waited on,
	// "TYPE:EVENT" as pg_stat_activity names it; a running backend is
	// "CPU" (no wait event).
	Waits             map[string]int `json:"waits"`
	XactCommit        int64          `json:"xact_commit"`
	XactRollback      int64          `json:"xact_rollback"`
	CheckpointsTimed  int64          `json:"checkpoints_timed"`
	CheckpointsReq    int64          `json:"checkpoints_req"`
	BuffersCheckpoint int64          `json:"buffers_checkpoint"`
	WALRecords        int64          `json:"wal_records"`
	WALBytes          int64          `json:"wal_bytes"`
	WALWrite          int64          `json:"wal_write"`
	WALSync           int64          `json:"wal_sync"`
	WALWriteMs        float64        `json:"wal_write_ms"`
	WALSyncMs         float64        `json:"wal_sync_ms"`
}

// Read reads a whole record; a bad line is named by its number.
func Read(path string) ([]Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads samples from r; name is for messages.
func Parse(r io.Reader, name string) ([]Sample, error) {
	var out []Sample
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var s Sample
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			return out, fmt.Errorf("%s:%d: %v", name, n, err)
		}
		if s.Format != FormatID {
			return out, fmt.Errorf("%s:%d: format %q, want %q", name, n, s.Format, FormatID)
		}
		if len(out) > 0 && s.AtUnixNs < out[len(out)-1].AtUnixNs {
			return out, fmt.Errorf("%s:%d: sample before the one above it", name, n)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

// Window is what a window's samples add up to.
type Window struct {
	Samples              int
	Commits, Rollbacks   int64
	Checkpoints          int64
	BuffersCheckpoint    int64
	WALRecords, WALBytes int64
	WALSyncs             int64
	WALSyncMs            float64
	MaxActive            int
	// WaitShare is, per wait ("TYPE:EVENT", or "CPU"), the share of the
	// active backends' samples spent on it; TopWait the largest that is
	// not "CPU" ("" when the backends never waited).
	WaitShare map[string]float64
	TopWait   string
}

// Summarise adds a window's samples up (nothing from fewer than two).
func Summarise(s []Sample) Window {
	w := Window{Samples: len(s), WaitShare: map[string]float64{}}
	if len(s) < 2 {
		return w
	}
	a, b := s[0], s[len(s)-1]
	w.Commits, w.Rollbacks = b.XactCommit-a.XactCommit, b.XactRollback-a.XactRollback
	w.Checkpoints = (b.CheckpointsTimed + b.CheckpointsReq) - (a.CheckpointsTimed + a.CheckpointsReq)
	w.BuffersCheckpoint = b.BuffersCheckpoint - a.BuffersCheckpoint
	w.WALRecords, w.WALBytes = b.WALRecords-a.WALRecords, b.WALBytes-a.WALBytes
	w.WALSyncs, w.WALSyncMs = b.WALSync-a.WALSync, b.WALSyncMs-a.WALSyncMs
	total := 0
	for _, x := range s {
		w.MaxActive = max(w.MaxActive, x.Backends["active"])
		for k, n := range x.Waits {
			w.WaitShare[k] += float64(n)
			total += n
		}
	}
	keys := make([]string, 0, len(w.WaitShare))
	for k := range w.WaitShare {
		if total > 0 {
			w.WaitShare[k] /= float64(total)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k != "CPU" && (w.TopWait == "" || w.WaitShare[k] > w.WaitShare[w.TopWait]) {
			w.TopWait = k
		}
	}
	return w
}
