package seedsize

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	if err := Default.Check(); err != nil {
		t.Fatalf("the default: %v", err)
	}
	big := Default
	big.Items, big.Events = 100_000, 100_000
	if err := big.Check(); err != nil {
		t.Errorf("100,000 rows: %v", err)
	}
	for _, c := range []struct {
		edit func(*Size)
		want string
	}{
		{func(s *Size) { s.Items = 0 }, "items: want a whole number from 1"},
		{func(s *Size) { s.Events = MaxEvents + 1 }, "events: want"},
		{func(s *Size) { s.Users = -1 }, "users: want"},
		{func(s *Size) { s.OrdersPerUser = 0 }, "orders per user: want"},
		{func(s *Size) { s.Users, s.OrdersPerUser = MaxUsers, 101 }, "more than the 100000000 the lab takes"},
	} {
		s := Default
		c.edit(&s)
		if err := s.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want …%s…", s, err, c.want)
		}
	}
	if got := strings.Join(Default.Args(), " "); got != "--items 1000 --events 1000 --users 100 --orders-per-user 50" {
		t.Errorf("args %q", got)
	}
}
