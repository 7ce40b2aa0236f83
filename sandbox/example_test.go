package sandbox_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/bridle-dev/bridle/sandbox"
)

// Confine a command to a project folder: no network, nothing else
// writable, home folders out of sight.
func ExampleConfine() {
	project, _ := os.Getwd()
	cmd := exec.Command("go", "version")
	cmd.Dir = project
	err := sandbox.Confine(cmd, sandbox.Policy{Root: project, ReadOnly: []string{"/usr/local/go"}})
	switch {
	case errors.Is(err, sandbox.ErrUnavailable):
		fmt.Println("running unconfined:", err)
	case err != nil:
		fmt.Println(err)
		return
	}
	out, _ := cmd.Output()
	fmt.Print(string(out))
}
