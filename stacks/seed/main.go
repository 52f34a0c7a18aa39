// Command seed creates the lab app's SQLite database: stacks/schema.sql plus a
// deterministic seed (1,000 items with awkward titles, 1,000 bench_events).
// The same SQLite library and the same code give the same bytes every time,
// so every stack starts each case from an identical file.
//
//	seed PATH            create PATH (refuses to overwrite)
//	seed --force PATH    replace PATH
package main

import (
	"database/sql"
	_ "embed"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	_ "github.com/mattn/go-sqlite3"

	"stacklab/stacks"
)

func main() {
	force := flag.Bool("force", false, "replace PATH if it exists")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: seed [--force] PATH\n\nCreates a freshly seeded lab database at PATH (1,000 items, 1,000 bench_events).")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := seed(flag.Arg(0), *force); err != nil {
		fmt.Fprintln(os.Stderr, "seed:", err)
		os.Exit(1)
	}
}

// seed writes the database next to path under a temporary name and renames
// it into place, so a reader never opens half a seed.
func seed(path string, force bool) error {
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
	if err := write(tmp); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		os.Remove(path + suffix)
	}
	return os.Rename(tmp, path)
}

func write(path string) error {
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
	if _, err := tx.Exec(stacks.Schema); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	for _, it := range stacks.Items() {
		if _, err := tx.Exec(`INSERT INTO items(id, title, body, created_at) VALUES (?, ?, ?, ?)`,
			it.ID, it.Title, it.Body, it.CreatedAt); err != nil {
			return err
		}
	}
	for _, ev := range stacks.Events() {
		if _, err := tx.Exec(`INSERT INTO bench_events(id, payload, created_at) VALUES (?, ?, ?)`,
			ev.ID, ev.Payload, ev.CreatedAt); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return db.Close()
}
