package version

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	tests := []struct {
		name, main, want string
	}{
		{"a tagged install gives its tag", "v1.2.3", "v1.2.3"},
		{"a build of a commit gives its pseudo-version", "v0.0.0-20261201110000-5b91961abcde+dirty", "v0.0.0-20261201110000-5b91961abcde+dirty"},
		{"a build from a checkout is devel", "(devel)", Devel},
		{"no version is devel", "", Devel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/bridle-dev/bridle", Version: tt.main}}
			if got := fromBuildInfo(bi); got != tt.want {
				t.Errorf("fromBuildInfo(%q) = %q, want %q", tt.main, got, tt.want)
			}
		})
	}
	if String() == "" {
		t.Error("String() is empty")
	}
}
