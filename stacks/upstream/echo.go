package main

import (
	"io"
	"net"
)

// The echo (MODE=echo): every byte a connection sends comes back on it,
// nothing parsed. It stands in the app's place (its CPUs, address and
// port) for the raw network path check (bench/netpath): the round trip
// and the stream the generator's machine gets to the app's address, under
// HTTP and any server, so a slow network between two machines shows as
// one and not as a slow app.

// serveEcho accepts on ln until it is closed; each connection is echoed
// by a goroutine of its own.
func serveEcho(ln net.Listener) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		go func() {
			defer c.Close()
			io.Copy(c, c)
		}()
	}
}
