package walwriter

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestReadIndexFixture(t *testing.T) {
	// testdata/after-checkpoint.db-shm: copied from a real run, 1055 frames in
	// the WAL, all 1055 backfilled by a PASSIVE checkpoint.
	ix, err := ReadIndex("testdata/after-checkpoint.db")
	if err != nil {
		t.Fatal(err)
	}
	if ix.MxFrame != 1055 || ix.NBackfill != 1055 {
		t.Errorf("read %+v, want mxFrame 1055 nBackfill 1055", ix)
	}
	if _, err := ReadIndex("testdata/short.db"); err == nil {
		t.Error("a 10-byte -shm file read without error")
	}
}

func TestRunCommitsAndSeesCheckpoints(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	var got []Commit
	// 8 KiB rows: three frames each, so the 100-page autocheckpoint runs often
	err := Run(ctx, Config{Path: path, Writers: 2, RowBytes: 8192, Synchronous: "NORMAL", Autocheckpoint: 100}, time.Now(), func(c Commit) { got = append(got, c) })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 50 {
		t.Fatalf("only %d commits in 1.5 s", len(got))
	}
	writers, backfilled := map[int]bool{}, 0
	for _, c := range got {
		if c.Err != "" {
			t.Fatalf("commit failed: %s", c.Err)
		}
		writers[c.Writer] = true
		if c.Backfilled > 0 {
			backfilled++
		}
	}
	if len(writers) != 2 || backfilled == 0 {
		t.Errorf("writers %v, commits that ran a checkpoint: %d (want both writers, some checkpoints)", writers, backfilled)
	}
	// every commit reported is a row in the file
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	var rows int
	db.QueryRow("SELECT count(*) FROM bench_events").Scan(&rows)
	db.Close()
	if rows != len(got) {
		t.Errorf("%d commits reported, %d rows in the database", len(got), rows)
	}
	if err := Run(ctx, Config{Path: path, Writers: 1, RowBytes: 1, Synchronous: "SOMETIMES"}, time.Now(), func(Commit) {}); err == nil {
		t.Error("accepted synchronous=SOMETIMES")
	}
	os.Remove(path)
}

func TestKeepRowsBoundsTheTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.db")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	n := 0
	err := Run(ctx, Config{Path: path, Writers: 2, RowBytes: 512, Synchronous: "NORMAL", Autocheckpoint: -1, KeepRows: 10, Pragmas: []string{"journal_size_limit = 1048576"}}, time.Now(), func(Commit) { n++ })
	if err != nil {
		t.Fatal(err)
	}
	db, _ := sql.Open("sqlite3", path)
	defer db.Close()
	var rows int
	db.QueryRow("SELECT count(*) FROM bench_events").Scan(&rows)
	if n < 20 || rows != 10 {
		t.Errorf("%d commits left %d rows, want 10", n, rows)
	}
	if err := Run(ctx, Config{Path: path, Writers: 1, RowBytes: 1, Synchronous: "NORMAL", Pragmas: []string{"no_such_thing = ("}}, time.Now(), func(Commit) {}); err == nil {
		t.Error("a bad pragma was accepted")
	}
}
