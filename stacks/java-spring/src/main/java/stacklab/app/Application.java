package stacklab.app;

import java.util.HashMap;
import java.util.Map;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The lab app (docs/app.md) on Spring Boot: Spring MVC on Tomcat,
 * JdbcTemplate over HikariCP and sqlite-jdbc, Thymeleaf for the pages,
 * Spring Security for the signed-in routes, Spring's scheduling for the
 * job worker.
 */
@SpringBootApplication
@EnableScheduling
public class Application {

    public static void main(String[] args) {
        SpringApplication app = new SpringApplication(Application.class);
        app.setDefaultProperties(sizing(System.getenv()));
        app.run(args);
    }

    /**
     * The sizes that follow from the CPUs the lab gives the app (LAB_CPUS, else
     * what the JVM sees): a Hikari pool of max(4, 2 x CPUs) connections, all
     * kept open. DB_POOL_SIZE overrides the pool size. These are defaults:
     * application.properties and the environment still win.
     */
    static Map<String, Object> sizing(Map<String, String> env) {
        int cpus = positive(env, "LAB_CPUS", Runtime.getRuntime().availableProcessors());
        int pool = positive(env, "DB_POOL_SIZE", Math.max(4, 2 * cpus));
        Map<String, Object> p = new HashMap<>();
        p.put("spring.datasource.hikari.maximum-pool-size", pool);
        p.put("spring.datasource.hikari.minimum-idle", pool);
        return p;
    }

    private static int positive(Map<String, String> env, String name, int fallback) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException(name + "=" + v + ": want a positive integer");
    }
}
