// Package seedsize is the size of the lab app's seed (docs/app.md, "Schema
// and seed"): how many items, bench_events, users and orders per user a
// fresh database holds, the lab's limits on each, and the seed command's
// flags for them. A study's [seed] sets it, the bench hands it to every
// seed it writes, and the manifest records it with the seed's checksum.
package seedsize

import (
	"fmt"
	"strconv"
)

// Size is how many rows a seed holds.
type Size struct {
	Items         int `toml:"items" json:"items"`
	Events        int `toml:"events" json:"events"`
	Users         int `toml:"users" json:"users"`
	OrdersPerUser int `toml:"orders_per_user" json:"orders_per_user"`
}

// Default is the seed's size when none is asked for: small and fast.
var Default = Size{Items: 1000, Events: 1000, Users: 100, OrdersPerUser: 50}

// The largest seed the lab takes: ids stay far inside 32-bit integers for
// stacks that map them so, and the file inside a disk. Each user costs a
// bcrypt hash at cost 10 the first time (tens of milliseconds; the seeder
// keeps them in a cache of its own).
const (
	MaxItems  = 10_000_000
	MaxEvents = 10_000_000
	MaxUsers  = 1_000_000
	MaxOrders = 100_000_000
)

// Check says what is wrong with a size, naming the count (as a study's key
// and the seed's flag both spell it).
func (s Size) Check() error {
	switch {
	case s.Items < 1 || s.Items > MaxItems:
		return fmt.Errorf("items: want a whole number from 1 to %d (got %d)", MaxItems, s.Items)
	case s.Events < 1 || s.Events > MaxEvents:
		return fmt.Errorf("events: want a whole number from 1 to %d (got %d)", MaxEvents, s.Events)
	case s.Users < 1 || s.Users > MaxUsers:
		return fmt.Errorf("users: want a whole number from 1 to %d (got %d)", MaxUsers, s.Users)
	case s.OrdersPerUser < 1:
		return fmt.Errorf("orders per user: want a whole number of at least 1 (got %d)", s.OrdersPerUser)
	case int64(s.Users)*int64(s.OrdersPerUser) > MaxOrders:
		return fmt.Errorf("orders: %d users × %d orders is %d, more than the %d the lab takes",
			s.Users, s.OrdersPerUser, int64(s.Users)*int64(s.OrdersPerUser), MaxOrders)
	}
	return nil
}

// Args is the seed command's flags for s.
func (s Size) Args() []string {
	return []string{"--items", strconv.Itoa(s.Items), "--events", strconv.Itoa(s.Events),
		"--users", strconv.Itoa(s.Users), "--orders-per-user", strconv.Itoa(s.OrdersPerUser)}
}
