package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"stacklab/stacks"
)

// trim runs `seed trim TARGET`; its exit status. A SQLite file that is not
// there is a user's own app keeping its data elsewhere: nothing to trim.
func trim(args []string) int {
	fl := flag.NewFlagSet("seed trim", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	// the seed's size as the bench passes it to every seed command; the
	// rows written since the seed are the events above its count
	events := fl.Int("events", stacks.DefaultSize.Events, "the bench_events the seed wrote (its --events)")
	fl.Int("items", 0, "(the seed's; not used here)")
	fl.Int("users", 0, "(the seed's; not used here)")
	fl.Int("orders-per-user", 0, "(the seed's; not used here)")
	if err := fl.Parse(args); err != nil || *events < 1 {
		fmt.Fprintln(os.Stderr, "seed trim: [--events N] TARGET: want the seed's count of events, 1 or more (see seed -h)")
		return 2
	}
	args = fl.Args()
	if len(args) != 1 {
		fmt.Fprintf(os.Stderr, "seed trim: want 1 argument, got %d (see seed -h)\n", len(args))
		return 2
	}
	if _, err := os.Stat(args[0]); err != nil && !isPostgres(args[0]) {
		fmt.Printf("no database file at %s: nothing trimmed\n", args[0])
		return 0
	}
	gone, has, err := trimEvents(args[0], *events)
	switch {
	case err != nil:
		fmt.Fprintf(os.Stderr, "seed trim: %s: %v\n", args[0], err)
		return 1
	case !has:
		fmt.Println("no bench_events table: nothing trimmed")
	default:
		fmt.Printf("bench_events: %d rows written since the seed deleted\n", gone)
	}
	return 0
}

// trimEvents deletes the bench_events rows a running app wrote since the
// seed (every id above the seed's), in the app's database at target (a
// SQLite file or a postgres:// URL), and says how many went. A capacity
// ramp runs it before each step: /bench/read counts the whole table, so
// without it a step's cost per request grows with the rows every earlier
// step wrote (docs/capacity.md). A database with no bench_events table
// (a user's own app) is left alone.
func trimEvents(target string, seeded int) (int64, bool, error) {
	q := fmt.Sprintf("DELETE FROM bench_events WHERE id > %d", seeded)
	if isPostgres(target) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, target)
		if err != nil {
			return 0, false, err
		}
		defer c.Close(ctx)
		var has bool
		if err := c.QueryRow(ctx, "SELECT to_regclass('bench_events') IS NOT NULL").Scan(&has); err != nil || !has {
			return 0, false, err
		}
		tag, err := c.Exec(ctx, q)
		return tag.RowsAffected(), true, err
	}
	// The app holds the file open: wait for its write lock rather than
	// fail, and keep the journal mode the app chose (the file records it).
	db, err := sql.Open("sqlite3", "file:"+target+"?_busy_timeout=10000")
	if err != nil {
		return 0, false, err
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'bench_events'").Scan(&n); err != nil || n == 0 {
		return 0, false, err
	}
	res, err := db.Exec(q)
	if err != nil {
		return 0, true, err
	}
	gone, err := res.RowsAffected()
	return gone, true, err
}
