package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"stacklab/formats/rawfile"
	"stacklab/formats/uplog"
)

// upstreamCmd writes OUT, the mock upstream's record of its own lateness
// over a window or a step (<window>.upstream.jsonl, formats/uplog), asked
// of the upstream at --url for the span --from-ns..--to-ns (unix ns).
// What the upstream answers is checked as analysis will read it. A span
// in which it answered nothing (a case that does not reach it) writes no
// file.
//
//	record upstream OUT --url http://127.0.0.1:9090 --from-ns A --to-ns B
//
// Bad flags are exit 2; an upstream that cannot be asked, or answers
// what is not the format, is one line and exit 1.
func upstreamCmd(out string, args []string, stderr io.Writer) int {
	fl := flag.NewFlagSet("record upstream", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	base := fl.String("url", "", "the mock upstream's base URL")
	from := fl.Int64("from-ns", 0, "the span's start, unix ns")
	to := fl.Int64("to-ns", 0, "the span's end, unix ns")
	err := fl.Parse(args)
	switch {
	case err != nil:
	case fl.NArg() > 0:
		err = fmt.Errorf("unexpected argument %q (want OUT then flags)", fl.Arg(0))
	case *base == "":
		err = errors.New("--url is required (the mock upstream's, e.g. http://127.0.0.1:9090)")
	case *from < 1e18 || *to <= *from:
		err = fmt.Errorf("--from-ns %d and --to-ns %d are not a span in unix ns", *from, *to)
	}
	if err != nil {
		fmt.Fprintln(stderr, "record upstream:", err)
		return 2
	}
	// to the next millisecond, so the span's last answers are in it
	q := url.Values{"from_ms": {strconv.FormatInt(*from/1e6, 10)}, "to_ms": {strconv.FormatInt((*to+999_999)/1e6, 10)}}
	body, err := fetch(*base + "/lateness?" + q.Encode())
	var f uplog.File
	if err == nil {
		f, err = uplog.Parse(bytes.NewReader(body), *base+"/lateness")
	}
	if err == nil && f.Header.Answers == 0 {
		return 0
	}
	if err == nil {
		err = rawfile.Write(out, body) // what Parse read, as the upstream wrote it
	}
	if err != nil {
		fmt.Fprintln(stderr, "record upstream:", err)
		return 1
	}
	return 0
}

func fetch(u string) ([]byte, error) {
	c := &http.Client{Timeout: 5 * time.Second}
	res, err := c.Get(u)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s: %s", u, res.Status, bytes.TrimSpace(b))
	}
	return b, nil
}
