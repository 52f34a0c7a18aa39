// Command seed creates the lab app's SQLite database: stacks/schema.sql plus a
// deterministic seed (by default 1,000 items with awkward titles, 1,000
// bench_events, 100 users with bcrypt password hashes, 50 orders each and
// their audit; a study's [seed] asks for other sizes).
// The same SQLite library and the same code give the same bytes every time,
// so every stack starts each case from an identical file.
//
//	seed [--items N] [--events N] [--users N] [--orders-per-user M] PATH
//	                       create PATH (refuses to overwrite)
//	seed --force PATH      replace PATH
//	seed [sizes] --postgres URL
//	                       a fresh "app" database on the Postgres server at URL
//	                       (its superuser's; docs/postgres.md), the same rows
//	seed [sizes] --fingerprint
//	                       the checksum a seed of that size has (nothing kept)
//	seed checksum [--want SUM] TARGET
//	                       the rows' checksum, of a SQLite file or a postgres://
//	                       URL; with --want, exit 1 (one line) unless it is SUM
//	seed rows TARGET TABLE TABLE's row count there (the write case's check)
//	seed trim [--events N] TARGET
//	                       delete the bench_events rows written since the seed
//	                       (a capacity ramp's step starts on the seeded rows)
package main

import (
	"context"
	"database/sql"
	_ "embed"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"stacklab/stacks"
)

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "checksum" || os.Args[1] == "rows") {
		os.Exit(query(os.Args[1], os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "trim" {
		os.Exit(trim(os.Args[2:]))
	}
	force := flag.Bool("force", false, "replace PATH if it exists")
	items := flag.Int("items", stacks.DefaultSize.Items, "items to seed")
	events := flag.Int("events", stacks.DefaultSize.Events, "bench_events to seed")
	users := flag.Int("users", stacks.DefaultSize.Users, "users to seed (docs/app.md, \"Users and orders\")")
	perUser := flag.Int("orders-per-user", stacks.DefaultSize.OrdersPerUser, "orders each user has")
	pg := flag.String("postgres", "", "seed the Postgres server at this URL (its superuser's) instead of a file")
	fingerprint := flag.Bool("fingerprint", false, "write nothing that stays: print the checksum a seed of this size has (the bench records it before its first window)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: seed [--force] [--items N] [--events N] [--users N] [--orders-per-user M] PATH | seed [sizes] --postgres URL | seed [sizes] --fingerprint | seed checksum [--want SUM] TARGET | seed rows TARGET TABLE | seed trim [--events N] TARGET\n\nCreates a freshly seeded lab database at PATH, or an \"app\" database on a Postgres server (1,000 items, 1,000 bench_events, 100 users and 50 orders each unless --items, --events, --users, --orders-per-user say otherwise);\nchecksum and rows read one, trim deletes the bench_events rows written since the seed (TARGET: a SQLite file or a postgres:// URL of the app database).")
		flag.PrintDefaults()
	}
	flag.Parse()
	size := stacks.Size{Items: *items, Events: *events, Users: *users, OrdersPerUser: *perUser}
	if err := size.Check(); err != nil {
		fmt.Fprintln(os.Stderr, "seed: --items/--events/--users/--orders-per-user:", err)
		os.Exit(2)
	}
	if *fingerprint {
		if flag.NArg() != 0 || *pg != "" {
			flag.Usage()
			os.Exit(2)
		}
		sum, err := fingerprintOf(size)
		if err != nil {
			fmt.Fprintln(os.Stderr, "seed --fingerprint:", err)
			os.Exit(1)
		}
		fmt.Println(sum)
		return
	}
	if *pg != "" {
		if flag.NArg() != 0 {
			flag.Usage()
			os.Exit(2)
		}
		if _, err := databaseURL(*pg, "postgres"); err != nil {
			fmt.Fprintln(os.Stderr, "seed: --postgres:", err)
			os.Exit(2)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if err := seedPostgres(ctx, *pg, size); err != nil {
			fmt.Fprintln(os.Stderr, "seed: postgres:", err)
			os.Exit(1)
		}
		return
	}
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := seed(flag.Arg(0), *force, size); err != nil {
		fmt.Fprintln(os.Stderr, "seed:", err)
		os.Exit(1)
	}
}

// fingerprintOf is the checksum of a seed of size, written to a folder of
// its own and removed.
func fingerprintOf(size stacks.Size) (string, error) {
	dir, err := os.MkdirTemp("", "seed-fingerprint-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "app.db")
	if err := seed(path, false, size); err != nil {
		return "", err
	}
	return checksumOf(path)
}

// seed writes the database next to path under a temporary name and renames
// it into place, so a reader never opens half a seed.
func seed(path string, force bool, size stacks.Size) error {
	if _, err := os.Stat(path); err == nil && !force {
		return fmt.Errorf("%s exists (use --force to replace it)", path)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+filepath.Base(path)+".seeding")
	os.Remove(tmp)
	defer os.Remove(tmp)
	if err := write(tmp, size); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		os.Remove(path + suffix)
	}
	return os.Rename(tmp, path)
}

func write(path string, size stacks.Size) error {
	// Rollback journal off and one transaction: nothing but the main file is
	// written, and its bytes depend only on the rows.
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=OFF&_synchronous=OFF")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := stacks.SeedSQLite(tx, size); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return db.Close()
}

// query runs the checksum or rows subcommand; its exit status.
func query(cmd string, args []string) int {
	// checksum --want SUM: exit 1 unless the rows are the seed whose
	// checksum the bench recorded (the study's size, before any window)
	want := ""
	if cmd == "checksum" && len(args) > 1 && args[0] == "--want" {
		want, args = args[1], args[2:]
	}
	nargs := map[string]int{"checksum": 1, "rows": 2}[cmd]
	if len(args) != nargs {
		fmt.Fprintf(os.Stderr, "seed %s: want %d argument(s), got %d (see seed -h)\n", cmd, nargs, len(args))
		return 2
	}
	if !isPostgres(args[0]) {
		if _, err := os.Stat(args[0]); err != nil {
			fmt.Fprintf(os.Stderr, "seed %s: %s: not a database file or postgres:// URL\n", cmd, args[0])
			return 2
		}
	}
	if cmd == "checksum" {
		sum, err := checksumOf(args[0])
		if err != nil {
			fmt.Fprintf(os.Stderr, "seed checksum: %s: %v\n", args[0], err)
			return 1
		}
		fmt.Println(sum)
		if want != "" && sum != want {
			fmt.Fprintf(os.Stderr, "seed checksum: %s holds %s, not the seed the bench recorded (%s)\n", args[0], sum, want)
			return 1
		}
		return 0
	}
	n, err := countRows(args[0], args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "seed rows: %s: %v\n", args[0], err)
		return 1
	}
	fmt.Println(n)
	return 0
}
