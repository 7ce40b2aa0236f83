package durable

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/bridle-dev/bridle/agent"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// DefaultQueue is the queue of runs started without one.
const DefaultQueue = "default"

// The names under which the workflows are stored: a client in another
// process starts runs by these names.
const (
	runWorkflow  = "bridle.run"
	gateWorkflow = "bridle.gate"
	gateQueue    = "bridle-gates"
)

// Queue is a queue of runs.
type Queue struct {
	// Name is what [StartOptions.Queue] says.
	Name string
	// Concurrency bounds the runs of the queue running at once across all
	// workers; 0 means no bound. A run waiting for a decision does not count.
	Concurrency int
	// WorkerConcurrency bounds them on each worker; 0 means no bound.
	WorkerConcurrency int
}

// Options sets up a [Worker] or a [Client]. The zero value of each field
// means its default; DatabaseURL is required.
type Options struct {
	// DatabaseURL is the PostgreSQL connection string, for instance
	// "postgres://bridle@127.0.0.1:5432/bridle". Required.
	DatabaseURL string
	// AppName names the application in the database; workers and clients
	// of one application use the same. Empty means "bridle".
	AppName string
	// Schema is the database schema of the tables; empty means "dbos".
	Schema string
	// ExecutorID names this worker: a worker started again under the same
	// id resumes the runs the previous one left. Empty means the
	// DBOS__VMID variable, or "local". Give each machine its own.
	ExecutorID string
	// Version is the application version: workers resume only runs of
	// their own version, since a replay needs the same code. Empty means a
	// hash of the program.
	Version string
	// Queues are the queues this worker takes runs from; nil means
	// [DefaultQueue] with no bound.
	Queues []Queue
	// PollInterval is how often a worker looks for queued runs; 0 means
	// the engine's default (a second).
	PollInterval time.Duration
	// OnEvent receives the events of every run this worker runs, live,
	// including streamed text pieces; nil means none. Events of steps
	// replayed after a restart are not sent again.
	OnEvent func(runID string, e agent.Event)
	// Logger receives the engine's messages; nil means none.
	Logger *slog.Logger
}

func (o *Options) config() (dbos.Config, error) {
	if o == nil || o.DatabaseURL == "" {
		return dbos.Config{}, errors.New("durable: Options.DatabaseURL is empty: give the PostgreSQL connection string (see durable/README.md to start a local database)")
	}
	name := o.AppName
	if name == "" {
		name = "bridle"
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return dbos.Config{
		AppName:            name,
		DatabaseURL:        o.DatabaseURL,
		DatabaseSchema:     o.Schema,
		ExecutorID:         o.ExecutorID,
		ApplicationVersion: o.Version,
		Logger:             log,
	}, nil
}

// Worker runs the runs of its queues. Register recipes, then Start; one
// worker per process.
type Worker struct {
	dc     dbos.Context
	opts   Options
	client *Client

	gates dbos.Queue

	mu      sync.Mutex
	recipes map[string]Recipe
	started bool
}

// NewWorker connects to the database and readies a worker; nil opts is an
// error (DatabaseURL is required).
func NewWorker(ctx context.Context, opts *Options) (*Worker, error) {
	cfg, err := opts.config()
	if err != nil {
		return nil, err
	}
	dc, err := dbos.NewContext(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("durable: connecting to the database: %w", err)
	}
	w := &Worker{dc: dc, opts: *opts, recipes: map[string]Recipe{}}
	w.client = &Client{c: dc}
	dbos.RegisterWorkflow(dc, w.segment, dbos.WithWorkflowName(runWorkflow))
	dbos.RegisterWorkflow(dc, w.gate, dbos.WithWorkflowName(gateWorkflow))
	return w, nil
}

// Register makes recipe r build the agents of runs whose Input.Agent is
// name ("" is "default"). It panics when name is taken or r is nil, both
// programming errors. Register before Start.
func (w *Worker) Register(name string, r Recipe) {
	if name == "" {
		name = "default"
	}
	if r == nil {
		panic(fmt.Sprintf("durable.Register: the recipe %q is nil", name))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.recipes[name] != nil {
		panic(fmt.Sprintf("durable.Register: the recipe %q is registered twice", name))
	}
	w.recipes[name] = r
}

func (w *Worker) recipe(name string) Recipe {
	if name == "" {
		name = "default"
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.recipes[name]
}

// Start registers the queues, resumes the runs this worker's executor id
// left unfinished, and starts taking runs from the queues.
func (w *Worker) Start() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started {
		return errors.New("durable: the worker is already started")
	}
	queues := w.opts.Queues
	if len(queues) == 0 {
		queues = []Queue{{Name: DefaultQueue}}
	}
	for _, q := range queues {
		if q.Name == "" || q.Name == gateQueue {
			return fmt.Errorf("durable: queue name %q is not allowed: name each queue, and not %q", q.Name, gateQueue)
		}
		qo := w.queueOptions()
		if q.Concurrency > 0 {
			qo = append(qo, dbos.WithGlobalConcurrency(q.Concurrency))
		}
		if q.WorkerConcurrency > 0 {
			qo = append(qo, dbos.WithWorkerConcurrency(q.WorkerConcurrency))
		}
		if _, err := dbos.RegisterQueue(w.dc, q.Name, append(qo, dbos.WithQueueOnConflict(dbos.QueueConflictAlwaysUpdate))...); err != nil {
			return fmt.Errorf("durable: registering queue %q: %w", q.Name, err)
		}
	}
	gates, err := dbos.RegisterQueue(w.dc, gateQueue, append(w.queueOptions(), dbos.WithQueueOnConflict(dbos.QueueConflictAlwaysUpdate))...)
	if err != nil {
		return fmt.Errorf("durable: registering queue %q: %w", gateQueue, err)
	}
	w.gates = gates
	if err := dbos.Launch(w.dc); err != nil {
		return fmt.Errorf("durable: starting the worker: %w", err)
	}
	w.started = true
	return nil
}

func (w *Worker) queueOptions() []dbos.QueueOption {
	if w.opts.PollInterval > 0 {
		return []dbos.QueueOption{dbos.WithQueueBasePollingInterval(w.opts.PollInterval)}
	}
	return nil
}

// Run runs a run on this worker at once, outside the queues, and returns
// when it parks or ends. It is durable all the same: after a crash the run
// resumes on a worker with the same executor id, and a decision resumes it
// on its queue.
func (w *Worker) Run(ctx context.Context, id string, in Input) (Run, error) {
	if err := checkID(id); err != nil {
		return Run{}, err
	}
	h, err := dbos.RunWorkflow(w.dc, w.segment, in, dbos.WithWorkflowID(id))
	if err != nil {
		return Run{}, fmt.Errorf("durable: running %q: %w", id, err)
	}
	h.GetResult()
	return w.client.Get(ctx, id)
}

// Recover takes over the unfinished runs of workers that will not come
// back (a machine that is gone), by their executor ids: they are queued
// again and resume after their last stored step.
func (w *Worker) Recover(executorIDs ...string) error {
	r, ok := w.dc.(interface {
		RecoverPendingWorkflows([]string) ([]dbos.WorkflowHandle[any], error)
	})
	if !ok {
		return errors.New("durable: this version of the engine cannot recover other workers' runs")
	}
	_, err := r.RecoverPendingWorkflows(executorIDs)
	return err
}

// Client returns a client that shares the worker's connection.
func (w *Worker) Client() *Client { return w.client }

// Close stops taking runs and waits up to timeout for the runs in flight
// to reach a step; what is left resumes when a worker starts again.
func (w *Worker) Close(timeout time.Duration) error {
	return dbos.Shutdown(w.dc, timeout)
}
