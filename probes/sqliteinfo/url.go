package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// checkLoopback refuses any target but this machine: the lab only ever
// loads 127.0.0.1.
func checkLoopback(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("--url %q: want http://127.0.0.1:PORT", raw)
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("--url %q: only loopback targets (127.0.0.1) are allowed", raw)
	}
	return u, nil
}

// Answer is one distinct /bench/pragmas body and how often it came.
type Answer struct {
	Body  string `json:"body"` // normalised: keys sorted, numbers as integers
	Count int    `json:"count"`
}

// samplePragmas sends n GETs to base+/bench/pragmas, c at a time, so that
// many pooled connections answer, and groups the answers.
func samplePragmas(ctx context.Context, base *url.URL, n, c int) (answers []Answer, failures map[string]int, err error) {
	target := strings.TrimSuffix(base.String(), "/") + "/bench/pragmas"
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: c}}
	counts, failures := map[string]int{}, map[string]int{}
	var mu sync.Mutex
	jobs := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < c; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				body, ferr := fetch(ctx, client, target)
				mu.Lock()
				if ferr != nil {
					failures[ferr.Error()]++
				} else {
					counts[body]++
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		jobs <- struct{}{}
	}
	close(jobs)
	wg.Wait()
	for b, k := range counts {
		answers = append(answers, Answer{b, k})
	}
	sort.Slice(answers, func(i, j int) bool {
		if answers[i].Count != answers[j].Count {
			return answers[i].Count > answers[j].Count
		}
		return answers[i].Body < answers[j].Body
	})
	return answers, failures, nil
}

func fetch(ctx context.Context, c *http.Client, target string) (string, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	resp, err := c.Do(req)
	if err != nil {
		return "", fmt.Errorf("request failed: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != 200 {
		return "", fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return normalise(b)
}

// normalise makes equal answers equal strings: keys sorted, text lower-case
// (journal_mode "WAL" and "wal" are one answer).
func normalise(b []byte) (string, error) {
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return "", fmt.Errorf("answer is not a JSON object: %.60q", b)
	}
	for k, v := range m {
		if s, ok := v.(string); ok {
			m[k] = strings.ToLower(s)
		}
	}
	out, _ := json.Marshal(m) // encoding/json sorts map keys
	return string(out), nil
}

// mismatches lists how a normalised answer differs from the contract.
func mismatches(body string) []string {
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(body))
	d.UseNumber() // 134217728 must not come back as 1.34217728e+08
	d.Decode(&m)
	var out []string
	for _, p := range Contract {
		got := fmt.Sprint(m[p.Name])
		if m[p.Name] == nil {
			got = "missing"
		}
		if got != p.Want {
			out = append(out, fmt.Sprintf("%s=%s (want %s)", p.Name, got, p.Want))
		}
	}
	return out
}
