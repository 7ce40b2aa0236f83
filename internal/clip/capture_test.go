package clip

import "testing"

func TestCaptureKeepsTheStartAndTheEnd(t *testing.T) {
	c := &Capture{Limit: 8}
	c.Write([]byte("abcdef"))
	if c.Truncated() || c.String() != "abcdef" {
		t.Fatalf("short output: %q, truncated %v", c.String(), c.Truncated())
	}
	c.Write([]byte("ghijklmnopqrstuvwxyz"))
	if want := "abcdef\n… 18 bytes left out …\nyz"; !c.Truncated() || c.String() != want {
		t.Errorf("long output: %q, want %q", c.String(), want)
	}
	if c.Total() != 26 {
		t.Errorf("Total = %d, want 26", c.Total())
	}
}

func TestCaptureHeadSetsTheShareOfTheStart(t *testing.T) {
	c := &Capture{Limit: 6, Head: 2}
	c.Write([]byte("abcdefghij"))
	if want := "ab\n… 4 bytes left out …\nghij"; c.String() != want {
		t.Errorf("got %q, want %q", c.String(), want)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{18: "18 bytes", 4096: "4 KiB", 1536: "1.5 KiB", 16 << 20: "16 MiB", 3 << 19: "1.5 MiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
