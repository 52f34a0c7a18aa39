// closedloop answers: how many answers a second does a plain closed-loop
// client read from a server, counted as oha counts them (answers that end
// in the window) and as a generator that counts requests started in the
// window does? It is the lab's second client for the same server: set
// beside oha's figure on the same pins, it separates what is the
// generator's from what is the server's (docs/trust.md).
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"stacklab/formats/cli"
)

const help = `closedloop: how many answers a second does a plain closed-loop client read
from a server, counted as oha counts (answers that end in the window) and
as requests started in the window?

Usage: closedloop --url http://127.0.0.1:PORT/PATH --connections N [--warmup 3s]
                  [--duration 15s] [--header 'K: V']... [--out FILE]

--connections goroutines (the bench's windows use the host profile's
CONNECTIONS: give the same), each with one keep-alive connection of Go's
net/http (no compression asked, as the bench asks oha for none), send GETs
back to back through the warm-up and then the window; a request started in
the window is waited for after it. Prints a verdict line, then both counts,
the answers that were not 2xx, the errors, and the median and p99 of the
answers that ended in the window; --out writes them as one JSON object.
Pin it (taskset) to the generator's CPUs, as the bench pins oha.

Examples:
  taskset -c 1 scripts/tool closedloop --url http://127.0.0.1:8080/up --connections 32
  taskset -c 1 scripts/tool closedloop --url http://127.0.0.1:8080/page --connections 32 --out page.client.json
`

// Result is one window's figures.
type Result struct {
	URL         string  `json:"url"`
	Connections int     `json:"connections"`
	WindowS     float64 `json:"window_s"`
	// Ended counts the 2xx answers that ended in the window (oha's count),
	// Started the 2xx answers to requests started in it.
	Ended      int64   `json:"answers_ended"`
	Started    int64   `json:"answers_started"`
	EndedRPS   float64 `json:"ended_per_s"`
	StartedRPS float64 `json:"started_per_s"`
	Non2xx     int64   `json:"non_2xx"`
	Errors     int64   `json:"errors"`
	P50Ms      float64 `json:"p50_ms"`
	P99Ms      float64 `json:"p99_ms"`
}

type headers []string

func (h *headers) String() string     { return strings.Join(*h, ", ") }
func (h *headers) Set(v string) error { *h = append(*h, v); return nil }

func main() {
	fs := flag.NewFlagSet("closedloop", flag.ContinueOnError)
	url := fs.String("url", "", "the route, http://127.0.0.1:PORT/PATH")
	conns := fs.Int("connections", 0, "connections, one goroutine each (required: the bench's are the host profile's CONNECTIONS)")
	warmup := fs.Duration("warmup", 3*time.Second, "load before the window, not counted")
	window := fs.Duration("duration", 15*time.Second, "the window counted")
	out := fs.String("out", "", "the result as one JSON object")
	var hs headers
	fs.Var(&hs, "header", "a request header, 'K: V' (repeatable)")
	cli.Parse(fs, os.Args[1:], help)
	if p := check(*url, *conns, *warmup, *window, hs); p != "" {
		cli.Usage("closedloop", "%s", p)
	}
	r := Run(*url, *conns, *warmup, *window, hs)
	fmt.Println(Verdict(r))
	fmt.Printf("  answers ended in the window:       %d (%.0f/s)\n  answers to requests started in it: %d (%.0f/s)\n  not 2xx: %d, errors: %d\n",
		r.Ended, r.EndedRPS, r.Started, r.StartedRPS, r.Non2xx, r.Errors)
	enc, closer := cli.JSONLines("closedloop", *out)
	defer closer.Close()
	if enc != nil {
		if err := enc.Encode(r); err != nil {
			cli.Fail("closedloop", "--out: %v", err)
		}
	}
	if r.Ended == 0 {
		cli.Fail("closedloop", "no 2xx answer ended in the window (%d errors, %d not 2xx)", r.Errors, r.Non2xx)
	}
}

// check says what is wrong with the flags in one line, or "".
func check(url string, conns int, warmup, window time.Duration, hs []string) string {
	switch {
	case !strings.HasPrefix(url, "http://127.0.0.1:"):
		return fmt.Sprintf("--url %q: the lab targets http://127.0.0.1:PORT/PATH only", url)
	case conns < 1:
		return fmt.Sprintf("--connections %d: want 1 or more (the bench's windows use the host profile's CONNECTIONS)", conns)
	case warmup < 0:
		return fmt.Sprintf("--warmup %v: want 0 or more", warmup)
	case window <= 0:
		return fmt.Sprintf("--duration %v: want more than 0", window)
	}
	for _, h := range hs {
		if k, _, ok := strings.Cut(h, ":"); !ok || strings.TrimSpace(k) == "" {
			return fmt.Sprintf("--header %q: want 'K: V'", h)
		}
	}
	return ""
}

// Verdict is the result's first line.
func Verdict(r Result) string {
	return fmt.Sprintf("closedloop: %.0f answers/s ended in the %.0f s window (%.0f/s counted by start), %d connections, p50 %.3g ms, p99 %.3g ms",
		r.EndedRPS, r.WindowS, r.StartedRPS, r.Connections, r.P50Ms, r.P99Ms)
}

// worker is one connection's tally.
type worker struct {
	ended, started, non2xx, errors int64
	lat                            []time.Duration
}

// Run sends the load and counts the window.
func Run(url string, conns int, warmup, window time.Duration, hs []string) Result {
	begin := time.Now().Add(warmup)
	end := begin.Add(window)
	ws := make([]worker, conns)
	var wg sync.WaitGroup
	for i := range ws {
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
				DisableCompression: true, MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1}}
			defer client.CloseIdleConnections()
			for t0 := time.Now(); t0.Before(end); t0 = time.Now() {
				status, err := get(client, url, hs)
				t1 := time.Now()
				ok := err == nil && status >= 200 && status < 300
				switch {
				case err != nil:
					w.errors++
				case !ok:
					w.non2xx++
				}
				if !ok {
					continue
				}
				if !t1.Before(begin) && t1.Before(end) {
					w.ended++
					w.lat = append(w.lat, t1.Sub(t0))
				}
				if !t0.Before(begin) {
					w.started++
				}
			}
		}(&ws[i])
	}
	wg.Wait()
	r := Result{URL: url, Connections: conns, WindowS: window.Seconds()}
	var lat []time.Duration
	for _, w := range ws {
		r.Ended += w.ended
		r.Started += w.started
		r.Non2xx += w.non2xx
		r.Errors += w.errors
		lat = append(lat, w.lat...)
	}
	r.EndedRPS = float64(r.Ended) / window.Seconds()
	r.StartedRPS = float64(r.Started) / window.Seconds()
	r.P50Ms, r.P99Ms = quantileMs(lat, 0.50), quantileMs(lat, 0.99)
	return r
}

// get sends one GET and reads its whole answer; the status, or the error.
func get(c *http.Client, url string, hs []string) (int, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	for _, h := range hs {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, err
}

// quantileMs is the q-quantile of d (nearest rank) in milliseconds, 0 for none.
func quantileMs(d []time.Duration, q float64) float64 {
	if len(d) == 0 {
		return 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	i := int(q*float64(len(d))+0.5) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(d) {
		i = len(d) - 1
	}
	return float64(d[i].Microseconds()) / 1000
}
