// readcost answers: what does /bench/read's query cost as bench_events
// grows? docs/app.md's /bench/read takes COUNT(*) of the whole table with its 20
// newest rows, so every row a write case or a capacity step adds makes every
// later read dearer. The probe seeds a database as the lab does, grows the
// table in steps with rows like /bench/write's, and times the read at each
// size, with the SQLite library the Go stacks use (go-sqlite3).
package main

import (
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"stacklab/formats/cli"
	"stacklab/stacks"
)

const help = `readcost: what does /bench/read's query cost as bench_events grows?

Usage: readcost [--rows 1000,5000,10000,20000,40000] [--reads 300] [--dir DIR] [--out FILE]

Seeds a fresh WAL database in --dir (a temporary folder by default) with the
lab's rows (1,000 items, 1,000 bench_events), then for each size in --rows
adds 200-byte events until the table holds that many and times --reads runs
of /bench/read's query (COUNT(*) and the 20 newest rows, one statement) on
one connection. Prints a verdict line, then the median and p90 per size and
each size's cost over the seed's; --out writes one JSON object per size.
Pin it (taskset) to a CPU nothing else uses: it times a loop.

Examples:
  taskset -c 1 scripts/tool readcost
  taskset -c 1 scripts/tool readcost --rows 1000,20000,80000 --out readcost.jsonl
`

// The read, as the C stack words it: one statement, one snapshot.
const readQuery = "SELECT (SELECT count(*) FROM bench_events), id, created_at FROM bench_events ORDER BY id DESC LIMIT 20"

// Size is one measured table size.
type Size struct {
	Rows     int     `json:"rows"`
	Reads    int     `json:"reads"`
	MedianUs float64 `json:"median_us"`
	P90Us    float64 `json:"p90_us"`
}

func main() {
	fs := flag.NewFlagSet("readcost", flag.ContinueOnError)
	rowsFlag := fs.String("rows", "1000,5000,10000,20000,40000", "table sizes to time, ascending, the first at least the seed's 1000")
	reads := fs.Int("reads", 300, "reads timed at each size")
	dir := fs.String("dir", "", "folder for the database (default: a temporary one, removed after)")
	out := fs.String("out", "", "JSON lines, one per size")
	cli.Parse(fs, os.Args[1:], help)
	sizes, err := parseRows(*rowsFlag)
	if err != nil {
		cli.Usage("readcost", "--rows: %v", err)
	}
	if *reads < 10 {
		cli.Usage("readcost", "--reads %d: want 10 or more", *reads)
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "readcost-")
		if err != nil {
			cli.Fail("readcost", "%v", err)
		}
		defer os.RemoveAll(d)
		*dir = d
	} else {
		cli.RequireDir("readcost", *dir)
	}
	got, err := measure(filepath.Join(*dir, "readcost.db"), sizes, *reads)
	if err != nil {
		cli.Fail("readcost", "%v", err)
	}
	enc, closer := cli.JSONLines("readcost", *out)
	defer closer.Close()
	report(os.Stdout, got)
	if enc != nil {
		for _, s := range got {
			if err := enc.Encode(s); err != nil {
				cli.Fail("readcost", "--out: %v", err)
			}
		}
	}
}

func parseRows(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%q is not a row count", f)
		}
		if n < stacks.DefaultSize.Events || (len(out) > 0 && n <= out[len(out)-1]) {
			return nil, fmt.Errorf("%d: want ascending sizes from the seed's %d", n, stacks.DefaultSize.Events)
		}
		out = append(out, n)
	}
	return out, nil
}

func measure(path string, sizes []int, reads int) ([]Size, error) {
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_synchronous=NORMAL")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := seedRows(db); err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	have := stacks.DefaultSize.Events
	payload := strings.Repeat("x", 200)
	var out []Size
	for _, n := range sizes {
		if err := grow(db, n-have, payload); err != nil {
			return nil, err
		}
		have = n
		s, err := timeReads(db, reads)
		if err != nil {
			return nil, err
		}
		s.Rows = n
		out = append(out, s)
	}
	return out, nil
}

func seedRows(db *sql.DB) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := stacks.SeedSQLite(tx, stacks.DefaultSize); err != nil {
		return err
	}
	return tx.Commit()
}

// grow adds n rows like /bench/write's, then checkpoints, so each size is
// read from the main file as an app's auto-checkpoint leaves it.
func grow(db *sql.DB, n int, payload string) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	now := time.Now().UnixMilli()
	for i := 0; i < n; i++ {
		if _, err := tx.Exec("INSERT INTO bench_events(payload, created_at) VALUES (?, ?)", payload, now); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	_, err = db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	return err
}

func timeReads(db *sql.DB, reads int) (Size, error) {
	stmt, err := db.Prepare(readQuery)
	if err != nil {
		return Size{}, err
	}
	defer stmt.Close()
	one := func() error {
		rows, err := stmt.Query()
		if err != nil {
			return err
		}
		defer rows.Close()
		var count, id, created int64
		for rows.Next() {
			if err := rows.Scan(&count, &id, &created); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	for i := 0; i < 10; i++ { // the page cache warm, as an app's is
		if err := one(); err != nil {
			return Size{}, err
		}
	}
	us := make([]float64, reads)
	for i := range us {
		t := time.Now()
		if err := one(); err != nil {
			return Size{}, err
		}
		us[i] = float64(time.Since(t).Nanoseconds()) / 1e3
	}
	sort.Float64s(us)
	return Size{Reads: reads, MedianUs: us[len(us)/2], P90Us: us[len(us)*9/10]}, nil
}

func report(w *os.File, got []Size) {
	first, last := got[0], got[len(got)-1]
	perK := 0.0
	if last.Rows > first.Rows {
		perK = (last.MedianUs - first.MedianUs) / float64(last.Rows-first.Rows) * 1000
	}
	fmt.Fprintf(w, "readcost: /bench/read's query took %.0f µs at %d rows and %.0f µs at %d (%.1f×): %.1f µs more per 1,000 rows\n",
		first.MedianUs, first.Rows, last.MedianUs, last.Rows, last.MedianUs/first.MedianUs, perK)
	fmt.Fprintf(w, "%10s %12s %10s %10s\n", "rows", "median µs", "p90 µs", "× seed")
	for _, s := range got {
		fmt.Fprintf(w, "%10d %12.1f %10.1f %10.1f\n", s.Rows, s.MedianUs, s.P90Us, s.MedianUs/first.MedianUs)
	}
}
