package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

func stubServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go serveStub(ln)
	return ln.Addr().String()
}

// A client sees an ordinary server: 200, JSON, keep-alive.
func TestStubAnswersHTTP(t *testing.T) {
	addr := stubServer(t)
	for range 3 {
		res, err := http.Get("http://" + addr + "/delay?ms=0")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || string(b) != `{"ok":true}` || res.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%d %q %v", res.StatusCode, b, res.Header)
		}
	}
}

// Each request head gets one answer, whether heads arrive two in a read
// or one split across reads (at its CRLF CRLF).
func TestStubOneAnswerPerHead(t *testing.T) {
	c, err := net.Dial("tcp4", stubServer(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	head := "GET /delay?ms=0 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
	c.Write([]byte(head + head))
	c.Write([]byte(head[:len(head)-3]))
	time.Sleep(20 * time.Millisecond) // the split lands in two reads
	c.Write([]byte(head[len(head)-3:]))
	want := bytes.Repeat(stubAnswer, 3)
	got := make([]byte, len(want))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%v: %q", err, got)
	}
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if n, _ := c.Read(make([]byte, 1)); n != 0 {
		t.Error("more answers than heads")
	}
}

// The echo sends back every byte, in order, however the writes split.
func TestEchoSendsBackEveryByte(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go serveEcho(ln)
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	want := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB
	go func() {
		for b := want; len(b) > 0; b = b[min(len(b), 70001):] {
			c.Write(b[:min(len(b), 70001)])
		}
	}()
	got := make([]byte, len(want))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("echoed %v, equal %v", err, bytes.Equal(got, want))
	}
}
