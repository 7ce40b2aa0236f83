package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 2); got != 4 {
		t.Errorf("Add(2, 2) = %d, want 4", got)
	}
}

func TestSub(t *testing.T) {
	if got := Sub(3, 1); got != 2 {
		t.Errorf("Sub(3, 1) = %d, want 2", got)
	}
}

func TestLater(t *testing.T) {
	t.Skip("not written yet")
}
