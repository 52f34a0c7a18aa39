// sqliteinfo answers: how is this SQLite built, and does every pooled
// connection carry the pragmas? It reports the build's compile options and
// flags the ones that make threads queue; it opens a pool the naive way and
// the right way and shows each connection's pragmas; and given --url it asks a
// running stack's /bench/pragmas many times at once and reports each answer.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"stacklab/formats/cli"
)

const help = `sqliteinfo: how is this SQLite built, and do pooled connections carry the pragmas?

Usage: sqliteinfo [--pool 6] [--url http://127.0.0.1:PORT [--requests 300] [--concurrency 32]] [--out FILE]

Without --url: the build of the SQLite linked into this program (go-sqlite3)
and of the system's sqlite3 CLI (Debian's libsqlite3, which the Ruby and
Python stacks load), then a pool of --pool connections opened twice:
  naive:  the contract's PRAGMAs run once through db.Exec (the seed's bug);
          the DSN sets synchronous=FULL, SQLite's own default, explicitly,
          because go-sqlite3 would otherwise set NORMAL on every open
  hooked: a ConnectHook runs them on every new connection
With --url: also GET /bench/pragmas --requests times, --concurrency at once,
and list every distinct answer against the contract (docs/app.md).

Examples:
  sqliteinfo
  sqliteinfo --pool 16 --out pragmas.jsonl
  sqliteinfo --url http://127.0.0.1:8080 --requests 500 --concurrency 64
`

func main() {
	fs := flag.NewFlagSet("sqliteinfo", flag.ContinueOnError)
	pool := fs.Int("pool", 6, "connections in the demo pools")
	rawURL := fs.String("url", "", "a running stack to sample (loopback only)")
	requests := fs.Int("requests", 300, "GET /bench/pragmas this many times")
	conc := fs.Int("concurrency", 32, "requests in flight at once")
	out := fs.String("out", "", "write the findings as JSON lines here")
	cli.Parse(fs, os.Args[1:], help)
	if *pool < 1 || *pool > 1000 {
		cli.Usage("sqliteinfo", "--pool %d: want 1 to 1000", *pool)
	}
	if *requests < 1 || *conc < 1 {
		cli.Usage("sqliteinfo", "--requests and --concurrency must be positive")
	}
	var records []any
	ctx := context.Background()

	builds := []Build{linkedBuild()}
	if b, ok := cliBuild(); ok {
		builds = append(builds, b)
	}
	dir, err := os.MkdirTemp("", "stacklab-sqliteinfo-")
	if err != nil {
		cli.Fail("sqliteinfo", "temp dir: %v", err)
	}
	defer os.RemoveAll(dir)
	naive, err := demo(ctx, filepath.Join(dir, "naive.db"), *pool, false)
	if err != nil {
		os.RemoveAll(dir)
		cli.Fail("sqliteinfo", "naive pool: %v", err)
	}
	hooked, err := demo(ctx, filepath.Join(dir, "hooked.db"), *pool, true)
	if err != nil {
		os.RemoveAll(dir)
		cli.Fail("sqliteinfo", "hooked pool: %v", err)
	}

	var answers []Answer
	var failures map[string]int
	if *rawURL != "" {
		u, err := checkLoopback(*rawURL)
		if err != nil {
			os.RemoveAll(dir)
			cli.Usage("sqliteinfo", "%v", err)
		}
		answers, failures, _ = samplePragmas(ctx, u, *requests, *conc)
	}

	fmt.Println(verdict(builds[0], naive, hooked, *rawURL != "", answers, failures))
	for _, b := range builds {
		fmt.Printf("\n%s: SQLite %s\n", b.Name, b.Version)
		for _, f := range b.Judge() {
			mark := "  "
			if f.Serialises {
				mark = "! "
			}
			fmt.Printf("  %s%s\n", mark, f.Text)
		}
		records = append(records, map[string]any{"kind": "build", "build": b})
	}
	fmt.Printf("\nnaive pool, %d connections (PRAGMAs once through db.Exec; DSN %s):\n", *pool, naiveDSN("…"))
	printConns(os.Stdout, naive)
	fmt.Printf("\nhooked pool, %d connections (ConnectHook runs the PRAGMAs on every new connection):\n", *pool)
	printConns(os.Stdout, hooked)
	for _, c := range append(naive, hooked...) {
		records = append(records, map[string]any{"kind": "connection", "connection": c})
	}
	if *rawURL != "" {
		fmt.Printf("\n%s/bench/pragmas, %d requests, %d at once: %d distinct answers\n", strings.TrimSuffix(*rawURL, "/"), *requests, *conc, len(answers))
		for _, a := range answers {
			state := "matches the contract"
			if m := mismatches(a.Body); len(m) > 0 {
				state = "OFF CONTRACT: " + strings.Join(m, ", ")
			}
			fmt.Printf("  %5d× %s\n         %s\n", a.Count, a.Body, state)
			records = append(records, map[string]any{"kind": "answer", "answer": a, "mismatches": mismatches(a.Body)})
		}
		for f, n := range failures {
			fmt.Printf("  %5d× failed: %s\n", n, f)
		}
	}
	if *out != "" {
		if err := writeJSONLines(*out, records); err != nil {
			os.RemoveAll(dir)
			cli.Fail("sqliteinfo", "--out %s: %v", *out, err)
		}
	}
}

func linkedBuild() Build {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		cli.Fail("sqliteinfo", "open: %v", err)
	}
	defer db.Close()
	b := Build{Name: "go-sqlite3 (linked into this probe)", ThreadSafe: threadsafe()}
	db.QueryRow("select sqlite_version()").Scan(&b.Version)
	rows, err := db.Query("PRAGMA compile_options")
	if err != nil {
		cli.Fail("sqliteinfo", "PRAGMA compile_options: %v", err)
	}
	for rows.Next() {
		var o string
		rows.Scan(&o)
		b.Options = append(b.Options, o)
	}
	rows.Close()
	// allocate something, then see whether SQLite counted it
	db.Exec("create table t(x); insert into t values (randomblob(10000))")
	on := memStatusOn()
	b.MemStatus = &on
	return b
}

// cliBuild asks the system's sqlite3 shell; -stats prints "Memory Used: 0"
// when memory statistics are off.
func cliBuild() (Build, bool) {
	if _, err := exec.LookPath("sqlite3"); err != nil {
		return Build{}, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	opts, err := exec.CommandContext(ctx, "sqlite3", ":memory:", "PRAGMA compile_options").Output()
	if err != nil {
		return Build{}, false
	}
	b := Build{Name: "sqlite3 CLI (" + libPath() + ")", Options: ParseOptions(string(opts)), ThreadSafe: -1}
	ver, _ := exec.CommandContext(ctx, "sqlite3", ":memory:", "select sqlite_version()").Output()
	b.Version = strings.TrimSpace(string(ver))
	stats, _ := exec.CommandContext(ctx, "sqlite3", "-stats", ":memory:", "select 1").Output()
	if on, ok := parseMemoryUsed(string(stats)); ok {
		b.MemStatus = &on
	}
	return b, true
}

func libPath() string {
	out, err := exec.Command("sh", "-c", "ldd \"$(command -v sqlite3)\" | awk '/libsqlite3/ {print $3}'").Output()
	if p := strings.TrimSpace(string(out)); err == nil && p != "" {
		return p
	}
	return "system"
}

// parseMemoryUsed reads "Memory Used:  20624 (max 24512) bytes" from -stats.
func parseMemoryUsed(stats string) (on, ok bool) {
	for _, l := range strings.Split(stats, "\n") {
		if rest, found := strings.CutPrefix(strings.TrimSpace(l), "Memory Used:"); found {
			f := strings.Fields(rest)
			return len(f) > 0 && f[0] != "0", len(f) > 0
		}
	}
	return false, false
}

func demo(ctx context.Context, path string, n int, hooked bool) ([]ConnPragmas, error) {
	db, err := openPool(path, n, hooked)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	name := "naive"
	if hooked {
		name = "hooked"
	}
	return inspectPool(ctx, db, n, name)
}

func printConns(w io.Writer, conns []ConnPragmas) {
	fmt.Fprintf(w, "  %4s  %-11s %-12s %-10s %-10s %-18s %-12s %s\n", "conn", "synchronous", "busy_timeout", "cache_size", "mmap_size", "journal_size_limit", "foreign_keys", "journal_mode")
	for _, c := range conns {
		v := c.Values
		fmt.Fprintf(w, "  %4d  %-11s %-12s %-10s %-10s %-18s %-12s %s\n", c.Conn, syncName(v["synchronous"]), v["busy_timeout"], v["cache_size"], v["mmap_size"], v["journal_size_limit"], v["foreign_keys"], v["journal_mode"])
	}
}

func verdict(b Build, naive, hooked []ConnPragmas, sampled bool, answers []Answer, failures map[string]int) string {
	var parts []string
	serial := 0
	for _, f := range b.Judge() {
		if f.Serialises {
			serial++
		}
	}
	if b.MemStatus != nil && *b.MemStatus {
		parts = append(parts, "this build counts memory (a global mutex on every allocation)")
	} else if serial == 0 {
		parts = append(parts, "this build has no option that serialises threads")
	}
	parts = append(parts, fmt.Sprintf("naive pool: %d of %d connections off the contract (synchronous %s on %d)",
		offAny(naive), len(naive), syncName("2"), countSync(naive, "2")))
	parts = append(parts, fmt.Sprintf("hooked pool: %d of %d at NORMAL", countSync(hooked, "1"), len(hooked)))
	if sampled {
		off := 0
		for _, a := range answers {
			if len(mismatches(a.Body)) > 0 {
				off += a.Count
			}
		}
		nf := 0
		for _, n := range failures {
			nf += n
		}
		switch {
		case len(answers) == 0:
			parts = append(parts, fmt.Sprintf("--url: no answer (%d failures)", nf))
		case off == 0 && nf == 0:
			parts = append(parts, fmt.Sprintf("--url: every answer matches the contract (%d distinct)", len(answers)))
		default:
			parts = append(parts, fmt.Sprintf("--url: %d answers OFF the contract, %d failed", off, nf))
		}
	}
	return "sqliteinfo: " + strings.Join(parts, "; ")
}

func offAny(conns []ConnPragmas) int {
	n := 0
	for _, c := range conns {
		for _, p := range Contract {
			if c.Values[p.Name] != p.Want {
				n++
				break
			}
		}
	}
	return n
}

func countSync(conns []ConnPragmas, v string) int {
	n := 0
	for _, c := range conns {
		if c.Values["synchronous"] == v {
			n++
		}
	}
	return n
}

func writeJSONLines(path string, records []any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, r := range records {
		if err := enc.Encode(r); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}
