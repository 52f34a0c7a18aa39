// Command netpath is the raw network path check: from the load
// generator's CPUs (and engine) to an echo in the app's place (the mock
// upstream with MODE=echo, on the app's CPUs, address and port), it times
// one-byte round trips on one connection, then streams on another for a
// while, reading the echo back, and writes what it found
// (`raw/run-N/netpath.json`, format formats/netlog). Under HTTP and any
// server: on two machines it says whether the network between them is
// what a row would meet first.
//
//	netpath --addr HOST:PORT --out FILE [--pings 2000] [--stream 2s] [--wait 10s]
//
// It dials until the echo answers, for at most --wait. Bad flags are exit
// 2; an echo that never answers, or that sends back other bytes, exit 1;
// each with one line.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"time"

	"stacklab/formats/netlog"
)

func main() { os.Exit(run(os.Args[1:], os.Stderr)) }

func run(args []string, stderr io.Writer) int {
	fl := flag.NewFlagSet("netpath", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	addr := fl.String("addr", "", "the echo's HOST:PORT (the app's address and port)")
	out := fl.String("out", "", "where to write the result (netlog's format)")
	pings := fl.Int("pings", 2000, "round trips of one byte to time")
	stream := fl.Duration("stream", 2*time.Second, "how long one connection streams")
	wait := fl.Duration("wait", 10*time.Second, "how long to dial before the echo answers")
	err := fl.Parse(args)
	switch {
	case err != nil:
	case fl.NArg() > 0:
		err = fmt.Errorf("unexpected argument %q", fl.Arg(0))
	case *addr == "" || *out == "":
		err = errors.New("--addr HOST:PORT and --out FILE are required")
	case *pings < 10 || *pings > 1_000_000:
		err = fmt.Errorf("--pings %d: want 10 to 1,000,000", *pings)
	case *stream < 100*time.Millisecond || *stream > time.Minute:
		err = fmt.Errorf("--stream %s: want 100ms to 1m", *stream)
	}
	if err != nil {
		fmt.Fprintln(stderr, "netpath:", err)
		return 2
	}
	r, err := measure(*addr, *pings, *stream, *wait)
	if err == nil {
		err = netlog.WriteFile(*out, r)
	}
	if err != nil {
		fmt.Fprintln(stderr, "netpath:", err)
		return 1
	}
	return 0
}

// warmPings are round trips before the timed ones: the first connection's
// slow start and the echo's goroutine scheduling are not the path.
const warmPings = 50

func measure(addr string, pings int, stream, wait time.Duration) (netlog.Result, error) {
	r := netlog.Result{Addr: addr, Pings: pings}
	c, err := dial(addr, wait)
	if err != nil {
		return r, err
	}
	rtts, err := pingPong(c, warmPings+pings)
	c.Close()
	if err != nil {
		return r, err
	}
	rtts = rtts[warmPings:]
	slices.Sort(rtts)
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	r.RTTP50Us, r.RTTP99Us, r.RTTMaxUs = us(rank(rtts, 0.50)), us(rank(rtts, 0.99)), us(rtts[len(rtts)-1])
	if c, err = dial(addr, wait); err != nil {
		return r, err
	}
	defer c.Close()
	n, took, err := streamFor(c, stream)
	if err != nil {
		return r, err
	}
	r.StreamS, r.StreamBytes, r.StreamBytesPerS = took.Seconds(), n, float64(n)/took.Seconds()
	return r, nil
}

func dial(addr string, wait time.Duration) (net.Conn, error) {
	deadline := time.Now().Add(wait)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no echo answered at %s within %s: %v", addr, wait, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// pingPong times n round trips of one byte each on c.
func pingPong(c net.Conn, n int) ([]time.Duration, error) {
	out := make([]time.Duration, 0, n)
	b := []byte{0}
	c.SetDeadline(time.Now().Add(time.Minute))
	for i := range n {
		b[0] = byte(i)
		t := time.Now()
		if _, err := c.Write(b); err != nil {
			return nil, fmt.Errorf("ping %d: %v", i, err)
		}
		if _, err := io.ReadFull(c, b); err != nil {
			return nil, fmt.Errorf("ping %d: no echo: %v", i, err)
		}
		out = append(out, time.Since(t))
		if b[0] != byte(i) {
			return nil, fmt.Errorf("ping %d: the echo sent back %d, not %d: not an echo", i, b[0], byte(i))
		}
	}
	return out, nil
}

// streamFor writes to c as fast as it can for d while it reads the echo
// back, checking every byte; it returns what came back and how long from
// the first write to the last byte read.
func streamFor(c net.Conn, d time.Duration) (int64, time.Duration, error) {
	chunk := make([]byte, 64<<10)
	for i := range chunk {
		chunk[i] = byte(i)
	}
	start := time.Now()
	c.SetDeadline(start.Add(d + 30*time.Second))
	var sent int64
	werr := make(chan error, 1)
	go func() {
		for time.Since(start) < d {
			n, err := c.Write(chunk)
			sent += int64(n)
			if err != nil {
				werr <- err
				return
			}
		}
		if tc, ok := c.(*net.TCPConn); ok {
			werr <- tc.CloseWrite()
			return
		}
		werr <- nil
	}()
	buf := make([]byte, 64<<10)
	var got int64
	for {
		n, err := c.Read(buf)
		for p := buf[:n]; len(p) > 0; {
			off := int(got % int64(len(chunk)))
			k := min(len(p), len(chunk)-off)
			if !bytes.Equal(p[:k], chunk[off:off+k]) {
				return got, 0, fmt.Errorf("the echo sent back other bytes after byte %d: not an echo", got)
			}
			p, got = p[k:], got+int64(k)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return got, 0, fmt.Errorf("reading the echo: %v", err)
		}
	}
	took := time.Since(start)
	if err := <-werr; err != nil {
		return got, took, fmt.Errorf("streaming: %v", err)
	}
	if got != sent {
		return got, took, fmt.Errorf("sent %d bytes, %d came back", sent, got)
	}
	return got, took, nil
}

// rank is the nearest-rank quantile q of sorted v.
func rank(v []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(v))+0.999999) - 1
	return v[min(max(i, 0), len(v)-1)]
}
