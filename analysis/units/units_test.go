package units

import (
	"testing"

	_ "stacklab/formats/golden" // knows -update
)

func TestFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Rate(48213.4), "48,213"},
		{Rate(1234567.8), "1,234,568"},
		{Rate(57.34), "57.3"},
		{Rate(4.254), "4.25"},
		{Ms(0.4123), "0.412"},
		{Ms(12.34), "12.3"},
		{Ms(2100), "2,100"},
		{Seconds(0.00085), "850 µs"},
		{Seconds(0.0031), "3.10 ms"},
		{Seconds(2.1), "2.10 s"},
		{SecondsRange(2.1, 4), "2.10–4.00 s"},
		{SecondsRange(0.9, 1.2), "900 ms–1.20 s"},
		{Bytes(245 << 20), "245 MiB"},
		{Bytes(3.51 * (1 << 30)), "3.51 GiB"},
		{Bytes(512), "512 B"},
		{Ratio(0.3749), "0.37×"},
		{Percent(0.731), "73%"},
		{Group(-1234), "-1,234"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// A whole count of users is written whole; a rate, or users not whole, as
// a rate.
func TestAmount(t *testing.T) {
	for _, c := range []struct {
		v     float64
		users bool
		want  string
	}{{38, true, "38"}, {3200, true, "3,200"}, {38, false, "38.0"}, {37.5, true, "37.5"}} {
		if got := Amount(c.v, c.users); got != c.want {
			t.Errorf("Amount(%v, %v) = %q, want %q", c.v, c.users, got, c.want)
		}
	}
}
