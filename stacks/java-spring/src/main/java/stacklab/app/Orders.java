package stacklab.app;

import java.util.List;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.annotation.Transactional;

import stacklab.app.Answers.Order;

/**
 * Orders and the job queue. Every write is one Spring transaction, which the
 * driver's transaction_mode=IMMEDIATE opens with BEGIN IMMEDIATE (as
 * /bench/write's): the order and its job, the cancel and its job, and each
 * job the worker takes with its audit row.
 */
@Repository
public class Orders {

    enum Cancel { CANCELLED, NOT_FOUND, NOT_PENDING }

    /** A job the worker took: its order and action. */
    record Job(long orderId, String action) {
    }

    private static final String NEWEST = "SELECT id, email, status, total_cents, currency, placed_at FROM orders "
            + "WHERE user_id = ? ORDER BY id DESC LIMIT 20";
    private static final String INSERT_ORDER = "INSERT INTO orders (user_id, email, status, total_cents, currency, placed_at) "
            + "VALUES (?, ?, 'PENDING', ?, ?, ?) RETURNING id";
    private static final String INSERT_JOB = "INSERT INTO jobs (order_id, action, created_at) VALUES (?, ?, ?)";
    private static final String STATUS = "SELECT status FROM orders WHERE id = ? AND user_id = ?";
    private static final String CANCEL = "UPDATE orders SET status = 'CANCELLED' WHERE id = ?";
    private static final String ANY_JOB = "SELECT EXISTS (SELECT 1 FROM jobs)";
    private static final String TAKE_JOB =
            "DELETE FROM jobs WHERE id = (SELECT id FROM jobs ORDER BY id LIMIT 1) RETURNING order_id, action";
    private static final String INSERT_AUDIT = "INSERT INTO audit (order_id, action, at) VALUES (?, ?, ?)";

    private final JdbcTemplate jdbc;

    public Orders(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** The user's newest 20 orders, newest first. */
    public List<Order> newest(long userId) {
        return jdbc.query(NEWEST, (rs, i) -> new Order(rs.getLong(1), rs.getString(2), rs.getString(3),
                rs.getLong(4), rs.getString(5), rs.getLong(6)), userId);
    }

    /** The order (PENDING, placed now) and its job, in one transaction; the order's id. */
    @Transactional
    public long place(long userId, String email, long totalCents, String currency) {
        long now = System.currentTimeMillis();
        Long id = jdbc.queryForObject(INSERT_ORDER, Long.class, userId, email, totalCents, currency, now);
        jdbc.update(INSERT_JOB, id, "placed", now);
        return id == null ? 0 : id;
    }

    /**
     * Cancels the user's order if it is PENDING, with its job, in one
     * transaction. Another user's order reads as no order at all.
     */
    @Transactional
    public Cancel cancel(long userId, long orderId) {
        List<String> status = jdbc.queryForList(STATUS, String.class, orderId, userId);
        if (status.isEmpty()) {
            return Cancel.NOT_FOUND;
        }
        if (!"PENDING".equals(status.get(0))) {
            return Cancel.NOT_PENDING;
        }
        jdbc.update(CANCEL, orderId);
        jdbc.update(INSERT_JOB, orderId, "cancelled", System.currentTimeMillis());
        return Cancel.CANCELLED;
    }

    /** Whether a job waits: a plain read, so an idle worker takes no write lock. */
    public boolean jobsWaiting() {
        return Boolean.TRUE.equals(jdbc.queryForObject(ANY_JOB, Boolean.class));
    }

    /**
     * The lowest-id job taken off the queue and its audit row written, in
     * one transaction: done exactly once. False when the queue was empty.
     */
    @Transactional
    public boolean runNextJob() {
        List<Job> taken = jdbc.query(TAKE_JOB, (rs, i) -> new Job(rs.getLong(1), rs.getString(2)));
        if (taken.isEmpty()) {
            return false;
        }
        Job job = taken.get(0);
        jdbc.update(INSERT_AUDIT, job.orderId(), job.action(), System.currentTimeMillis());
        return true;
    }
}
