// Package durable runs Bridle agents as durable workflows on DBOS Transact
// and PostgreSQL: a run survives the worker that runs it.
//
// Each model request and each tool call of a run is a step whose result is
// stored before the run goes on. A worker killed at any point and started
// again, on the same machine or another one sharing the database, resumes
// the run after its last stored step; the agent loop is deterministic given
// the step results, so the history is the one an uninterrupted run would
// have had. A completed step is never repeated. A Write or Exec call cut off
// while it was running is not run again: the model reads that it was
// interrupted and may or may not have taken effect. A Read call cut off is
// run again.
//
// A call that needs a person's approval parks the run: its workflow ends,
// holding no goroutine and no queue slot, and a gate waits in the database
// until [Client.Decide] is called from any process, or until the approval
// deadline passes and the call is declined. The decision resumes the run
// where it stopped, on whichever worker takes it from the queue.
//
// Runs are started on named queues with a concurrency limit
// ([Options.Queues]), listed with their [State], cancelled, and their
// events read afterwards ([Client.Events]). Streamed text still reaches a
// live watcher ([Options.OnEvent]); what is stored is the whole reply.
//
// A worker is set up once per process:
//
//	w, err := durable.NewWorker(ctx, &durable.Options{DatabaseURL: dsn})
//	w.Register("helper", func(ctx context.Context, in durable.Input) (durable.Parts, error) {
//		client, err := llm.New(cfg)
//		return durable.Parts{Client: client, Tools: tools}, err
//	})
//	err = w.Start()
//	defer w.Close(10 * time.Second)
//	id, err := w.Client().Start(ctx, "", durable.Input{Agent: "helper", Text: "tidy the notes"})
package durable
