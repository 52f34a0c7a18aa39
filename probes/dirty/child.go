package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"stacklab/probes/walwriter"
)

// childMain is the writer, started by the probe as `dirty --child …` and
// moved into the cgroup under test before it writes: it waits for a line on
// stdin, runs the workload, and prints each commit as a JSON line on stdout.
func childMain(args []string) {
	fs := flag.NewFlagSet("dirty --child", flag.ExitOnError)
	dir := fs.String("dir", "", "")
	writers := fs.Int("writers", 4, "")
	rowBytes := fs.Int("row-bytes", 16384, "")
	keep := fs.Int("keep-rows", 4096, "")
	duration := fs.Duration("duration", 10*time.Second, "")
	t0 := fs.Int64("t0-us", 0, "")
	fs.Parse(args)
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		os.Exit(3) // the probe went away before saying go
	}
	ctx, cancel := context.WithTimeout(context.Background(), *duration)
	defer cancel()
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	enc := json.NewEncoder(out)
	var mu sync.Mutex
	last := time.Now()
	cfg := walwriter.Config{Path: filepath.Join(*dir, "dirty.db"), Writers: *writers, RowBytes: *rowBytes, Synchronous: "NORMAL", Autocheckpoint: -1, KeepRows: *keep,
		Pragmas: []string{"journal_size_limit = 67108864"}} // the lab app's setting (docs/app.md)
	err := walwriter.Run(ctx, cfg, time.UnixMicro(*t0), func(c walwriter.Commit) {
		mu.Lock()
		defer mu.Unlock()
		enc.Encode(c)
		if time.Since(last) > 50*time.Millisecond { // a killed writer loses at most 50 ms of lines
			out.Flush()
			last = time.Now()
		}
	})
	out.Flush()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
