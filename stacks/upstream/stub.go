package main

import (
	"net"
)

// The stub (MODE=stub): every request gets the same 200 {"ok":true},
// written as soon as the bytes read so far hold the end of its head
// (CRLF CRLF); nothing else of it is parsed, so a request with a body is
// not one it serves. It is the lab's cheapest server, for the load
// generator's headroom: standing in the app's place, it must cost less
// per answer than the generator does, and Go's net/http does not
// (results/2026-12-01-local-all-quick-steady: go-nethttp's `up` spent
// 21 µs of its CPU an answer, while oha, saturated on one CPU at 86k
// req/s, spent about 12).

var stubAnswer = []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n" + `{"ok":true}`)

// serveStub accepts on ln until it is closed; each connection is served
// by a goroutine of its own.
func serveStub(ln net.Listener) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		go stubConn(c)
	}
}

// stubConn answers each request head c sends, in order, with one write
// for all the heads that one read completed.
func stubConn(c net.Conn) {
	defer c.Close()
	buf := make([]byte, 16<<10)
	var out []byte
	state := 0
	for {
		n, err := c.Read(buf)
		out = out[:0]
		for _, b := range buf[:n] {
			if state = headEnd(state, b); state == 4 {
				out = append(out, stubAnswer...)
				state = 0
			}
		}
		if len(out) > 0 {
			if _, werr := c.Write(out); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// headEnd is how much of CRLF CRLF the bytes so far end with (0 to 4),
// after byte b.
func headEnd(state int, b byte) int {
	switch {
	case b == '\r' && (state == 0 || state == 2):
		return state + 1
	case b == '\n' && (state == 1 || state == 3):
		return state + 1
	case b == '\r':
		return 1
	}
	return 0
}
