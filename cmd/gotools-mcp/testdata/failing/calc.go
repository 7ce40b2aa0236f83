// Package calc adds and subtracts, not always well.
package calc

// Add returns a + b, except that it does not.
func Add(a, b int) int { return a + b + 1 }

// Sub returns a - b.
func Sub(a, b int) int { return a - b }
