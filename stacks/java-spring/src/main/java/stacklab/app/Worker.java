package stacklab.app;

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

    Worker(Orders orders) {
        this.orders = orders;
    }

    @Scheduled(fixedDelay = 100)
    void drain() {
        if (!orders.jobsWaiting()) {
            return;
        }
        // Stops between jobs when the scheduler shuts down (it interrupts its thread).
        while (!Thread.currentThread().isInterrupted() && orders.runNextJob()) {
            // next job at once
        }
    }
}
