package stacklab.app;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;
import org.sqlite.SQLiteConnection;
import org.sqlite.core.DB;
import org.springframework.transaction.annotation.Transactional;

import stacklab.app.Answers.BenchRead;
import stacklab.app.Answers.Event;
import stacklab.app.Answers.Item;
import stacklab.app.Answers.Pragmas;

/**
 * The SQL of every route, through JdbcTemplate on the Hikari pool. The
 * pragmas of docs/app.md are not set here: the driver applies them to every
 * connection it opens (spring.datasource.hikari.data-source-properties).
 */
@Repository
public class Store {

    /** The 200 ASCII bytes each /bench/write stores (the same as go-nethttp's). */
    static final String PAYLOAD = "stacklab-bench-event:".repeat(10).substring(0, 200);

    private static final String NEWEST_ITEMS =
            "SELECT id, title, created_at FROM items ORDER BY id DESC LIMIT 20";
    private static final String INSERT_EVENT =
            "INSERT INTO bench_events (payload, created_at) VALUES (?, ?) RETURNING id";
    // Count and the newest rows in one statement, so both come from one
    // snapshot while writers commit, without a transaction around two.
    private static final String LATEST_EVENTS =
            "SELECT (SELECT COUNT(*) FROM bench_events), id, created_at FROM bench_events ORDER BY id DESC LIMIT 20";
    private static final String COUNT_EVENTS = "SELECT COUNT(*) FROM bench_events";

    private final JdbcTemplate jdbc;

    public Store(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    public List<Item> newestItems() {
        return jdbc.query(NEWEST_ITEMS, (rs, i) -> new Item(rs.getLong(1), rs.getString(2), rs.getLong(3)));
    }

    /**
     * One row in its own transaction. The driver runs transaction_mode
     * IMMEDIATE, so the transaction opens with BEGIN IMMEDIATE and a writer
     * waits on busy_timeout for the write lock instead of failing on upgrade.
     */
    @Transactional
    public long insertEvent() {
        Long id = jdbc.queryForObject(INSERT_EVENT, Long.class, PAYLOAD, System.currentTimeMillis());
        return id == null ? 0 : id;
    }

    public BenchRead latestEvents() {
        long[] count = {-1};
        List<Event> latest = jdbc.query(LATEST_EVENTS, (rs, i) -> {
            count[0] = rs.getLong(1);
            return new Event(rs.getLong(2), rs.getLong(3));
        });
        if (latest.isEmpty()) {
            Long n = jdbc.queryForObject(COUNT_EVENTS, Long.class);
            count[0] = n == null ? 0 : n;
        }
        return new BenchRead(true, count[0], latest);
    }

    /**
     * The pragma values on the pooled connection this call is given, and the
     * connection's name: the identity of sqlite-jdbc's DB object under
     * Hikari's proxy, which the driver creates with the SQLite handle when
     * the pool opens the connection (one per handle; the handle's own
     * address is a private field).
     */
    public Pragmas pragmas() {
        return jdbc.execute((ConnectionCallback<Pragmas>) con -> {
            DB db = con.unwrap(SQLiteConnection.class).getDatabase();
            String connection = "db@" + Integer.toHexString(System.identityHashCode(db));
            try (Statement st = con.createStatement()) {
                return new Pragmas(
                        text(st, "journal_mode"),
                        number(st, "synchronous"),
                        number(st, "busy_timeout"),
                        number(st, "cache_size"),
                        number(st, "mmap_size"),
                        number(st, "journal_size_limit"),
                        number(st, "foreign_keys"),
                        connection);
            }
        });
    }

    private static String text(Statement st, String pragma) throws SQLException {
        try (ResultSet rs = st.executeQuery("PRAGMA " + pragma)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static long number(Statement st, String pragma) throws SQLException {
        try (ResultSet rs = st.executeQuery("PRAGMA " + pragma)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
