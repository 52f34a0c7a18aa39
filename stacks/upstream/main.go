// Command upstream is the lab's mock upstream: GET /delay?ms=N sleeps N
// milliseconds and answers 200 {"ok":true}. The io study's upstream case
// drives 512 keep-alive connections through a stack to it, so it must never
// be the bottleneck: Go's default server (one goroutine per connection, no
// connection limit) and no per-request logging. With MODE=stub it is
// instead the cheapest server the lab has (stub.go): every request gets
// {"ok":true} at once, for the load generator's headroom.
package main

import (
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
)

const (
	defaultDelay = 100 * time.Millisecond
	maxDelayMS   = 10000
)

var okBody = []byte(`{"ok":true}`)

// newHandler returns the upstream's routes. sleep is time.Sleep in
// production and a recorder in tests.
func newHandler(sleep func(time.Duration)) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /delay", func(w http.ResponseWriter, r *http.Request) {
		d, err := parseDelay(r.URL.Query())
		if err != nil {
			writeJSON(w, http.StatusBadRequest, []byte(fmt.Sprintf(`{"ok":false,"error":%q}`, err.Error())))
			return
		}
		sleep(d)
		writeJSON(w, http.StatusOK, okBody)
	})
	return mux
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
	if mode != "" && mode != "delay" && mode != "stub" {
		fmt.Fprintf(os.Stderr, "upstream: MODE must be delay (the default) or stub, got %q\n", mode)
		os.Exit(2)
	}
	srv := &http.Server{
		Addr:              "0.0.0.0:" + port,
		Handler:           newHandler(time.Sleep),
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
	if mode == "stub" {
		serve, what = serveStub, "upstream: the stub, listening on %s"
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
	if mode == "stub" {
		ln.Close() // its answers take no time: nothing is in flight to wait for
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
