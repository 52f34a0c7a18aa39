package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"mime"
	"os"
	"slices"
	"strings"
)

// snapshot is what must be the same on every stack after the same requests
// (docs/app.md, parity): the answer of every GET route, of the 404 and 405
// cases, and of writes each followed by a read, normalised so that only
// what the contract fixes is compared (see normalise).
type snapshot struct {
	Stack     string
	Exchanges []exchange
}

// exchange is one request and its normalised answer.
type exchange struct {
	Name   string // "GET /items"
	Answer any
}

// parityRequests are the requests of the snapshot, in order. The writes
// come last, each read back at once; /items after them must not change.
func (c *checker) parityRequests() [][2]string {
	reqs := [][2]string{
		{"GET", "/up"}, {"GET", "/json"}, {"GET", "/items"}, {"GET", "/page"},
		{"GET", "/bench/read"}, {"GET", "/bench/pragmas"},
	}
	if c.cfg.UpstreamURL != "" {
		reqs = append(reqs, [2]string{"GET", "/bench/upstream"})
	}
	reqs = append(reqs, notFoundRequests...)
	reqs = append(reqs, wrongMethodRequests...)
	return append(reqs,
		[2]string{"POST", "/bench/write"}, [2]string{"GET", "/bench/read"},
		[2]string{"POST", "/bench/write"}, [2]string{"GET", "/bench/read"},
		[2]string{"GET", "/items"})
}

func (c *checker) snapshot() (*snapshot, error) {
	s := &snapshot{Stack: c.cfg.Stack}
	for _, r := range c.parityRequests() {
		a, err := c.do(r[0], r[1])
		if err != nil {
			return nil, err
		}
		s.Exchanges = append(s.Exchanges, exchange{Name: r[0] + " " + r[1], Answer: normalise(a)})
	}
	signedIn, err := c.signedInExchanges()
	if err != nil {
		return nil, err
	}
	s.Exchanges = append(s.Exchanges, signedIn...)
	return s, nil
}

// normalise keeps of an answer what docs/app.md fixes: the status always; for a
// 404 or 405 nothing else (their bodies are the framework's); else the
// media type and the body: JSON in canonical form (key order kept) with
// /bench/read's created_at, /bench/pragmas' connection and a 502's error
// text left out, /page as its title and its items' ids and unescaped
// titles, text as it is.
func normalise(a *answer) any {
	out := object{{"status", json.Number(fmt.Sprint(a.status))}}
	if a.status == 404 || a.status == 405 {
		return out
	}
	mt, _, _ := mime.ParseMediaType(a.header.Get("Content-Type"))
	out = append(out, member{"type", mt})
	switch {
	case mt == "application/json":
		v, err := decodeOrdered(a.body)
		if err != nil {
			return append(out, member{"body", "not JSON: " + cut(a.body)})
		}
		if a.path == "/bench/pragmas" && a.status == 200 {
			return append(out, member{"body", pragmasContent(v)})
		}
		return append(out, member{"body", dropVolatile(a.path, v)})
	case mt == "text/html":
		return append(out, member{"page", pageContent(a.body)})
	default:
		return append(out, member{"body", string(a.body)})
	}
}

// pragmasContent is /bench/pragmas' answer as parity compares it: that it
// holds its database's settings as docs/app.md asks (SQLite's pragmas, or the
// Postgres session's), so a row on SQLite and one on Postgres agree; any
// other answer as it is, its connection left out. The pragmas check is
// where each connection's values are held to its own database's.
func pragmasContent(v any) any {
	o, ok := v.(object)
	if ok && len(o) > 0 && o[len(o)-1].Key == "connection" {
		set := canonical(o[:len(o)-1])
		if slices.Equal(set, canonical(sqlitePragmaWant)) || slices.Equal(set, canonical(pgSettingsWant)) {
			return "the database's settings as docs/app.md asks"
		}
	}
	return dropVolatile("/bench/pragmas", v)
}

// dropVolatile removes what differs between two correct stacks.
func dropVolatile(path string, v any) any {
	o, ok := v.(object)
	if !ok {
		return v
	}
	var out object
	for _, m := range o {
		switch {
		case path == "/bench/pragmas" && m.Key == "connection":
			continue
		case m.Key == "error":
			out = append(out, member{m.Key, "(message)"})
			continue
		case path == "/bench/read" && m.Key == "latest":
			list, _ := m.Val.([]any)
			ids := []any{}
			for _, e := range list {
				if eo, ok := e.(object); ok {
					id, _ := eo.get("id")
					ids = append(ids, id)
				}
			}
			out = append(out, member{"latest ids", ids})
			continue
		}
		out = append(out, m)
	}
	return out
}

// pageContent is what /page shows: its title, then each <li>'s id and
// title, unescaped; the markup around them is each stack's own.
func pageContent(body []byte) any {
	s := string(body)
	title := ""
	if m := titleTextRE.FindStringSubmatch(s); m != nil {
		title = strings.TrimSpace(html.UnescapeString(m[1]))
	}
	items := []any{}
	for _, m := range liRE.FindAllStringSubmatch(s, -1) {
		items = append(items, []any{json.Number(m[1]), html.UnescapeString(m[2])})
	}
	return object{{"title", title}, {"items", items}}
}

// body is the snapshot as one ordered value, the form written.
func (s *snapshot) body() object {
	var ex []any
	for _, e := range s.Exchanges {
		ex = append(ex, object{{"request", e.Name}, {"answer", e.Answer}})
	}
	return object{{"stack", s.Stack}, {"exchanges", ex}}
}

// encode writes one exchange a line, so two snapshots diff well.
func (s *snapshot) encode() []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"stack\": ")
	writeString(&b, s.Stack)
	b.WriteString(",\n  \"exchanges\": [\n")
	for i, e := range s.Exchanges {
		b.WriteString("    ")
		writeCanonical(&b, object{{"request", e.Name}, {"answer", e.Answer}})
		if i < len(s.Exchanges)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ]\n}\n")
	return b.Bytes()
}

func readSnapshot(path string) (*snapshot, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	v, err := decodeOrdered(b)
	if err != nil {
		return nil, fmt.Errorf("%s: not a parity snapshot: %v", path, err)
	}
	o, ok := v.(object)
	want := []string{"stack", "exchanges"}
	if !ok || !slices.Equal(o.keys(), want) {
		return nil, fmt.Errorf("%s: not a parity snapshot (want the keys %v)", path, want)
	}
	stack, _ := o[0].Val.(string)
	list, ok := o[1].Val.([]any)
	if stack == "" || !ok {
		return nil, fmt.Errorf("%s: not a parity snapshot (a stack and a list of exchanges)", path)
	}
	s := &snapshot{Stack: stack}
	for i, e := range list {
		eo, ok := e.(object)
		if !ok || !slices.Equal(eo.keys(), []string{"request", "answer"}) {
			return nil, fmt.Errorf("%s: exchange %d: want the keys [request answer]", path, i)
		}
		name, _ := eo[0].Val.(string)
		s.Exchanges = append(s.Exchanges, exchange{Name: name, Answer: eo[1].Val})
	}
	return s, nil
}

// parityResult is a comparison of snapshots with the first.
type parityResult struct {
	identical, mismatched int
	diffs                 []string // one line per stack that differs, its first difference
	first                 string   // the first difference with both answers in full
}

// compareSnapshots compares each exchange of every snapshot with the
// first's and counts the identical and mismatched answers.
func compareSnapshots(snaps []*snapshot) parityResult {
	var p parityResult
	ref := snaps[0]
	for _, s := range snaps[1:] {
		firstHere := ""
		for i := range max(len(ref.Exchanges), len(s.Exchanges)) {
			d := ""
			switch {
			case i >= len(s.Exchanges):
				d = fmt.Sprintf("%s: missing", ref.Exchanges[i].Name)
			case i >= len(ref.Exchanges):
				d = fmt.Sprintf("%s: not in %s's snapshot", s.Exchanges[i].Name, ref.Stack)
			case ref.Exchanges[i].Name != s.Exchanges[i].Name:
				d = fmt.Sprintf("exchange %d: %s vs %s", i, ref.Exchanges[i].Name, s.Exchanges[i].Name)
			default:
				d = firstDifference(s.Exchanges[i].Name, ref.Exchanges[i].Answer, s.Exchanges[i].Answer)
			}
			if d == "" {
				p.identical++
				continue
			}
			p.mismatched++
			if firstHere == "" {
				firstHere = d
			}
			if p.first == "" {
				p.first = fmt.Sprintf("%s differs from %s at %s", s.Stack, ref.Stack, d)
				if i < len(ref.Exchanges) && i < len(s.Exchanges) {
					p.first += fmt.Sprintf("; %s answered %s; %s answered %s",
						ref.Stack, canonical(ref.Exchanges[i].Answer), s.Stack, canonical(s.Exchanges[i].Answer))
				}
			}
		}
		if firstHere != "" {
			p.diffs = append(p.diffs, fmt.Sprintf("%s differs from %s at %s (%s vs %s)", s.Stack, ref.Stack, firstHere, ref.Stack, s.Stack))
		}
	}
	return p
}
