package bench

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/bridle-dev/bridle/bench/internal/addtool"
	"github.com/bridle-dev/bridle/tool"
)

// BenchmarkToolCall measures what package tool costs a server per call of
// the add tool, and what a validation fast path would save:
//
//	call           tool.Tool.Call: Validate (JSON Schema), then the typed Func
//	call-goroutine the same in a new goroutine, as a server runs each call
//	call-worker    the same handed to a goroutine that lives on (its stack
//	               has grown already)
//	validate       tool.Tool.Validate alone
//	func           the typed Func alone (decode into the struct, add)
//	simple+func    tool.Tool.Validate, then Func: Call without its panic
//	               recovery (Validate skips the JSON Schema engine for flat
//	               schemas such as this one)
//	simple+func-goroutine  the same in a new goroutine
func BenchmarkToolCall(b *testing.B) {
	add := tool.New("add", "adds two numbers", tool.Read,
		func(ctx context.Context, in addtool.Args) (string, error) { return addtool.Sum(in.A, in.B), nil })
	args := json.RawMessage(`{"a":2,"b":3}`)
	ctx := context.Background()
	simple := add
	check := func(out string, err error) {
		if err != nil || out != "5" {
			b.Fatalf("add gave %q, %v", out, err)
		}
	}
	b.Run("call", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			check(add.Call(ctx, args))
		}
	})
	b.Run("call-goroutine", func(b *testing.B) {
		b.ReportAllocs()
		done := make(chan struct{})
		for b.Loop() {
			go func() {
				check(add.Call(ctx, args))
				done <- struct{}{}
			}()
			<-done
		}
	})
	b.Run("call-worker", func(b *testing.B) {
		b.ReportAllocs()
		work, done := make(chan struct{}), make(chan struct{})
		go func() {
			for range work {
				check(add.Call(ctx, args))
				done <- struct{}{}
			}
		}()
		for b.Loop() {
			work <- struct{}{}
			<-done
		}
		close(work)
	})
	b.Run("validate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := add.Validate(args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("func", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			check(add.Func(ctx, args))
		}
	})
	b.Run("simple+func", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := simple.Validate(args); err != nil {
				b.Fatal(err)
			}
			check(add.Func(ctx, args))
		}
	})
	b.Run("simple+func-goroutine", func(b *testing.B) {
		b.ReportAllocs()
		done := make(chan struct{})
		for b.Loop() {
			go func() {
				if err := simple.Validate(args); err != nil {
					panic(err)
				}
				check(add.Func(ctx, args))
				done <- struct{}{}
			}()
			<-done
		}
	})
}
