// Command capture records the real vegeta output that package vegeta's
// tests read: it serves a small HTTP server on 127.0.0.1 (all good; every
// 5th answer a 500; every 7th answer too late for vegeta's 100 ms
// timeout, so vegeta records status 0 and the error) and runs
// vegeta attack | vegeta report -type=json against each path for two
// seconds at 200 req/s.
//
//	go run ./formats/vegeta/testdata/capture VEGETA_BINARY [PORT]
//
// It writes ok.json, status500.json and connerrors.json beside this
// folder, and versions.txt with `vegeta -version`. PORT defaults to 24080.
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: capture VEGETA_BINARY [PORT]")
		os.Exit(2)
	}
	vegeta, port := os.Args[1], "24080"
	if len(os.Args) > 2 {
		port = os.Args[2]
	}
	out := filepath.Join("analysis", "vegeta", "testdata")
	var n500, ndrop atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	mux.HandleFunc("/status500", func(w http.ResponseWriter, r *http.Request) {
		if n500.Add(1)%5 == 0 {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		w.Write([]byte("ok"))
	})
	mux.HandleFunc("/connerrors", func(w http.ResponseWriter, r *http.Request) {
		if ndrop.Add(1)%7 == 0 {
			// (A dropped connection would not do: Go's client retries
			// an idempotent request on a reused connection.)
			time.Sleep(300 * time.Millisecond)
		}
		w.Write([]byte("ok"))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		fail(err)
	}
	go http.Serve(ln, mux)
	for _, name := range []string{"ok", "status500", "connerrors"} {
		target := fmt.Sprintf(`{"method":"GET","url":"http://127.0.0.1:%s/%s","header":{"Accept-Encoding":["identity"]}}`, port, name)
		attack := exec.Command(vegeta, "attack", "-format", "json", "-rate", "200/1s", "-duration", "2s", "-max-body", "0", "-timeout", "100ms")
		attack.Stdin = strings.NewReader(target + "\n")
		report := exec.Command(vegeta, "report", "-type=json")
		pipe, err := attack.StdoutPipe()
		if err != nil {
			fail(err)
		}
		report.Stdin = pipe
		f, err := os.Create(filepath.Join(out, name+".json"))
		if err != nil {
			fail(err)
		}
		report.Stdout = f
		if err := report.Start(); err != nil {
			fail(err)
		}
		if err := attack.Run(); err != nil {
			fail(err)
		}
		if err := report.Wait(); err != nil {
			fail(err)
		}
		f.Close()
	}
	v, err := exec.Command(vegeta, "-version").Output()
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile(filepath.Join(out, "versions.txt"), v, 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "capture:", err)
	os.Exit(1)
}
