// Command capture records the real oha output that package oha's tests
// read: it serves three small HTTP servers on 127.0.0.1 (all good; every
// 5th answer a 500; every 7th request's connection dropped) and runs oha
// against each for two seconds.
//
//	go run ./formats/oha/testdata/capture OHA_BINARY
//
// It writes ok.json, status500.json and connerrors.json beside this
// folder, and versions.txt with `oha --version`.
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"time"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: capture OHA_BINARY")
		os.Exit(2)
	}
	oha := os.Args[1]
	out := filepath.Join("analysis", "oha", "testdata")
	var n500, ndrop atomic.Int64
	servers := []struct {
		file string
		addr string
		h    http.HandlerFunc
	}{
		{"ok.json", "127.0.0.1:18401", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("ok"))
		}},
		{"status500.json", "127.0.0.1:18402", func(w http.ResponseWriter, r *http.Request) {
			if n500.Add(1)%5 == 0 {
				http.Error(w, "boom", http.StatusInternalServerError)
				return
			}
			w.Write([]byte("ok"))
		}},
		{"connerrors.json", "127.0.0.1:18403", func(w http.ResponseWriter, r *http.Request) {
			if ndrop.Add(1)%7 == 0 {
				// Drop the connection without an answer: oha sees a
				// connection error, not an HTTP status.
				if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
					c.Close()
				}
				return
			}
			w.Write([]byte("ok"))
		}},
	}
	for _, s := range servers {
		ln, err := net.Listen("tcp", s.addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "capture:", err)
			os.Exit(1)
		}
		srv := &http.Server{Handler: s.h}
		go srv.Serve(ln)
		cmd := exec.Command(oha, "-z", "2s", "-c", "8", "--no-tui", "--output-format", "json", "http://"+s.addr+"/")
		b, err := cmd.Output()
		srv.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, "capture: oha:", err)
			os.Exit(1)
		}
		if err := os.WriteFile(filepath.Join(out, s.file), b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "capture:", err)
			os.Exit(1)
		}
		fmt.Printf("%s: %d bytes\n", s.file, len(b))
		time.Sleep(200 * time.Millisecond)
	}
	v, _ := exec.Command(oha, "--version").Output()
	os.WriteFile(filepath.Join(out, "versions.txt"), v, 0o644)
}
