package main

import (
	"stacklab/stacks"

	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// goldenChecksum is the checksum query's answer on a fresh seed, SQLite's
// and Postgres's alike: the same rows in both.
const goldenChecksum = "items 1000 6e053b8411ef8d693a495acf29190bef9b5df8d1c3129e4f44b764c582215c0e bench_events 1000 4e1de818245bf4b433a8b6cfcebff2f6fbf0777c5026f7536f64477f19ce6210 users 100 c9740a08bceab01d61a391eb85d98910b74f276fcd6fb883f42703726af7cf15 sessions 0 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 orders 5000 f945fd47ee0ca833ec25ccbc5e64d9ba1a98c7821ce0a5f167ca9666c37af2e0 jobs 0 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 audit 5000 eabe80e74f453e33a54ed61dc2125c6b37973023d0e4e1e2384e199f5681285a"

func TestChecksumOfTheSQLiteSeed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	if err := seed(path, false, stacks.DefaultSize); err != nil {
		t.Fatal(err)
	}
	got, err := checksumOf(path)
	if err != nil || got != goldenChecksum {
		t.Fatalf("checksum %q, %v; want %q", got, err, goldenChecksum)
	}
	if n, err := countRows(path, "bench_events"); err != nil || n != 1000 {
		t.Errorf("rows %d, %v; want 1000", n, err)
	}
}

// With LAB_TEST_POSTGRES_URL (a server's superuser, e.g.
// postgres://lab@127.0.0.1:25432/postgres) the Postgres seed gives the
// same checksum, twice over (the second seed replaces the first).
func TestChecksumOfThePostgresSeed(t *testing.T) {
	admin := os.Getenv("LAB_TEST_POSTGRES_URL")
	if admin == "" {
		t.Skip("skipped: LAB_TEST_POSTGRES_URL is not set (no Postgres server to seed)")
	}
	app, err := databaseURL(admin, pgDatabase)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := seedPostgres(ctx, admin, stacks.DefaultSize)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		got, err := checksumOf(app)
		if err != nil || got != goldenChecksum {
			t.Fatalf("checksum %q, %v; want %q", got, err, goldenChecksum)
		}
	}
}
