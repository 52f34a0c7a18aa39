package latencyline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"stacklab/formats/lineerr"
	"stacklab/formats/rawfile"
)

// LineError names the file and line of a timeline (or a vegeta CSV) that
// cannot be read; its Truncated is lineerr.LastLine when the bad line is
// the last and has no newline (the writer was stopped in the middle of it).
type LineError = lineerr.Error

// Write writes t as JSON lines: the header, then one line per bucket.
// The same timeline gives the same bytes. It refuses a timeline Read
// would refuse.
func Write(w io.Writer, t Timeline) error {
	if err := t.Header.validate(); err != nil {
		return fmt.Errorf("header: %w", err)
	}
	var sums Bucket
	for i, b := range t.Buckets {
		if err := b.validate(i, t.Header.BucketMs); err != nil {
			return fmt.Errorf("bucket %d: %w", i, err)
		}
		sums.add(b)
	}
	if err := t.Header.checkSums(sums, len(t.Buckets)); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw) // one value per line, "\n" after each
	h := t.Header
	if h.Gaps == nil {
		h.Gaps = []Gap{} // [] and not null: Read insists on the field
	}
	if err := enc.Encode(h); err != nil {
		return err
	}
	for _, b := range t.Buckets {
		if err := enc.Encode(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteFile writes t to path through a temporary file and a rename, so a
// reader never sees half a timeline.
func WriteFile(path string, t Timeline) error {
	var buf bytes.Buffer
	if err := Write(&buf, t); err != nil {
		return err
	}
	return rawfile.Write(path, buf.Bytes())
}

// Read reads the timeline at path. Every fault is a *LineError: a line
// that is not JSON or has a field the format does not know, an unknown
// format id, a bucket out of order or with an impossible count, an empty
// file, or totals that the buckets do not add up to (lines lost at the
// end; named by the header's line). On error it also returns what it read
// before the bad line.
func Read(path string) (Timeline, error) {
	f, err := os.Open(path)
	if err != nil {
		return Timeline{}, err
	}
	defer f.Close()
	return Decode(f, path)
}

// Decode reads a timeline from r; name is the file name used in errors.
func Decode(r io.Reader, name string) (Timeline, error) {
	br := bufio.NewReader(r)
	var t Timeline
	var sums Bucket
	for line := 1; ; line++ {
		raw, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return t, err
		}
		if len(raw) == 0 && err == io.EOF {
			if line == 1 {
				return t, &LineError{File: name, Line: 1, Err: errors.New("empty file: no header line")}
			}
			break
		}
		complete := bytes.HasSuffix(raw, []byte("\n"))
		fail := func(e error) (Timeline, error) {
			return t, &LineError{File: name, Line: line, Truncated: lineerr.Cut(complete), Err: e}
		}
		raw = bytes.TrimSuffix(raw, []byte("\n"))
		if line == 1 {
			if err := decodeStrict(raw, &t.Header, "format", "source", "start_unix_ns", "bucket_ms",
				"requests", "answers", "errors", "answer_gap_ms", "answer_gap_at_ms", "gap_count", "gaps"); err != nil {
				return fail(err)
			}
			if t.Header.Format != Format {
				return fail(fmt.Errorf("format %q, want %q", t.Header.Format, Format))
			}
			if err := t.Header.validate(); err != nil {
				return fail(err)
			}
			continue
		}
		var b Bucket
		if err := decodeStrict(raw, &b, "t_ms", "sent", "answers", "errors", "p50_us", "p99_us", "max_us"); err != nil {
			return fail(err)
		}
		if err := b.validate(line-2, t.Header.BucketMs); err != nil {
			return fail(err)
		}
		t.Buckets = append(t.Buckets, b)
		sums.add(b)
	}
	if err := t.Header.checkSums(sums, len(t.Buckets)); err != nil {
		return t, &LineError{File: name, Line: 1, Err: err}
	}
	return t, nil
}

// decodeStrict decodes one JSON object into v, refusing unknown fields and
// an object that lacks one of the fields named.
func decodeStrict(b []byte, v any, fields ...string) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return errors.New("empty line")
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("more than one JSON value on the line")
	}
	// The line parsed, so it is an object of known fields; which are there?
	var present map[string]json.RawMessage
	if err := json.Unmarshal(b, &present); err != nil {
		return err
	}
	for _, f := range fields {
		if _, ok := present[f]; !ok {
			return fmt.Errorf("field %s is missing", f)
		}
	}
	return nil
}

func (h *Header) validate() error {
	switch {
	case h.Format != Format:
		return fmt.Errorf("format %q, want %q", h.Format, Format)
	case h.Source != SourceOha && h.Source != SourceVegeta:
		return fmt.Errorf("source %q, want %s or %s", h.Source, SourceOha, SourceVegeta)
	case h.BucketMs < 1:
		return fmt.Errorf("bucket_ms %d, want 1 or more", h.BucketMs)
	case h.Answers < 0 || h.Errors < 0 || h.Requests != h.Answers+h.Errors:
		return fmt.Errorf("requests %d is not answers %d + errors %d", h.Requests, h.Answers, h.Errors)
	case h.AnswerGapMs < 0 || h.AnswerGapAtMs < 0:
		return errors.New("answer_gap_ms or answer_gap_at_ms is negative")
	case len(h.Gaps) > MaxGaps || h.GapCount < int64(len(h.Gaps)):
		return fmt.Errorf("gaps lists %d, gap_count says %d (at most %d are listed)", len(h.Gaps), h.GapCount, MaxGaps)
	case h.GapCount > int64(len(h.Gaps)) && len(h.Gaps) < MaxGaps:
		return fmt.Errorf("gaps lists %d of gap_count %d but has room for %d", len(h.Gaps), h.GapCount, MaxGaps)
	}
	for i, g := range h.Gaps {
		switch {
		case g.Ms < GapMin.Milliseconds():
			return fmt.Errorf("gaps[%d] lasts %d ms, under the %d ms a listed gap lasts", i, g.Ms, GapMin.Milliseconds())
		case g.Ms > h.AnswerGapMs:
			return fmt.Errorf("gaps[%d] lasts %d ms, longer than answer_gap_ms %d", i, g.Ms, h.AnswerGapMs)
		case g.AtMs < 0 || g.InFlight < 1:
			return fmt.Errorf("gaps[%d]: at_ms is negative or in_flight under 1", i)
		case i > 0 && g.AtMs < h.Gaps[i-1].AtMs:
			return fmt.Errorf("gaps[%d] at %d ms is before gaps[%d] at %d ms", i, g.AtMs, i-1, h.Gaps[i-1].AtMs)
		}
	}
	return nil
}

func (b *Bucket) validate(i int, bucketMs int64) error {
	if want := int64(i) * bucketMs; b.TMs != want {
		return fmt.Errorf("bucket out of order: t_ms %d, want %d (bucket %d, %d ms each)", b.TMs, want, i, bucketMs)
	}
	if b.Sent < 0 || b.Answers < 0 || b.Errors < 0 {
		return errors.New("a count is negative")
	}
	lat := b.P50Us != nil || b.P99Us != nil || b.MaxUs != nil
	switch {
	case b.Answers == 0 && lat:
		return errors.New("latencies without answers (want p50_us, p99_us and max_us null)")
	case b.Answers > 0 && (b.P50Us == nil || b.P99Us == nil || b.MaxUs == nil):
		return fmt.Errorf("%d answers but a latency is null", b.Answers)
	case b.Answers > 0 && !(0 <= *b.P50Us && *b.P50Us <= *b.P99Us && *b.P99Us <= *b.MaxUs):
		return fmt.Errorf("latencies out of order: p50 %d µs, p99 %d µs, max %d µs", *b.P50Us, *b.P99Us, *b.MaxUs)
	}
	return nil
}

func (s *Bucket) add(b Bucket) {
	s.Sent += b.Sent
	s.Answers += b.Answers
	s.Errors += b.Errors
}

func (h *Header) checkSums(s Bucket, n int) error {
	if s.Sent != h.Requests || s.Answers != h.Answers || s.Errors != h.Errors {
		return fmt.Errorf("header says %d requests, %d answers, %d errors; the %d buckets add up to %d sent, %d answers, %d errors (lines lost?)",
			h.Requests, h.Answers, h.Errors, n, s.Sent, s.Answers, s.Errors)
	}
	return nil
}
