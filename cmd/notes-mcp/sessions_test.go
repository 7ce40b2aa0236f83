package main

import (
	"testing"
	"time"
)

func TestSessionTimeoutFlag(t *testing.T) {
	getenv := func(k string) string {
		if k == "HOME" {
			return "/h"
		}
		return ""
	}
	for _, c := range []struct {
		name string
		args []string
		want time.Duration
		err  string
	}{
		{"idle HTTP sessions close after 30 minutes by default", []string{"--http", "0"}, 30 * time.Minute, ""},
		{"--session-timeout sets how long", []string{"--http", "0", "--session-timeout", "5m"}, 5 * time.Minute, ""},
		{"--session-timeout 0 keeps idle sessions", []string{"--http", "0", "--session-timeout", "0"}, -1, ""},
		{"a negative --session-timeout is a usage error", []string{"--http", "0", "--session-timeout", "-1s"}, 0, "--session-timeout is -1s: give a duration such as 30m"},
		{"a --session-timeout that is not a duration is a usage error", []string{"--http", "0", "--session-timeout", "soon"}, 0, `invalid value "soon" for flag -session-timeout`},
		{"--session-timeout without --http is a usage error", []string{"--session-timeout", "5m"}, 0, "--session-timeout only applies with --http PORT"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parseArgs(c.args, getenv)
			if c.err != "" {
				wantErr(t, err, c.err)
				if _, ok := err.(usageError); !ok {
					t.Errorf("error %v is not a usage error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := httpOptions(cfg, nil).SessionTimeout; got != c.want {
				t.Errorf("HTTPOptions.SessionTimeout = %v, want %v", got, c.want)
			}
		})
	}
}

func TestMaxSessionsFlag(t *testing.T) {
	getenv := func(string) string { return "/h" }
	for _, c := range []struct {
		name string
		args []string
		want int
		err  string
	}{
		{"at most 1000 HTTP sessions by default", []string{"--http", "0"}, 1000, ""},
		{"--max-sessions sets the bound", []string{"--http", "0", "--max-sessions", "10"}, 10, ""},
		{"--max-sessions 0 lifts it", []string{"--http", "0", "--max-sessions", "0"}, -1, ""},
		{"a negative --max-sessions is a usage error", []string{"--http", "0", "--max-sessions", "-2"}, 0, "--max-sessions is -2"},
		{"--max-sessions without --http is a usage error", []string{"--max-sessions", "5"}, 0, "--max-sessions only applies with --http PORT"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parseArgs(c.args, getenv)
			if c.err != "" {
				wantErr(t, err, c.err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := httpOptions(cfg, nil).MaxSessions; got != c.want {
				t.Errorf("HTTPOptions.MaxSessions = %d, want %d", got, c.want)
			}
		})
	}
}
