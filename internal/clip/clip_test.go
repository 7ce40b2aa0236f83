package clip

import "testing"

func TestString(t *testing.T) {
	tests := []struct {
		s    string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"a longer text", 8, "a longer…"},
		{"héllo", 2, "h…"}, // é is two bytes: not split
		{"日本語", 4, "日…"},
		{"日本語", 0, "…"},
	}
	for _, tt := range tests {
		if got := String(tt.s, tt.max); got != tt.want {
			t.Errorf("String(%q, %d) = %q, want %q", tt.s, tt.max, got, tt.want)
		}
	}
}

func TestBoundary(t *testing.T) {
	if got := Boundary("aé", 2); got != 1 {
		t.Errorf("Boundary(aé, 2) = %d, want 1", got)
	}
	if got := Boundary("abc", 2); got != 2 {
		t.Errorf("Boundary(abc, 2) = %d, want 2", got)
	}
}
