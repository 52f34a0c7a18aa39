package stacklab.app;

import com.zaxxer.hikari.HikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * One line at start with the sizes and the SQLite in use; nothing is logged
 * per request. It runs after every bean is made and before Tomcat starts
 * listening, so the pool is open (and filling to its size) before /up answers.
 */
@Component
class StartupLine implements SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(StartupLine.class);

    private final HikariDataSource pool;
    private final JdbcTemplate jdbc;
    private final String upstream;

    StartupLine(HikariDataSource pool, JdbcTemplate jdbc, @Value("${stacklab.upstream-url}") String upstream) {
        this.pool = pool;
        this.jdbc = jdbc;
        this.upstream = upstream;
    }

    @Override
    public void afterSingletonsInstantiated() {
        String sqlite = jdbc.queryForObject("SELECT sqlite_version()", String.class);
        String threadsafe = jdbc.queryForList("PRAGMA compile_options", String.class).stream()
                .filter(o -> o.startsWith("THREADSAFE=")).findFirst().orElse("THREADSAFE=?");
        log.info("java-spring: cpus={} pool={} database={} sqlite={} {} upstream={} gc={}",
                Runtime.getRuntime().availableProcessors(), pool.getMaximumPoolSize(), pool.getJdbcUrl(),
                sqlite, threadsafe, upstream, gcName());
    }

    private static String gcName() {
        StringBuilder b = new StringBuilder();
        for (var gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
            b.append(b.length() == 0 ? "" : "+").append(gc.getName().replace(' ', '_'));
        }
        return b.toString();
    }
}
