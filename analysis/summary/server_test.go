package summary

import (
	"strings"
	"testing"

	"stacklab/formats/pglog"
)

func pgSample(at int64, active int, waits map[string]int, checkpoints int64) pglog.Sample {
	return pglog.Sample{Format: pglog.FormatID, AtUnixNs: at, Backends: map[string]int{"active": active}, Waits: waits, CheckpointsReq: checkpoints}
}

// A stretch whose active backends sat on the WAL names the server; one
// whose backends only ran, or waited on their clients, does not.
func TestServerWords(t *testing.T) {
	wal := []pglog.Sample{
		pgSample(0, 1, map[string]int{"CPU": 1}, 0),
		pgSample(100, 6, map[string]int{"IO:WALSync": 1, "LWLock:WALWrite": 4, "CPU": 1}, 0),
		pgSample(200, 6, map[string]int{"LWLock:WALWrite": 5, "CPU": 1}, 1),
		pgSample(300, 1, map[string]int{"CPU": 1}, 1),
	}
	words, held := serverWords(wal, span{100, 200})
	if !held || !strings.Contains(words, "up to 6 backend(s) active") || !strings.Contains(words, "LWLock:WALWrite 75%") || !strings.Contains(words, "1 checkpoint(s)") {
		t.Errorf("WAL stretch: %q, held %v", words, held)
	}
	idle := []pglog.Sample{pgSample(0, 2, map[string]int{"CPU": 2}, 0), pgSample(100, 2, map[string]int{"Client:ClientRead": 2}, 0)}
	if words, held := serverWords(idle, span{0, 100}); held || !strings.Contains(words, "2 samples") {
		t.Errorf("no server wait: %q, held %v", words, held)
	}
	if words, _ := serverWords(nil, span{0, 1}); words != "" {
		t.Errorf("no samples: %q", words)
	}
}
