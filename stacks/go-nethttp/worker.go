package main

import (
	"context"
	"database/sql"
	"errors"
	"log"
	"time"
)

// workerIdle is how long the worker sleeps when it finds no job (docs/app.md:
// at most 100 ms).
const workerIdle = 100 * time.Millisecond

// runWorker is the background worker (docs/app.md, "The background worker"): one
// goroutine in the app's process draining the jobs table, the lowest id
// first. While jobs wait it takes the next at once; when it finds none it
// sleeps workerIdle. It returns when ctx ends. A database error is logged
// (at most one line in 10 s, never per job) and the job tried again after
// a sleep.
func (a *app) runWorker(ctx context.Context) {
	timer := time.NewTimer(0)
	<-timer.C
	var lastLog time.Time
	for {
		did, err := a.doJob(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil && time.Since(lastLog) > 10*time.Second {
			log.Printf("go-nethttp: worker: %v", err)
			lastLog = time.Now()
		}
		if did && err == nil {
			continue
		}
		timer.Reset(workerIdle)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
	}
}

// doJob takes the lowest-id job and writes its audit row in one write
// transaction (BEGIN IMMEDIATE on SQLite; on Postgres the job's row is
// locked with SKIP LOCKED, so workers in several processes never take the
// same one). did is false when there was no job.
func (a *app) doJob(ctx context.Context) (did bool, err error) {
	err = a.writeTx(ctx, func(tx *sql.Tx) error {
		var orderID int64
		var action string
		if err := tx.StmtContext(ctx, a.st.jobTake).QueryRowContext(ctx).Scan(&orderID, &action); err != nil {
			return err
		}
		did = true
		_, err := tx.StmtContext(ctx, a.st.auditNew).ExecContext(ctx, orderID, action, time.Now().UnixMilli())
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return did, err
}
