package sandbox_test

import (
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/sandbox"
)

func TestParseMode(t *testing.T) {
	for in, want := range map[string]sandbox.Mode{"auto": sandbox.Auto, "on": sandbox.On, "off": sandbox.Off, "ON": sandbox.On} {
		if got, err := sandbox.ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v", in, got, err)
		}
		if m, _ := sandbox.ParseMode(in); m.String() != strings.ToLower(in) {
			t.Errorf("%v.String() = %q", m, m.String())
		}
	}
	if _, err := sandbox.ParseMode("maybe"); err == nil || !strings.Contains(err.Error(), `"maybe" is not one of auto, on, off`) {
		t.Errorf("ParseMode(maybe) = %v", err)
	}
}
