package main

import "fmt"

func main() {
	var n int = "three"
	fmt.Println(n)
}
