package stacks

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"stacklab/formats/seedsize"
)

// The password hash every stack verifies (docs/app.md, "Users and orders"):
// bcrypt's $2b$ at cost 10.
const (
	HashPrefix = "$2b$"
	HashCost   = 10
)

// Size is how many rows a seed holds (package seedsize owns it and its
// limits: a study names a size without importing the seeder).
type Size = seedsize.Size

// DefaultSize is the seed's size when none is asked for.
var DefaultSize = seedsize.Default

type User struct {
	ID           int64
	Email        string
	PasswordHash string
	CreatedAt    int64
}

type Order struct {
	ID         int64
	UserID     int64
	Email      string
	Status     string
	TotalCents int64
	Currency   string
	PlacedAt   int64
}

// UserEmail and UserPassword are the seeded credentials of user id.
func UserEmail(id int64) string    { return fmt.Sprintf("user%d@lab.example", id) }
func UserPassword(id int64) string { return fmt.Sprintf("lab-password-%d", id) }

// Users returns the seeded users with their password hashes, computed with
// the spec's scheme or taken from the hash cache (hashCache).
func Users(n int) ([]User, error) {
	cache, err := loadHashCache()
	if err != nil {
		return nil, err
	}
	users := make([]User, 0, n)
	for i := 1; i <= n; i++ {
		id := int64(i)
		h, err := cache.hash(id)
		if err != nil {
			return nil, err
		}
		users = append(users, User{ID: id, Email: UserEmail(id), PasswordHash: h, CreatedAt: seedEpochMs + id*1000})
	}
	if err := cache.save(); err != nil {
		return nil, err
	}
	return users, nil
}

// userSalt is user id's 16 salt bytes, from an LCG of its own per user, so
// user 7's hash does not depend on how many users a seed holds.
func userSalt(id int64) [16]byte {
	r := rng(0x5eed0000 + uint64(id))
	var s [16]byte
	for i := range s {
		s[i] = byte(r.next(256))
	}
	return s
}

var currencies = []string{"EUR", "USD", "GBP", "CHF"}

// Orders returns the seeded orders, dealt round-robin to the users.
func Orders(s Size) []Order {
	r := rng(7)
	n := s.Users * s.OrdersPerUser
	orders := make([]Order, 0, n)
	for i := 1; i <= n; i++ {
		id := int64(i)
		user := int64((i-1)%s.Users + 1)
		email := UserEmail(user)
		if r.next(4) == 0 {
			email = fmt.Sprintf("buyer%d@shop.example", 1+r.next(1000))
		}
		status := "PAID"
		switch p := r.next(100); {
		case p < 25:
			status = "PENDING"
		case p < 35:
			status = "CANCELLED"
		case p < 40:
			status = "EXPIRED"
		}
		orders = append(orders, Order{
			ID: id, UserID: user, Email: email, Status: status,
			TotalCents: int64(100 + r.next(99_900)), Currency: currencies[r.next(len(currencies))],
			PlacedAt: seedEpochMs + id*1000,
		})
	}
	return orders
}

// hashCache keeps the users' bcrypt strings between seeds: a window starts
// from a fresh seed, and 100 hashes at cost 10 take seconds. A line is kept
// only when its salt is the one userSalt gives, so a cache of another seed
// version or cost is never used; the file is written whole (rename).
type hashCache struct {
	path    string
	byID    map[int64]string
	changed bool
}

// hashCacheVersion names what a cached hash depends on besides the scheme:
// the passwords' and salts' rule. Change it when either changes.
const hashCacheVersion = "v1"

var bcryptString = regexp.MustCompile(`^\$2b\$\d\d\$[./A-Za-z0-9]{53}$`)

func hashCachePath() string {
	dir := os.Getenv("XDG_CACHE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		dir = filepath.Join(home, ".cache")
	}
	return filepath.Join(dir, "stacklab", "seed", fmt.Sprintf("bcrypt-2b-%d-%s.txt", HashCost, hashCacheVersion))
}

func loadHashCache() (*hashCache, error) {
	c := &hashCache{path: hashCachePath(), byID: map[int64]string{}}
	if c.path == "" {
		return c, nil
	}
	f, err := os.Open(c.path)
	if os.IsNotExist(err) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		id, h, ok := strings.Cut(sc.Text(), " ")
		n, err := strconv.ParseInt(id, 10, 64)
		if ok && err == nil && n > 0 && bcryptString.MatchString(h) {
			c.byID[n] = h
		}
	}
	return c, nil
}

func (c *hashCache) hash(id int64) (string, error) {
	if h, ok := c.byID[id]; ok {
		// The setting (scheme, cost, salt) is cheap to make: a line whose
		// first 29 bytes differ was made by another rule.
		want, err := bcryptSetting(userSalt(id))
		if err == nil && strings.HasPrefix(h, want) {
			return h, nil
		}
	}
	h, err := bcryptHash(UserPassword(id), userSalt(id))
	if err != nil {
		return "", err
	}
	c.byID[id] = h
	c.changed = true
	return h, nil
}

func (c *hashCache) save() error {
	if !c.changed || c.path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return nil // a cache that cannot be kept only costs time
	}
	ids := make([]int64, 0, len(c.byID))
	for id := range c.byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, "%d %s\n", id, c.byID[id])
	}
	tmp := fmt.Sprintf("%s.%d.tmp", c.path, os.Getpid())
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return nil
	}
	if err := os.Rename(tmp, c.path); err != nil {
		os.Remove(tmp)
	}
	return nil
}
