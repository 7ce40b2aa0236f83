// Command clean greets the people named on its command line.
package main

import (
	"fmt"
	"os"

	"example.com/clean/greet"
)

func main() {
	for _, name := range os.Args[1:] {
		fmt.Println(greet.Hello(name))
	}
}
