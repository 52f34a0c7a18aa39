package stacklab.app;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * The JSON answers, one record each. Keys come out in docs/app.md's order, spelled
 * out with @JsonPropertyOrder rather than left to Jackson's defaults: Jackson
 * 3 sorts a class's properties alphabetically, and only records keep their
 * declaration order.
 */
final class Answers {

    private Answers() {
    }

    record Message(String message) {
    }

    @JsonPropertyOrder({"id", "title", "created_at"})
    record Item(long id, String title, @JsonProperty("created_at") long createdAt) {
    }

    record Items(List<Item> items) {
    }

    @JsonPropertyOrder({"ok", "upstream"})
    record UpstreamOk(boolean ok, int upstream) {
        UpstreamOk(int upstream) {
            this(true, upstream);
        }
    }

    @JsonPropertyOrder({"ok", "error"})
    record Failure(boolean ok, String error) {
        Failure(String error) {
            this(false, error);
        }
    }

    @JsonPropertyOrder({"ok", "id"})
    record Written(boolean ok, long id) {
        Written(long id) {
            this(true, id);
        }
    }

    @JsonPropertyOrder({"id", "created_at"})
    record Event(long id, @JsonProperty("created_at") long createdAt) {
    }

    @JsonPropertyOrder({"ok", "count", "latest"})
    record BenchRead(boolean ok, long count, List<Event> latest) {
    }

    @JsonPropertyOrder({"journal_mode", "synchronous", "busy_timeout", "cache_size", "mmap_size", "journal_size_limit", "foreign_keys", "connection"})
    record Pragmas(
            @JsonProperty("journal_mode") String journalMode,
            long synchronous,
            @JsonProperty("busy_timeout") long busyTimeout,
            @JsonProperty("cache_size") long cacheSize,
            @JsonProperty("mmap_size") long mmapSize,
            @JsonProperty("journal_size_limit") long journalSizeLimit,
            @JsonProperty("foreign_keys") long foreignKeys,
            String connection) {
    }

    /** An orders row; in JSON as docs/app.md's /account twin lists it. */
    @JsonPropertyOrder({"id", "email", "status", "total_cents", "currency", "placed_at"})
    record Order(long id, String email, String status, @JsonProperty("total_cents") long totalCents,
            String currency, @JsonProperty("placed_at") long placedAt) {

        /** The total as major units with exactly two decimals: 14990 is 149.90, 5 is 0.05. */
        public String amount() {
            return Money.format(totalCents);
        }
    }

    @JsonPropertyOrder({"id", "email"})
    record User(long id, String email) {
    }

    @JsonPropertyOrder({"user", "orders", "csrf_token"})
    record Account(User user, List<Order> orders, @JsonProperty("csrf_token") String csrfToken) {
    }
}
