package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// goldenChecksum is the checksum query's answer on a fresh seed, SQLite's
// and Postgres's alike: the same rows in both.
const goldenChecksum = "items 1000 6e053b8411ef8d693a495acf29190bef9b5df8d1c3129e4f44b764c582215c0e bench_events 1000 c253dc47821104add3cc2b56cc5090277ca64bbd6355047ad0569adbe503a7fc"

func TestChecksumOfTheSQLiteSeed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	if err := seed(path, false); err != nil {
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
		err := seedPostgres(ctx, admin)
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
