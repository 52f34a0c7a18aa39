package stacklab.app;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The one HTTP client of the process, for /bench/upstream: the JDK's
 * java.net.http client, which keeps a pool of keep-alive connections per
 * host and has no cap on their number. HTTP/1.1 is set explicitly: the
 * client's default (HTTP/2) would send an h2c Upgrade on every plain-HTTP
 * request.
 */
@Component
class Upstream {

    private final HttpClient client;
    private final HttpRequest delay;

    Upstream(@Value("${stacklab.upstream-url}") String baseUrl) {
        URI uri = URI.create(baseUrl.replaceAll("/+$", "") + "/delay?ms=100");
        if (!"http".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new IllegalArgumentException("UPSTREAM_URL=" + baseUrl + ": want http://HOST:PORT");
        }
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
        this.delay = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(15)).GET().build();
    }

    /**
     * GET $UPSTREAM_URL/delay?ms=100; completes with the status. The body is
     * read to its end (and dropped), so the connection goes back to the pool.
     */
    CompletableFuture<Integer> delay() {
        return client.sendAsync(delay, HttpResponse.BodyHandlers.discarding()).thenApply(HttpResponse::statusCode);
    }

    static String describe(Throwable err) {
        Throwable cause = err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
        String msg = cause.getMessage();
        return "upstream: " + cause.getClass().getSimpleName() + (msg == null || msg.isBlank() ? "" : ": " + msg);
    }
}
