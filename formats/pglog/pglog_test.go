package pglog

import (
	"strings"
	"testing"
)

const two = `{"format":"stacklab-pg/1","at_unix_ns":1,"backends":{"active":2,"idle":2},"waits":{"IO:WALSync":1,"CPU":1},"xact_commit":10,"xact_rollback":1,"checkpoints_timed":0,"checkpoints_req":0,"buffers_checkpoint":0,"wal_records":5,"wal_bytes":100,"wal_write":1,"wal_sync":1,"wal_write_ms":0.5,"wal_sync_ms":2}
{"format":"stacklab-pg/1","at_unix_ns":2,"backends":{"active":3,"idle":1},"waits":{"IO:WALSync":2,"Lock:transactionid":1},"xact_commit":110,"xact_rollback":1,"checkpoints_timed":0,"checkpoints_req":1,"buffers_checkpoint":7,"wal_records":205,"wal_bytes":900,"wal_write":51,"wal_sync":51,"wal_write_ms":1.5,"wal_sync_ms":52}
`

// A window's figures are its last sample less its first, and its top wait
// the one the active backends were seen on most, CPU aside.
func TestSummarise(t *testing.T) {
	s, err := Parse(strings.NewReader(two), "w.pg.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	w := Summarise(s)
	if w.Commits != 100 || w.Rollbacks != 0 || w.Checkpoints != 1 || w.WALSyncs != 50 || w.WALSyncMs != 50 || w.MaxActive != 3 {
		t.Errorf("got %+v", w)
	}
	if w.TopWait != "IO:WALSync" || w.WaitShare["IO:WALSync"] != 0.6 {
		t.Errorf("top wait %q, share %v; want IO:WALSync at 0.6", w.TopWait, w.WaitShare["IO:WALSync"])
	}
}

// A corrupt, foreign or out-of-order line is named by its number.
func TestParseRefusesBadLines(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"{not json\n", "w:1:"},
		{`{"format":"other/1","at_unix_ns":1}` + "\n", `w:1: format "other/1"`},
		{`{"format":"stacklab-pg/1","at_unix_ns":5}` + "\n" + `{"format":"stacklab-pg/1","at_unix_ns":4}` + "\n", "w:2: sample before"},
	} {
		if _, err := Parse(strings.NewReader(c.in), "w"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.in, err, c.want)
		}
	}
	if w := Summarise(nil); w.Samples != 0 || w.Commits != 0 {
		t.Errorf("no samples: %+v", w)
	}
}
