package main

import (
	"bytes"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/formats/netlog"
)

// server accepts on 127.0.0.1 and hands each connection to serve.
func server(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); serve(c) }()
		}
	}()
	return ln.Addr().String()
}

// Against an echo it writes a result netlog reads back: round trips in
// order, a stream that came back whole.
func TestMeasuresAnEcho(t *testing.T) {
	addr := server(t, func(c net.Conn) { io.Copy(c, c) })
	out := filepath.Join(t.TempDir(), "netpath.json")
	var stderr bytes.Buffer
	if code := run([]string{"--addr", addr, "--out", out, "--pings", "200", "--stream", "200ms"}, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	r, err := netlog.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Addr != addr || r.Pings != 200 || r.StreamBytes < 64<<10 || r.StreamS < 0.2 {
		t.Errorf("got %+v", r)
	}
}

// A server that is not an echo, none at all, and bad flags each get one
// line: exit 1 for the first two, 2 for flags; no file is written.
func TestRefuses(t *testing.T) {
	other := server(t, func(c net.Conn) {
		b := make([]byte, 1)
		for {
			if _, err := c.Read(b); err != nil {
				return
			}
			c.Write([]byte{b[0] + 1})
		}
	})
	gone := server(t, func(net.Conn) {})
	ln, _ := net.Listen("tcp4", "127.0.0.1:0")
	closed := ln.Addr().String()
	ln.Close()
	out := filepath.Join(t.TempDir(), "netpath.json")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--addr", other, "--out", out, "--pings", "20"}, 1, "not an echo"},
		{[]string{"--addr", gone, "--out", out, "--pings", "20"}, 1, "no echo"},
		{[]string{"--addr", closed, "--out", out, "--wait", "300ms"}, 1, "no echo answered at " + closed + " within 300ms"},
		{[]string{"--out", out}, 2, "--addr HOST:PORT and --out FILE are required"},
		{[]string{"--addr", other, "--out", out, "--pings", "3"}, 2, "--pings 3"},
		{[]string{"--addr", other, "--out", out, "--stream", "1h"}, 2, "--stream 1h0m0s"},
		{[]string{"--addr", other, "--out", out, "x"}, 2, `unexpected argument "x"`},
	} {
		var stderr bytes.Buffer
		code := run(c.args, &stderr)
		if code != c.code || !strings.HasPrefix(stderr.String(), "netpath: ") || !strings.Contains(stderr.String(), c.want) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want %d and one line with %q", c.args, code, stderr.String(), c.code, c.want)
		}
	}
	if _, err := netlog.Read(out); err == nil {
		t.Error("a refused check wrote its file")
	}
}
