// Command capture records the schema of a real oha --db-url file, which
// package latencyline's tests build their databases from: it serves a
// small HTTP server on 127.0.0.1 that stops answering for 300 ms from
// 400 ms, runs oha against it for one second on two connections, and keeps
// only the table's CREATE statement (the db itself is deleted). It also
// prints the timeline built from that db, the README's example.
//
//	go run ./formats/latencyline/testdata/capture OHA_BINARY
//
// It writes oha.schema.sql beside this folder and the oha line of
// versions.txt (the vegeta line says how the CSV fixtures were made).
package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"stacklab/formats/latencyline"
)

const addr = "127.0.0.1:18411"

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: capture OHA_BINARY")
		os.Exit(2)
	}
	if err := capture(os.Args[1], filepath.Join("analysis", "latencyline", "testdata")); err != nil {
		fmt.Fprintln(os.Stderr, "capture:", err)
		os.Exit(1)
	}
}

func capture(oha, out string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	begin := time.Now() // set before the server runs: the handler only reads it
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A planted app stall: every request in [400 ms, 700 ms) waits for its end.
		if since := time.Since(begin); since >= 400*time.Millisecond && since < 700*time.Millisecond {
			time.Sleep(700*time.Millisecond - since)
		}
		w.Write([]byte("ok"))
	})}
	go srv.Serve(ln)
	defer srv.Close()

	dir, err := os.MkdirTemp("", "latencyline-capture")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "window.db")
	start := time.Now().UnixNano() // as the bench takes it: just before oha starts
	cmd := exec.Command(oha, "-z", "1s", "-c", "2", "--no-tui", "--output-format", "quiet", "--db-url", db, "http://"+addr+"/")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("oha: %v: %s", err, b)
	}

	conn, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
	if err != nil {
		return err
	}
	var schema string
	err = conn.QueryRow(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'oha'`).Scan(&schema)
	conn.Close()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "oha.schema.sql"), []byte(schema+";\n"), 0o644); err != nil {
		return err
	}
	v, err := exec.Command(oha, "--version").Output()
	if err != nil {
		return err
	}
	if err := setVersion(filepath.Join(out, "versions.txt"), strings.TrimSpace(string(v))); err != nil {
		return err
	}

	reqs, err := latencyline.ReadOhaDB(db)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := latencyline.Write(&buf, latencyline.Build(start, latencyline.SourceOha, reqs, 0)); err != nil {
		return err
	}
	fmt.Printf("%s%s (%d requests, %d bytes of db kept as %d bytes of timeline)\n",
		schema, ";", len(reqs), size(db), buf.Len())
	fmt.Print(strings.TrimSpace(buf.String()) + "\n")
	return nil
}

func size(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// setVersion replaces the "oha ..." line of the file at path with line.
func setVersion(path, line string) error {
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	out := []string{line}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l != "" && !strings.HasPrefix(l, "oha ") {
			out = append(out, l)
		}
	}
	return os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o644)
}
