package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The lab compares JSON with its key order: encoding/json's maps forget it,
// so answers are decoded into these types instead.

// member is one key and its value, in the order the answer wrote them.
type member struct {
	Key string
	Val any
}

// object is a JSON object; the other values decode as []any, string,
// json.Number, bool and nil.
type object []member

func (o object) keys() []string {
	k := make([]string, len(o))
	for i, m := range o {
		k[i] = m.Key
	}
	return k
}

func (o object) get(key string) (any, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Val, true
		}
	}
	return nil, false
}

// decodeOrdered parses one JSON document, keeping key order, and rejects
// trailing data.
func decodeOrdered(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := decodeValue(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

func decodeValue(d *json.Decoder) (any, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := object{}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				o = append(o, member{Key: kt.(string), Val: v})
			}
			_, err := d.Token() // '}'
			return o, err
		case '[':
			a := []any{}
			for d.More() {
				v, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := d.Token() // ']'
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// canonical writes v compactly, keys in their order, strings without HTML
// escaping and integers in plain decimal: two answers that differ only in
// whitespace or escaping give the same bytes.
func canonical(v any) []byte {
	var b bytes.Buffer
	writeCanonical(&b, v)
	return b.Bytes()
}

func writeCanonical(b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case object:
		b.WriteByte('{')
		for i, m := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, m.Key)
			b.WriteByte(':')
			writeCanonical(b, m.Val)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, e)
		}
		b.WriteByte(']')
	case string:
		writeString(b, v)
	case json.Number:
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			b.WriteString(strconv.FormatInt(n, 10))
		} else {
			b.WriteString(string(v))
		}
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case nil:
		b.WriteString("null")
	default:
		panic(fmt.Sprintf("canonical: unexpected %T", v))
	}
}

func writeString(b *bytes.Buffer, s string) {
	var sb bytes.Buffer
	e := json.NewEncoder(&sb)
	e.SetEscapeHTML(false)
	_ = e.Encode(s) // a string always encodes
	b.Write(bytes.TrimSuffix(sb.Bytes(), []byte("\n")))
}

// firstDifference walks a and b in order and describes where they first
// differ ("items.items[3].title: \"x\" vs \"y\""), or "" when they are equal.
func firstDifference(path string, a, b any) string {
	switch av := a.(type) {
	case object:
		bv, ok := b.(object)
		if !ok {
			return fmt.Sprintf("%s: %s vs %s", path, short(a), short(b))
		}
		for i := 0; i < len(av) && i < len(bv); i++ {
			if av[i].Key != bv[i].Key {
				return fmt.Sprintf("%s: key %d is %q vs %q", path, i, av[i].Key, bv[i].Key)
			}
			if d := firstDifference(join(path, av[i].Key), av[i].Val, bv[i].Val); d != "" {
				return d
			}
		}
		if len(av) != len(bv) {
			return fmt.Sprintf("%s: keys %v vs %v", path, av.keys(), bv.keys())
		}
		return ""
	case []any:
		bv, ok := b.([]any)
		if !ok {
			return fmt.Sprintf("%s: %s vs %s", path, short(a), short(b))
		}
		for i := 0; i < len(av) && i < len(bv); i++ {
			if d := firstDifference(fmt.Sprintf("%s[%d]", path, i), av[i], bv[i]); d != "" {
				return d
			}
		}
		if len(av) != len(bv) {
			return fmt.Sprintf("%s: %d elements vs %d", path, len(av), len(bv))
		}
		return ""
	default:
		if !bytes.Equal(canonical(a), canonical(b)) {
			return fmt.Sprintf("%s: %s vs %s", path, short(a), short(b))
		}
		return ""
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// short is v's canonical JSON, cut to a length that fits a line.
func short(v any) string {
	s := string(canonical(v))
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// keysString is a key list as the contract writes it: [a b c].
func keysString(k []string) string { return "[" + strings.Join(k, " ") + "]" }
