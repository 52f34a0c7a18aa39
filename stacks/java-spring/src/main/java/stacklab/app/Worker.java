package stacklab.app;

import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The background worker: Spring's scheduling (@EnableScheduling on
 * Application), on Spring Boot's one scheduler thread, over the jobs table.
 * Each run drains the queue, one job per transaction, lowest id first, with
 * no pause while jobs wait; an empty queue ends the run, and the next starts
 * 100 ms after (fixedDelay). Idle, it is one read every 100 ms and no write lock.
 */
@Component
class Worker {

    private final Orders orders;
    private volatile boolean closing;

    Worker(Orders orders) {
        this.orders = orders;
    }

    @Scheduled(fixedDelay = 100)
    void drain() {
        if (!orders.jobsWaiting()) {
            return;
        }
        while (!closing && orders.runNextJob()) {
            // the next job at once
        }
    }

    /**
     * Shutdown begins: the run in progress ends after its current job, so
     * the scheduler stops at once even with a backlog (it waits for a running
     * task, up to the shutdown phase's timeout). What is left stays queued.
     */
    @EventListener(ContextClosedEvent.class)
    void close() {
        closing = true;
    }
}
