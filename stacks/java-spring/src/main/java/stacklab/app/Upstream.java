package stacklab.app;

import java.net.URI;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.reactor.IOReactorConfig;
import org.apache.hc.core5.util.Timeout;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The one HTTP client of the process, for /bench/upstream: Apache
 * HttpClient 5's async client (the version Spring Boot manages), one
 * non-blocking I/O thread per CPU, a keep-alive pool of up to 1024
 * connections (its defaults, 5 per route and 25 in all, would cap 512 calls
 * in flight at 50 req/s).
 * The body is read whole (SimpleHttpResponse), so every connection goes
 * back to the pool. Why not the JDK's java.net.http client, which needs no
 * dependency: see README, Optimizing.
 */
@Component
class Upstream implements DisposableBean {

    static final int MAX_CONNECTIONS = 1024;

    private final CloseableHttpAsyncClient client;
    private final URI delay;

    Upstream(@Value("${stacklab.upstream-url}") String baseUrl) {
        this.delay = URI.create(baseUrl.replaceAll("/+$", "") + "/delay?ms=100");
        if (!"http".equals(delay.getScheme()) || delay.getHost() == null) {
            throw new IllegalArgumentException("UPSTREAM_URL=" + baseUrl + ": want http://HOST:PORT");
        }
        this.client = HttpAsyncClients.custom()
                .setIOReactorConfig(IOReactorConfig.custom()
                        .setIoThreadCount(Runtime.getRuntime().availableProcessors())
                        .setTcpNoDelay(true)
                        .build())
                .setConnectionManager(PoolingAsyncClientConnectionManagerBuilder.create()
                        .setMaxConnTotal(MAX_CONNECTIONS)
                        .setMaxConnPerRoute(MAX_CONNECTIONS)
                        .setDefaultConnectionConfig(ConnectionConfig.custom()
                                .setConnectTimeout(Timeout.ofSeconds(5))
                                .setSocketTimeout(Timeout.ofSeconds(15))
                                .build())
                        .build())
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setResponseTimeout(Timeout.ofSeconds(15))
                        .setRedirectsEnabled(false)
                        .build())
                .disableCookieManagement()
                .disableAuthCaching()
                .build();
        this.client.start();
    }

    /** GET $UPSTREAM_URL/delay?ms=100; completes with the status. */
    CompletableFuture<Integer> delay() {
        CompletableFuture<Integer> done = new CompletableFuture<>();
        SimpleHttpRequest request = SimpleRequestBuilder.get(delay).build();
        client.execute(request, new FutureCallback<SimpleHttpResponse>() {
            @Override
            public void completed(SimpleHttpResponse response) {
                done.complete(response.getCode());
            }

            @Override
            public void failed(Exception ex) {
                done.completeExceptionally(ex);
            }

            @Override
            public void cancelled() {
                done.completeExceptionally(new CancellationException("upstream call cancelled"));
            }
        });
        return done;
    }

    @Override
    public void destroy() {
        client.close(CloseMode.GRACEFUL);
    }

    static String describe(Throwable err) {
        Throwable cause = err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
        String msg = cause.getMessage();
        return "upstream: " + cause.getClass().getSimpleName() + (msg == null || msg.isBlank() ? "" : ": " + msg);
    }
}
