// Package netlog owns `raw/run-N/netpath.json` (format id
// "stacklab-netpath/1"): the raw network path check of a run, what
// bench/netpath measured from the load generator's CPUs (and engine) to
// an echo standing in the app's place (its CPUs, address and port). The
// round trip of one byte on one connection, many times, and what one
// connection streams there and back, under HTTP and any server: on two
// machines, whether the network between them could be what a row's
// figures meet first.
//
//	{"format":"stacklab-netpath/1","addr":"127.0.0.1:8080","pings":2000,"rtt_p50_us":31.2,"rtt_p99_us":80.5,"rtt_max_us":410.9,"stream_s":2.001,"stream_bytes":2147483648,"stream_bytes_per_s":1073204000}
package netlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"stacklab/formats/rawfile"
)

// FormatID is the file's "format".
const FormatID = "stacklab-netpath/1"

// Result is one check.
type Result struct {
	Format string `json:"format"`
	// Addr is the address the generator reached the echo at: the app's.
	Addr string `json:"addr"`
	// Pings round trips of one byte on one connection, after a few not
	// counted; nearest-rank percentiles, in µs.
	Pings    int     `json:"pings"`
	RTTP50Us float64 `json:"rtt_p50_us"`
	RTTP99Us float64 `json:"rtt_p99_us"`
	RTTMaxUs float64 `json:"rtt_max_us"`
	// One connection writing as fast as it can for StreamS while it reads
	// the echo back: StreamBytes came back, StreamBytesPerS each way.
	StreamS         float64 `json:"stream_s"`
	StreamBytes     int64   `json:"stream_bytes"`
	StreamBytesPerS float64 `json:"stream_bytes_per_s"`
}

func (r Result) validate() error {
	switch {
	case r.Format != FormatID:
		return fmt.Errorf("format is %q, want %q", r.Format, FormatID)
	case r.Addr == "":
		return fmt.Errorf("addr is empty")
	case r.Pings <= 0 || !(r.RTTP50Us > 0) || r.RTTP99Us < r.RTTP50Us || r.RTTMaxUs < r.RTTP99Us:
		return fmt.Errorf("pings %d with p50 %v, p99 %v and max %v µs are not a measurement", r.Pings, r.RTTP50Us, r.RTTP99Us, r.RTTMaxUs)
	case !(r.StreamS > 0) || r.StreamBytes <= 0 || !(r.StreamBytesPerS > 0):
		return fmt.Errorf("a stream of %d bytes in %v s is not a measurement", r.StreamBytes, r.StreamS)
	}
	return nil
}

// Read reads and checks a check's file.
func Read(path string) (Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Result{}, err
	}
	var r Result
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&r); err != nil {
		return r, fmt.Errorf("%s: %v", path, err)
	}
	if err := r.validate(); err != nil {
		return r, fmt.Errorf("%s: %v", path, err)
	}
	return r, nil
}

// WriteFile stores r at path (its Format set) through a temporary file and
// a rename, so a reader never sees half of it.
func WriteFile(path string, r Result) error {
	r.Format = FormatID
	if err := r.validate(); err != nil {
		return err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return rawfile.Write(path, append(b, '\n'))
}
