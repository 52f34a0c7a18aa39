// Package answer captures one HTTP/1.1 answer as it crosses the wire:
// the bytes of its head (status line, headers, the blank line) and of its
// body (chunk framing included), how its length is framed, and the names
// of its headers. Stacks that send different headers do different work per
// request (docs/app.md leaves the header set open); verify prints each stack's
// set and the bench keeps them in raw/run-N/<stack>/answers.json, from
// which the summary's bytes per answer come.
package answer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Answer is one captured answer.
type Answer struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Status int    `json:"status"`
	// HeadBytes counts the status line, every header line and the blank
	// line that ends them; BodyBytes the body as sent, chunk framing
	// included; ContentBytes the body once unframed.
	HeadBytes    int `json:"head_bytes"`
	BodyBytes    int `json:"body_bytes"`
	ContentBytes int `json:"content_bytes"`
	// Framing is how the body's end is marked: content-length, chunked or
	// close.
	Framing string `json:"framing"`
	// Headers are the header names as sent, lower-cased, sorted, once each.
	Headers []string `json:"headers"`
}

// WireBytes is the answer's whole size on the wire.
func (a Answer) WireBytes() int { return a.HeadBytes + a.BodyBytes }

// Capture sends one GET of path to base (http://127.0.0.1:PORT) on a new
// keep-alive connection, as the load generator's are (no Connection:
// close, which would change the answer's headers), and reads the answer's
// bytes as they arrive.
func Capture(base, path string, timeout time.Duration) (Answer, error) {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" {
		return Answer{}, fmt.Errorf("%s: want http://127.0.0.1:PORT", base)
	}
	conn, err := net.DialTimeout("tcp", u.Host, timeout)
	if err != nil {
		return Answer{}, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(timeout))
	req := "GET " + path + " HTTP/1.1\r\nHost: " + u.Host + "\r\nAccept-Encoding: identity\r\n\r\n"
	if _, err := io.WriteString(conn, req); err != nil {
		return Answer{}, err
	}
	a, err := Read(bufio.NewReader(conn))
	a.Method, a.Path = "GET", path
	return a, err
}

// Read parses one answer from r, counting its bytes as sent.
func Read(r *bufio.Reader) (Answer, error) {
	var a Answer
	line, err := r.ReadString('\n')
	if err != nil {
		return a, fmt.Errorf("no status line: %v", err)
	}
	a.HeadBytes += len(line)
	f := strings.Fields(line)
	if len(f) < 2 || !strings.HasPrefix(f[0], "HTTP/1.") {
		return a, fmt.Errorf("not an HTTP/1.x status line: %q", strings.TrimSpace(line))
	}
	if a.Status, err = strconv.Atoi(f[1]); err != nil {
		return a, fmt.Errorf("status %q: not a number", f[1])
	}
	names := map[string]bool{}
	length, chunked := -1, false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return a, fmt.Errorf("headers cut short: %v", err)
		}
		a.HeadBytes += len(line)
		h := strings.TrimRight(line, "\r\n")
		if h == "" {
			break
		}
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			return a, fmt.Errorf("not a header line: %q", h)
		}
		name = strings.ToLower(strings.TrimSpace(name))
		value = strings.TrimSpace(value)
		names[name] = true
		switch name {
		case "content-length":
			if length, err = strconv.Atoi(value); err != nil || length < 0 {
				return a, fmt.Errorf("content-length %q", value)
			}
		case "transfer-encoding":
			chunked = strings.Contains(strings.ToLower(value), "chunked")
		}
	}
	for n := range names {
		a.Headers = append(a.Headers, n)
	}
	sort.Strings(a.Headers)
	switch {
	case chunked:
		a.Framing = "chunked"
		return a, readChunked(r, &a)
	case length >= 0:
		a.Framing = "content-length"
		n, err := io.CopyN(io.Discard, r, int64(length))
		a.BodyBytes, a.ContentBytes = int(n), int(n)
		return a, err
	default:
		a.Framing = "close"
		n, err := io.Copy(io.Discard, r)
		a.BodyBytes, a.ContentBytes = int(n), int(n)
		return a, err
	}
}

func readChunked(r *bufio.Reader, a *Answer) error {
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("chunk size cut short: %v", err)
		}
		a.BodyBytes += len(line)
		size, _, _ := strings.Cut(strings.TrimSpace(line), ";")
		n, err := strconv.ParseInt(size, 16, 32)
		if err != nil || n < 0 {
			return fmt.Errorf("chunk size %q", strings.TrimSpace(line))
		}
		if n == 0 {
			// Trailers, then the final blank line.
			for {
				t, err := r.ReadString('\n')
				if err != nil {
					return fmt.Errorf("chunked trailer cut short: %v", err)
				}
				a.BodyBytes += len(t)
				if strings.TrimRight(t, "\r\n") == "" {
					return nil
				}
			}
		}
		m, err := io.CopyN(io.Discard, r, n)
		a.BodyBytes += int(m)
		a.ContentBytes += int(m)
		if err != nil {
			return err
		}
		crlf := make([]byte, 2)
		if _, err := io.ReadFull(r, crlf); err != nil || !bytes.Equal(crlf, []byte("\r\n")) {
			return fmt.Errorf("chunk not ended by CRLF")
		}
		a.BodyBytes += 2
	}
}

// WriteFile writes answers as one JSON array, one answer a line.
func WriteFile(path string, answers []Answer) error {
	var b bytes.Buffer
	b.WriteString("[\n")
	for i, a := range answers {
		j, err := json.Marshal(a)
		if err != nil {
			return err
		}
		b.Write(j)
		if i < len(answers)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]\n")
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// ReadFile reads answers.json strictly: an unknown key, a missing path or
// a non-positive head is an error naming the file.
func ReadFile(path string) ([]Answer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	var out []Answer
	if err := d.Decode(&out); err != nil {
		return nil, fmt.Errorf("%s: not an answers file: %v", path, err)
	}
	for i, a := range out {
		if a.Path == "" || a.HeadBytes <= 0 || a.Status == 0 {
			return nil, fmt.Errorf("%s: answer %d: a path, a status and head_bytes > 0 are required", path, i+1)
		}
	}
	return out, nil
}

// Of finds the answer to method and path (nil when none was captured).
func Of(answers []Answer, method, path string) *Answer {
	for i := range answers {
		if answers[i].Method == method && answers[i].Path == path {
			return &answers[i]
		}
	}
	return nil
}
