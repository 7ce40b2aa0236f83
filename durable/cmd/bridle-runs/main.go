// Command bridle-runs lists, inspects, approves, declines and cancels the
// durable agent runs stored in a database, from any machine that reaches it.
//
//	bridle-runs list
//	bridle-runs show RUN
//	bridle-runs approve [-always] [-by NAME] RUN
//	bridle-runs decline [-note TEXT] [-by NAME] RUN
//	bridle-runs cancel RUN
//	bridle-runs events RUN
//
// The database is BRIDLE_DATABASE_URL, or -db.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"text/tabwriter"
	"time"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/durable"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bridle-runs:", err)
		os.Exit(1)
	}
}

const usage = `usage: bridle-runs [-db URL] [-app NAME] [-schema NAME] COMMAND [ARGS]

commands:
  list                                 the runs and their state
  show RUN                             one run, with the call it waits on
  approve [-always] [-by NAME] RUN     run the call RUN waits on (-always: and later calls of that tool)
  decline [-note TEXT] [-by NAME] RUN  decline it; the note is kept with the run
  cancel RUN                           stop RUN
  events RUN                           what RUN stored, one JSON object a line

The database is -db, or BRIDLE_DATABASE_URL.
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bridle-runs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	db := fs.String("db", os.Getenv("BRIDLE_DATABASE_URL"), "PostgreSQL connection string")
	app := fs.String("app", "", "application name (default bridle)")
	schema := fs.String("schema", "", "database schema (default dbos)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errors.New("no command given")
	}
	if *db == "" {
		return errors.New("no database: set BRIDLE_DATABASE_URL or give -db")
	}
	cmd, rest := fs.Arg(0), fs.Args()[1:]
	c, err := durable.NewClient(ctx, &durable.Options{DatabaseURL: *db, AppName: *app, Schema: *schema})
	if err != nil {
		return err
	}
	defer c.Close()

	sub := flag.NewFlagSet("bridle-runs "+cmd, flag.ContinueOnError)
	sub.SetOutput(stderr)
	always := sub.Bool("always", false, "approve later calls of the same tool too")
	by := sub.String("by", os.Getenv("USER"), "who decides, for the record")
	note := sub.String("note", "", "why, kept with the run")
	if err := sub.Parse(rest); err != nil {
		return err
	}
	id := sub.Arg(0)
	needID := func() error {
		if sub.NArg() != 1 {
			return fmt.Errorf("%s takes one run id", cmd)
		}
		return nil
	}

	switch cmd {
	case "list":
		runs, err := c.Runs(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "RUN\tSTATE\tQUEUE\tAGENT\tUPDATED\tWAITS ON")
		for _, r := range runs {
			waits := ""
			if r.Pending != nil {
				waits = r.Pending.Name
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.State, r.Queue, r.Agent, r.Updated.Format(time.RFC3339), waits)
		}
		return tw.Flush()
	case "show":
		if err := needID(); err != nil {
			return err
		}
		r, err := c.Get(ctx, id)
		if err != nil {
			return err
		}
		return writeJSON(stdout, r, "  ")
	case "approve", "decline":
		if err := needID(); err != nil {
			return err
		}
		v := durable.Verdict{Decision: agent.Yes, By: *by, Note: *note}
		if *always {
			v.Decision = agent.Always
		}
		if cmd == "decline" {
			v.Decision = agent.No
		}
		if err := c.Decide(ctx, id, v); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %s\n", id, v.Decision)
		return nil
	case "cancel":
		if err := needID(); err != nil {
			return err
		}
		return c.Cancel(ctx, id)
	case "events":
		if err := needID(); err != nil {
			return err
		}
		evs, err := c.Events(ctx, id)
		if err != nil {
			return err
		}
		for _, e := range evs {
			if err := writeJSON(stdout, e, ""); err != nil {
				return err
			}
		}
		return nil
	}
	fs.Usage()
	return fmt.Errorf("unknown command %q", cmd)
}

func writeJSON(w io.Writer, v any, indent string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", indent)
	return enc.Encode(v)
}
