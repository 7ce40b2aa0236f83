package clip

import (
	"fmt"
	"strings"
	"sync"
)

// Capture is an io.Writer that keeps the start and the end of a stream
// that may be far longer than anyone should read, and counts what it left
// out. It is safe for concurrent writes.
type Capture struct {
	// Limit is how many bytes are kept in all; 0 means [DefaultLimit].
	Limit int
	// Head is how many of them come from the start of the stream; 0 means
	// three quarters of Limit. The rest come from its end.
	Head int

	mu    sync.Mutex
	head  []byte
	tail  []byte
	total int64
}

// DefaultLimit is what a [Capture] keeps when its Limit is 0.
const DefaultLimit = 32 << 10

// Write keeps what fits and counts the rest; it never fails.
func (c *Capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	limit := c.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	headCap := c.Head
	if headCap <= 0 {
		headCap = limit * 3 / 4
	}
	tailCap := limit - headCap
	c.total += int64(len(p))
	rest := p
	if n := headCap - len(c.head); n > 0 {
		n = min(n, len(rest))
		c.head = append(c.head, rest[:n]...)
		rest = rest[n:]
	}
	if len(rest) > 0 && tailCap > 0 {
		c.tail = append(c.tail, rest...)
		if over := len(c.tail) - tailCap; over > 0 {
			c.tail = append(c.tail[:0], c.tail[over:]...)
		}
	}
	return len(p), nil
}

// Total returns how many bytes were written.
func (c *Capture) Total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Truncated reports whether bytes were left out.
func (c *Capture) Truncated() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return int64(len(c.head)+len(c.tail)) != c.total
}

// String returns what was kept, as valid UTF-8, with a line in the middle
// saying how much was left out when anything was.
func (c *Capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := int64(len(c.head) + len(c.tail))
	if kept == c.total {
		return strings.ToValidUTF8(string(c.head)+string(c.tail), "\uFFFD")
	}
	return fmt.Sprintf("%s\n… %s left out …\n%s",
		strings.ToValidUTF8(string(c.head), "\uFFFD"), Size(c.total-kept),
		strings.ToValidUTF8(string(c.tail), "\uFFFD"))
}

// Size says n bytes the way a person reads it: "18 bytes", "4 KiB",
// "1.5 MiB".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
