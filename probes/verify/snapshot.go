package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
)

// snapshot is what must be the same bytes on every stack after the same
// writes (APP.md, parity): /json, /items, and the ids and count of
// /bench/read, each normalised to canonical JSON.
type snapshot struct {
	Stack  string
	Writes int
	JSON   any
	Items  any
	Read   any // {"count":N,"ids":[...]}
}

func (c *checker) snapshot() (*snapshot, error) {
	j, _, err := c.getJSON("/json")
	if err != nil {
		return nil, err
	}
	items, _, err := c.getJSON("/items")
	if err != nil {
		return nil, err
	}
	r, err := c.read()
	if err != nil {
		return nil, err
	}
	ids := make([]any, len(r.ids))
	for i, id := range r.ids {
		ids[i] = json.Number(fmt.Sprint(id))
	}
	read := object{{"count", json.Number(fmt.Sprint(r.count))}, {"ids", ids}}
	return &snapshot{Stack: c.cfg.Stack, Writes: c.cfg.Writes, JSON: j, Items: items, Read: read}, nil
}

// body is the snapshot as one ordered value, the form compared and written.
func (s *snapshot) body() object {
	return object{
		{"stack", s.Stack},
		{"writes", json.Number(fmt.Sprint(s.Writes))},
		{"json", s.JSON},
		{"items", s.Items},
		{"read", s.Read},
	}
}

// encode writes one top-level key a line, so two snapshots diff well.
func (s *snapshot) encode() []byte {
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, m := range s.body() {
		b.WriteString("  ")
		writeString(&b, m.Key)
		b.WriteString(": ")
		writeCanonical(&b, m.Val)
		if i < len(s.body())-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}\n")
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
	want := []string{"stack", "writes", "json", "items", "read"}
	if !ok || !slices.Equal(o.keys(), want) {
		return nil, fmt.Errorf("%s: not a parity snapshot (want the keys %v)", path, want)
	}
	stack, _ := o[0].Val.(string)
	writes, err := integer("writes", o[1].Val)
	if err != nil || stack == "" {
		return nil, fmt.Errorf("%s: not a parity snapshot (stack and writes)", path)
	}
	return &snapshot{Stack: stack, Writes: int(writes), JSON: o[2].Val, Items: o[3].Val, Read: o[4].Val}, nil
}

// compareSnapshots compares every snapshot with the first and returns one
// line per stack that differs, naming the first difference.
func compareSnapshots(snaps []*snapshot) []string {
	var diffs []string
	ref := snaps[0]
	for _, s := range snaps[1:] {
		a, b := ref.body()[1:], s.body()[1:] // everything but the name
		if d := firstDifference("", a, b); d != "" {
			diffs = append(diffs, fmt.Sprintf("%s differs from %s at %s (%s vs %s)", s.Stack, ref.Stack, d, ref.Stack, s.Stack))
		}
	}
	return diffs
}
