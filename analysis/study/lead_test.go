package study

import (
	"reflect"
	"strings"
	"testing"
)

// A study's lead is its first row, whether its rows are its stacks list,
// its variants or every stack; a lead that is none of them leaves the
// order alone (the bench's plan refuses it); an included study may not
// name one.
func TestLead(t *testing.T) {
	const cases = "\n[[case]]\nname = \"up\"\npath = \"/up\"\n"
	for _, c := range []struct {
		head string
		all  []string
		want []string
	}{
		{`stacks = ["a", "b", "c"]` + "\n" + `lead = "c"`, nil, []string{"c", "a", "b"}},
		{`lead = "b"`, []string{"a", "b", "c"}, []string{"b", "a", "c"}},
		{`lead = "a"`, []string{"a", "b"}, []string{"a", "b"}},
		{`lead = "z"`, []string{"a", "b"}, []string{"a", "b"}},
		{"", []string{"a", "b"}, []string{"a", "b"}},
	} {
		s, err := Parse("lead.toml", []byte(c.head+cases), nil)
		if err != nil {
			t.Fatalf("%q: %v", c.head, err)
		}
		if got := s.Rows(c.all); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q over %v: rows %v, want %v", c.head, c.all, got, c.want)
		}
	}
	s, err := Load("../../studies/all.toml")
	if err != nil || s.Lead != "python-fastapi" {
		t.Errorf("all: lead %q (%v), want python-fastapi: a first look opens on a row not at the generator's limit", s.Lead, err)
	}
	inc := func(name string) (string, []byte, error) {
		return name + ".toml", []byte(`lead = "a"` + cases), nil
	}
	if _, err := Parse("top.toml", []byte(`include = ["other"]`), inc); err == nil || !strings.Contains(err.Error(), "no include, stacks, lead,") {
		t.Errorf("an included study with a lead: %v", err)
	}
}
