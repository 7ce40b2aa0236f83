package main

import (
	"context"

	"github.com/bridle-dev/bridle/bench/internal/addtool"
)

func serveBridle(ctx context.Context, addr string) error {
	s := addtool.Bridle()
	if addr == "" {
		return s.ServeStdio(ctx)
	}
	return serveHTTP(ctx, addr, s.HTTPHandler(nil))
}
