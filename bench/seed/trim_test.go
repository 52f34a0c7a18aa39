package main

import (
	"stacklab/stacks"

	"database/sql"
	"path/filepath"
	"testing"
)

// A ramp's trim takes bench_events back to the seed while the app holds
// the file open in WAL mode, and leaves the seeded rows as they were.
func TestTrimDeletesOnlyTheRowsWrittenSinceTheSeed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	if err := seed(path, false, stacks.DefaultSize); err != nil {
		t.Fatal(err)
	}
	before, err := checksumOf(path)
	if err != nil {
		t.Fatal(err)
	}
	app, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	for i := 0; i < 250; i++ {
		if _, err := app.Exec("INSERT INTO bench_events (payload, created_at) VALUES ('p', 1)"); err != nil {
			t.Fatal(err)
		}
	}
	gone, has, err := trimEvents(path, stacks.DefaultSize.Events)
	if err != nil || !has || gone != 250 {
		t.Fatalf("trim: %d rows, table %v, %v; want 250 rows of the table", gone, has, err)
	}
	var n int
	if err := app.QueryRow("SELECT count(*) FROM bench_events").Scan(&n); err != nil || n != 1000 {
		t.Fatalf("the app counts %d rows after the trim (%v), want the seed's 1000", n, err)
	}
	if after, err := checksumOf(path); err != nil || after != before {
		t.Errorf("checksum after the trim %q (%v), want the seed's %q", after, err, before)
	}
}

func TestTrimLeavesADatabaseWithoutBenchEventsAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "own.db")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE notes(id INTEGER PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if gone, has, err := trimEvents(path, stacks.DefaultSize.Events); err != nil || has || gone != 0 {
		t.Errorf("trim of a database without bench_events: %d, %v, %v; want nothing done", gone, has, err)
	}
}
