package main

import (
	"stacklab/stacks"

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
const goldenSeed = "18230c2f0ac6cd12f0dde52c16a951ea87c9c680b81894883832ab2096a36d96"

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
	if err := seed(a, false, stacks.DefaultSize); err != nil {
		t.Fatal(err)
	}
	if err := seed(b, false, stacks.DefaultSize); err != nil {
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
	if err := seed(path, false, stacks.DefaultSize); err != nil {
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
	if err := seed(path, false, stacks.DefaultSize); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("seed over an existing file: %v, want an error saying it exists", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "keep me" {
		t.Fatal("seed changed a file it refused to overwrite")
	}
	if err := seed(path, true, stacks.DefaultSize); err != nil || sum(t, path) != goldenSeed {
		t.Fatalf("seed --force: %v", err)
	}
}

// The users' hashes come from a cache after the first seed; a seed made
// with an empty cache, one with a warm cache and one with a cache whose
// lines were made by another rule are the same bytes.
func TestSeedIsTheSameBytesWithTheHashCacheOrWithout(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	cold, warm, stale := filepath.Join(dir, "cold.db"), filepath.Join(dir, "warm.db"), filepath.Join(dir, "stale.db")
	small := stacks.Size{Items: 1000, Events: 1000, Users: 3, OrdersPerUser: 2}
	if err := seed(cold, false, small); err != nil {
		t.Fatal(err)
	}
	if err := seed(warm, false, small); err != nil {
		t.Fatal(err)
	}
	cache, _ := filepath.Glob(filepath.Join(dir, "cache", "stacklab", "seed", "*.txt"))
	if len(cache) != 1 {
		t.Fatalf("hash cache files %v, want one", cache)
	}
	b, _ := os.ReadFile(cache[0])
	if strings.Count(string(b), "\n") != 3 {
		t.Fatalf("hash cache holds %q, want 3 users", b)
	}
	// Another salt for user 2: the seeder must not take it.
	lines := strings.Split(string(b), "\n")
	lines[1] = "2 $2b$10$" + strings.Repeat("A", 53)
	os.WriteFile(cache[0], []byte(strings.Join(lines, "\n")), 0o644)
	if err := seed(stale, false, small); err != nil {
		t.Fatal(err)
	}
	if sum(t, cold) != sum(t, warm) || sum(t, cold) != sum(t, stale) {
		t.Fatal("seeds with a cold, a warm and a stale hash cache differ")
	}
}

func TestSeedHoldsTheUsersAndOrdersAppMDAsksFor(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	if err := seed(path, false, stacks.DefaultSize); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for table, want := range map[string]int{"users": 100, "orders": 5000, "audit": 5000, "sessions": 0, "jobs": 0} {
		var n int
		if err := db.QueryRow("SELECT COUNT(*) FROM " + table).Scan(&n); err != nil || n != want {
			t.Errorf("%s: %d rows (%v), want %d", table, n, err, want)
		}
	}
	var email, hash string
	db.QueryRow("SELECT email, password_hash FROM users WHERE id = 7").Scan(&email, &hash)
	if email != "user7@lab.example" || !strings.HasPrefix(hash, "$2b$10$") || len(hash) != 60 {
		t.Errorf("user 7: %q %q, want user7@lab.example and a 60-byte $2b$10$ hash", email, hash)
	}
	// Round-robin: user 7's newest orders are 4907, 4807, ...
	var newest int
	db.QueryRow("SELECT MAX(id) FROM orders WHERE user_id = 7").Scan(&newest)
	if newest != 4907 {
		t.Errorf("user 7's newest order is %d, want 4907", newest)
	}
	var pending int
	db.QueryRow("SELECT COUNT(*) FROM (SELECT status FROM orders WHERE user_id = 1 ORDER BY id DESC LIMIT 20) WHERE status = 'PENDING'").Scan(&pending)
	if pending == 0 {
		t.Error("user 1's newest 20 orders hold none PENDING: the cancel check needs one")
	}
}

// A larger seed (a study's [seed]): its counts, the default's first 1,000
// items unchanged, and checksum --want refusing any other seed.
func TestSeedAtALargerSize(t *testing.T) {
	dir := t.TempDir()
	small, big := filepath.Join(dir, "small.db"), filepath.Join(dir, "big.db")
	size := stacks.DefaultSize
	if err := seed(small, false, size); err != nil {
		t.Fatal(err)
	}
	size.Items, size.Events = 100_000, 2_000
	if err := seed(big, false, size); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+big+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var items, events int
	var title string
	if err := db.QueryRow("SELECT (SELECT COUNT(*) FROM items), (SELECT COUNT(*) FROM bench_events), (SELECT title FROM items WHERE id = 1000)").Scan(&items, &events, &title); err != nil {
		t.Fatal(err)
	}
	if items != 100_000 || events != 2_000 || title != stacks.Items(1000)[999].Title {
		t.Errorf("items %d, events %d, item 1000 %q", items, events, title)
	}
	sum, err := checksumOf(small)
	if err != nil {
		t.Fatal(err)
	}
	if fp, err := fingerprintOf(stacks.DefaultSize); err != nil || fp != sum {
		t.Errorf("the default size's fingerprint %q (%v), want the default seed's checksum", fp, err)
	}
	if code := query("checksum", []string{"--want", sum, small}); code != 0 {
		t.Errorf("checksum --want its own sum: exit %d", code)
	}
	if code := query("checksum", []string{"--want", sum, big}); code != 1 {
		t.Errorf("checksum --want another seed's sum: exit %d, want 1", code)
	}
}
