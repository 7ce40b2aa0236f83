package durable

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bridle-dev/bridle/agent"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// ErrNotWaiting is returned by [Client.Decide] for a run that does not
// wait for a decision (any more).
var ErrNotWaiting = errors.New("the run is not waiting for a decision")

// ErrNoRun is returned for a run id that names no run.
var ErrNoRun = errors.New("no such run")

// Client starts, lists, decides about and cancels runs from any process;
// it runs nothing itself. A [Worker] has one ([Worker.Client]); other
// processes make their own with [NewClient].
type Client struct {
	c     dbos.Client
	owned bool
}

// NewClient connects to the database of the workers; opts is as for
// [NewWorker] (only DatabaseURL, AppName, Schema and Logger count).
func NewClient(ctx context.Context, opts *Options) (*Client, error) {
	cfg, err := opts.config()
	if err != nil {
		return nil, err
	}
	c, err := dbos.NewClient(ctx, dbos.ClientConfig{
		AppName:        cfg.AppName,
		DatabaseURL:    cfg.DatabaseURL,
		DatabaseSchema: cfg.DatabaseSchema,
		Logger:         cfg.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("durable: connecting to the database: %w", err)
	}
	return &Client{c: c, owned: true}, nil
}

// Close releases a client made by [NewClient]; a worker's client closes
// with the worker.
func (c *Client) Close() {
	if c.owned {
		dbos.Shutdown(c.c, 5*time.Second)
	}
}

// Start queues a run of in and returns its id: id itself, or a new one when
// id is empty. Starting an id that exists returns an error. An id must not
// hold '/'.
func (c *Client) Start(ctx context.Context, id string, in Input) (string, error) {
	if id == "" {
		var b [12]byte
		rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	if err := checkID(id); err != nil {
		return "", err
	}
	_, err := dbos.Enqueue[segResult](c.client(ctx), in.queue(), runWorkflow, in,
		dbos.WithEnqueueWorkflowID(id), dbos.WithEnqueueWorkflowIDReusePolicy(dbos.WorkflowIDReusePolicyReject))
	if err != nil {
		return "", fmt.Errorf("durable: starting run %q on queue %q: %w", id, in.queue(), err)
	}
	return id, nil
}

func checkID(id string) error {
	if id == "" || strings.Contains(id, "/") {
		return fmt.Errorf("durable: run id %q is empty or holds '/': choose one without", id)
	}
	return nil
}

// client returns the engine's client; ctx is not carried (the engine's
// calls take none) but is checked.
func (c *Client) client(context.Context) dbos.Client { return c.c }

// workflows returns the workflows of run id, or of every run when id is
// empty, oldest first.
func (c *Client) workflows(ctx context.Context, id string) ([]dbos.WorkflowStatus, error) {
	opts := []dbos.ListWorkflowsOption{dbos.WithFilterName(runWorkflow, gateWorkflow), dbos.WithFilterLoadInput(true), dbos.WithFilterLoadOutput(false)}
	if id != "" {
		opts = append(opts, dbos.WithFilterWorkflowIDPrefix(id))
	}
	ws, err := dbos.ListWorkflows(c.client(ctx), opts...)
	if err != nil {
		return nil, fmt.Errorf("durable: listing runs: %w", err)
	}
	if id != "" {
		ws = slices.DeleteFunc(ws, func(w dbos.WorkflowStatus) bool { r, _, _ := splitID(w.ID); return r != id })
	}
	return ws, nil
}

// view is what a run's workflows say about it.
type view struct {
	run    Run
	active string // the workflow to wait on, when it is not over
	last   string // the latest segment
}

// Runs lists the runs, oldest first.
func (c *Client) Runs(ctx context.Context) ([]Run, error) {
	ws, err := c.workflows(ctx, "")
	if err != nil {
		return nil, err
	}
	byRun := map[string][]dbos.WorkflowStatus{}
	var order []string
	for _, w := range ws {
		r, _, _ := splitID(w.ID)
		if byRun[r] == nil {
			order = append(order, r)
		}
		byRun[r] = append(byRun[r], w)
	}
	runs := make([]Run, 0, len(order))
	for _, r := range order {
		v, err := c.view(ctx, r, byRun[r])
		if err != nil {
			return nil, err
		}
		runs = append(runs, v.run)
	}
	slices.SortStableFunc(runs, func(a, b Run) int { return a.Created.Compare(b.Created) })
	return runs, nil
}

// Get describes run id; it returns [ErrNoRun] when there is none.
func (c *Client) Get(ctx context.Context, id string) (Run, error) {
	v, err := c.look(ctx, id)
	return v.run, err
}

func (c *Client) look(ctx context.Context, id string) (view, error) {
	ws, err := c.workflows(ctx, id)
	if err != nil {
		return view{}, err
	}
	if len(ws) == 0 {
		return view{}, fmt.Errorf("durable: run %q: %w", id, ErrNoRun)
	}
	return c.view(ctx, id, ws)
}

func (c *Client) view(ctx context.Context, id string, ws []dbos.WorkflowStatus) (view, error) {
	var seg, gate *dbos.WorkflowStatus
	segK, gateK := -1, -1
	v := view{run: Run{ID: id}}
	for i := range ws {
		w := &ws[i]
		_, k, isGate := splitID(w.ID)
		switch {
		case isGate && k > gateK:
			gate, gateK = w, k
		case !isGate && k > segK:
			seg, segK = w, k
		}
		if !isGate && k == 0 {
			v.run.Created = w.CreatedAt
			var in Input
			if decode(w.Input, &in) == nil {
				v.run.Agent, v.run.Labels, v.run.Queue = in.Agent, in.Labels, in.queue()
			}
		}
	}
	if seg == nil {
		return v, fmt.Errorf("durable: run %q: %w", id, ErrNoRun)
	}
	v.last = seg.ID
	cur := seg
	if gateK > segK {
		cur = gate
	}
	v.run.Updated = cur.UpdatedAt
	switch cur.Status {
	case dbos.WorkflowStatusDelayed:
		if cur == gate {
			v.run.State, v.active = Waiting, gate.ID
			v.run.Deadline = gate.DelayUntil
			if time.Until(v.run.Deadline) > forever/2 {
				v.run.Deadline = time.Time{}
			}
			p, err := dbos.GetEvent[parked](c.client(ctx), seg.ID, pendingKey, 0)
			if err == nil {
				v.run.Pending = jsonCall(p.Call)
			}
		} else {
			v.run.State, v.active = Queued, cur.ID
		}
	case dbos.WorkflowStatusEnqueued:
		v.active = cur.ID
		v.run.State = Queued
		if cur == gate {
			v.run.State = Running
		}
	case dbos.WorkflowStatusPending:
		v.run.State, v.active = Running, cur.ID
	case dbos.WorkflowStatusSuccess:
		if cur == gate {
			// The gate forked the next segment an instant ago.
			v.run.State, v.active = Running, segmentID(id, gateK)
		} else {
			v.run.State = Done
		}
	case dbos.WorkflowStatusCancelled:
		v.run.State = Cancelled
	default:
		v.run.State = Failed
		v.run.Error = string(cur.Status)
		// The error is stored with the output, which the listing leaves out.
		full, err := dbos.ListWorkflows(c.client(ctx), dbos.WithFilterWorkflowIDs(cur.ID), dbos.WithFilterLoadInput(false), dbos.WithFilterLoadOutput(true))
		if err == nil && len(full) == 1 && full[0].Error != nil {
			v.run.Error = full[0].Error.Error()
		}
	}
	return v, nil
}

// decode reads a value the engine hands back untyped.
func decode(from any, to any) error {
	var b []byte
	switch f := from.(type) {
	case nil:
		return errors.New("nothing stored")
	case string:
		b = []byte(f)
	case *string:
		if f == nil {
			return errors.New("nothing stored")
		}
		b = []byte(*f)
	default:
		var err error
		if b, err = json.Marshal(f); err != nil {
			return err
		}
	}
	return json.Unmarshal(b, to)
}

// Decide answers the call run id waits on, from any process: yes or always
// runs it, no declines it. The run resumes on a
// worker of its queue. It returns [ErrNotWaiting] when the run waits for no
// decision, as when the deadline passed first.
func (c *Client) Decide(ctx context.Context, id string, v Verdict) error {
	if v.Decision < agent.No || v.Decision > agent.Always {
		return fmt.Errorf("durable: decision %d: use agent.Yes, agent.Always or agent.No", int(v.Decision))
	}
	vw, err := c.look(ctx, id)
	if err != nil {
		return err
	}
	if vw.run.State != Waiting {
		return fmt.Errorf("durable: run %q is %s: %w", id, vw.run.State, ErrNotWaiting)
	}
	_, k, _ := splitID(vw.last)
	g := gateID(id, k+1)
	if err := dbos.Send(c.client(ctx), g, v, decisionKey); err != nil {
		return fmt.Errorf("durable: deciding run %q: %w", id, err)
	}
	if err := dbos.SetWorkflowDelay(c.client(ctx), g, dbos.WithDelayUntil(time.Now())); err != nil {
		return fmt.Errorf("durable: deciding run %q: %w", id, err)
	}
	// The delay is set only on a gate that still waits: one the deadline
	// ran first has declined the call already.
	ws, err := dbos.ListWorkflows(c.client(ctx), dbos.WithFilterWorkflowIDs(g), dbos.WithFilterLoadInput(false), dbos.WithFilterLoadOutput(false))
	if err != nil {
		return fmt.Errorf("durable: deciding run %q: %w", id, err)
	}
	if len(ws) != 1 || ws[0].Status == dbos.WorkflowStatusDelayed && time.Until(ws[0].DelayUntil) > time.Second ||
		ws[0].Status == dbos.WorkflowStatusSuccess || ws[0].Status == dbos.WorkflowStatusCancelled {
		return fmt.Errorf("durable: run %q: the deadline passed first: %w", id, ErrNotWaiting)
	}
	return nil
}

// Cancel stops run id: a running step is cut off (and its result not
// kept), a queued or waiting run never goes on. Cancelling a run that is
// over does nothing.
func (c *Client) Cancel(ctx context.Context, id string) error {
	ws, err := c.workflows(ctx, id)
	if err != nil {
		return err
	}
	if len(ws) == 0 {
		return fmt.Errorf("durable: run %q: %w", id, ErrNoRun)
	}
	var ids []string
	for _, w := range ws {
		switch w.Status {
		case dbos.WorkflowStatusPending, dbos.WorkflowStatusEnqueued, dbos.WorkflowStatusDelayed:
			ids = append(ids, w.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	if err := dbos.CancelWorkflows(c.client(ctx), ids); err != nil {
		return fmt.Errorf("durable: cancelling run %q: %w", id, err)
	}
	return nil
}

// Events returns what run id stored so far, in order.
func (c *Client) Events(ctx context.Context, id string) ([]Event, error) {
	v, err := c.look(ctx, id)
	if err != nil {
		return nil, err
	}
	evs, _, err := dbos.ReadStream[Event](c.client(ctx), v.last, eventsKey, dbos.WithReadStreamSnapshot())
	if err != nil {
		return nil, fmt.Errorf("durable: reading the events of run %q: %w", id, err)
	}
	return evs, nil
}

// Wait returns when run id is in one of the states given, or over (done,
// failed or cancelled), or when ctx ends. With no states it also returns
// when the run waits for a decision.
func (c *Client) Wait(ctx context.Context, id string, states ...State) (Run, error) {
	if len(states) == 0 {
		states = []State{Waiting}
	}
	for {
		v, err := c.look(ctx, id)
		if err != nil {
			return Run{}, err
		}
		if v.active == "" && v.run.State != Waiting || slices.Contains(states, v.run.State) {
			return v.run, nil
		}
		if err := ctx.Err(); err != nil {
			return v.run, err
		}
		h, err := dbos.RetrieveWorkflow[any](c.client(ctx), v.active)
		if err == nil {
			h.GetResult(dbos.WithHandleTimeout(time.Second), dbos.WithHandlePollingInterval(50*time.Millisecond))
		}
	}
}

// Result returns how run id ended, once it is done.
func (c *Client) Result(ctx context.Context, id string) (Result, error) {
	v, err := c.look(ctx, id)
	if err != nil {
		return Result{}, err
	}
	if v.run.State != Done {
		return Result{}, fmt.Errorf("durable: run %q is %s, not done: wait for it (Client.Wait)", id, v.run.State)
	}
	h, err := dbos.RetrieveWorkflow[segResult](c.client(ctx), v.last)
	if err != nil {
		return Result{}, err
	}
	out, err := h.GetResult()
	if err != nil {
		return Result{}, err
	}
	if out.Result == nil {
		return Result{}, fmt.Errorf("durable: run %q stored no result", id)
	}
	return *out.Result, nil
}
