// Command upstream is the lab's mock upstream: GET /delay?ms=N sleeps N
// milliseconds and answers 200 {"ok":true}. The io study's upstream case
// drives 512 keep-alive connections through a stack to it, so it must never
// be the bottleneck: Go's default server (one goroutine per connection, no
// connection limit) and no per-request logging. With MODE=stub it is
// instead the cheapest server the lab has (stub.go): every request gets
// {"ok":true} at once, for the load generator's headroom; with MODE=echo
// it sends back every byte it gets (echo.go), for the raw network path.
//
// It keeps a record of its own lateness (formats/uplog): how much longer
// than asked each delay took inside it, in 100 ms buckets, answered by
// GET /lateness?from_ms=A&to_ms=B, so that a slow request through it can
// be told apart from a slow upstream.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"stacklab/formats/uplog"
)

const (
	defaultDelay = 100 * time.Millisecond
	maxDelayMS   = 10000
)

var okBody = []byte(`{"ok":true}`)

// newHandler returns the upstream's routes. sleep is time.Sleep in
// production and a recorder in tests; late counts every delay's answer.
func newHandler(sleep func(time.Duration), late *uplog.Recorder) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /delay", func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		d, err := parseDelay(r.URL.Query())
		if err != nil {
			writeJSON(w, http.StatusBadRequest, []byte(fmt.Sprintf(`{"ok":false,"error":%q}`, err.Error())))
			return
		}
		sleep(d)
		writeJSON(w, http.StatusOK, okBody)
		end := time.Now()
		late.Add(end, end.Sub(start)-d)
	})
	mux.HandleFunc("GET /lateness", func(w http.ResponseWriter, r *http.Request) {
		from, err1 := parseUnixMs(r.URL.Query(), "from_ms")
		to, err2 := parseUnixMs(r.URL.Query(), "to_ms")
		if err := errors.Join(err1, err2); err != nil {
			writeJSON(w, http.StatusBadRequest, []byte(fmt.Sprintf(`{"ok":false,"error":%q}`, err.Error())))
			return
		}
		var b bytes.Buffer
		if err := late.Write(&b, from, to); err != nil {
			writeJSON(w, http.StatusBadRequest, []byte(fmt.Sprintf(`{"ok":false,"error":%q}`, err.Error())))
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
		w.Write(b.Bytes())
	})
	return mux
}

// parseUnixMs reads a time given as unix milliseconds.
func parseUnixMs(q map[string][]string, key string) (time.Time, error) {
	v, ok := q[key]
	if !ok {
		return time.Time{}, fmt.Errorf("%s is required (unix milliseconds)", key)
	}
	n, err := strconv.ParseInt(v[0], 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}, fmt.Errorf("%s must be unix milliseconds, got %q", key, v[0])
	}
	return time.UnixMilli(n), nil
}

// parseDelay reads ms: absent means the default; anything that is not an
// integer in [0, 10000] is refused.
func parseDelay(q map[string][]string) (time.Duration, error) {
	v, ok := q["ms"]
	if !ok {
		return defaultDelay, nil
	}
	n, err := strconv.Atoi(v[0])
	if err != nil || n < 0 || n > maxDelayMS {
		return 0, fmt.Errorf("ms must be an integer from 0 to %d, got %q", maxDelayMS, v[0])
	}
	return time.Duration(n) * time.Millisecond, nil
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "9090"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		fmt.Fprintf(os.Stderr, "upstream: PORT must be a TCP port number, got %q\n", port)
		os.Exit(2)
	}
	mode := os.Getenv("MODE")
	if mode != "" && mode != "delay" && mode != "stub" && mode != "echo" {
		fmt.Fprintf(os.Stderr, "upstream: MODE must be delay (the default), stub or echo, got %q\n", mode)
		os.Exit(2)
	}
	srv := &http.Server{
		Addr:              "0.0.0.0:" + port,
		Handler:           newHandler(time.Sleep, uplog.NewRecorder()),
		ReadHeaderTimeout: 10 * time.Second,
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	ln, err := net.Listen("tcp4", srv.Addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "upstream: %v\n", err)
		os.Exit(1)
	}
	serve, what := srv.Serve, "upstream: listening on %s"
	switch mode {
	case "stub":
		serve, what = serveStub, "upstream: the stub, listening on %s"
	case "echo":
		serve, what = serveEcho, "upstream: the echo, listening on %s"
	}
	errc := make(chan error, 1)
	go func() { errc <- serve(ln) }()
	log.Printf(what, ln.Addr())
	select {
	case err := <-errc:
		fmt.Fprintf(os.Stderr, "upstream: %v\n", err)
		os.Exit(1)
	case <-ctx.Done():
	}
	if mode == "stub" || mode == "echo" {
		ln.Close() // their answers take no time: nothing is in flight to wait for
		return
	}
	// In-flight delays are at most 10 s; the lab stops the upstream after its
	// load, so 4 s leaves room under Docker's 10 s stop timeout.
	sctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(os.Stderr, "upstream: shutdown: %v\n", err)
		os.Exit(1)
	}
}
