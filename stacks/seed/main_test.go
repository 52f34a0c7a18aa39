package main

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenSeed is the sha256 of a fresh seed. It changes only when the seed
// data, the schema or the pinned SQLite library change: then every stack's
// numbers from before are from another database, and this must be updated
// on purpose.
const goldenSeed = "e021435211303c69afe18aee4e657d409f250b335f596295cc9522c0f6e0cc1e"

func sum(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func TestSeedIsTheSameBytesEveryTime(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b", "app.db")
	if err := seed(a, false); err != nil {
		t.Fatal(err)
	}
	if err := seed(b, false); err != nil {
		t.Fatal(err)
	}
	if sa, sb := sum(t, a), sum(t, b); sa != sb || sa != goldenSeed {
		t.Fatalf("seed checksums %s and %s, want both %s", sa, sb, goldenSeed)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("seed left %s behind", e.Name())
		}
	}
}

func TestSeedHoldsTheRowsAndTitlesAppMDAsksFor(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	if err := seed(path, false); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for table, want := range map[string]int{"items": 1000, "bench_events": 1000} {
		var n int
		if err := db.QueryRow("SELECT COUNT(*) FROM " + table).Scan(&n); err != nil || n != want {
			t.Errorf("%s: %d rows (%v), want %d", table, n, err, want)
		}
	}
	// The 20 newest items are what /items and /page show: they must exercise
	// every character HTML escapes, and text beyond ASCII.
	rows, err := db.Query("SELECT title FROM items ORDER BY id DESC LIMIT 20")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var all strings.Builder
	for rows.Next() {
		var s string
		rows.Scan(&s)
		all.WriteString(s)
	}
	for _, c := range []string{"<", ">", "&", `"`, "'"} {
		if !strings.Contains(all.String(), c) {
			t.Errorf("no title among the newest 20 holds %q", c)
		}
	}
	if strings.IndexFunc(all.String(), func(r rune) bool { return r > 127 }) < 0 {
		t.Error("no title among the newest 20 holds non-ASCII text")
	}
	var payloadLen int
	db.QueryRow("SELECT MIN(LENGTH(payload)) FROM bench_events").Scan(&payloadLen)
	if payloadLen != 200 {
		t.Errorf("bench_events payload is %d bytes, want 200", payloadLen)
	}
}

func TestSeedRefusesToOverwriteWithoutForce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	os.WriteFile(path, []byte("keep me"), 0o644)
	if err := seed(path, false); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("seed over an existing file: %v, want an error saying it exists", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "keep me" {
		t.Fatal("seed changed a file it refused to overwrite")
	}
	if err := seed(path, true); err != nil || sum(t, path) != goldenSeed {
		t.Fatalf("seed --force: %v", err)
	}
}
