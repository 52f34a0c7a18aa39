package stacklab.app;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

import jakarta.servlet.http.HttpServletResponse;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.authentication.dao.DaoAuthenticationProvider;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.core.userdetails.UsernameNotFoundException;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.AnonymousAuthenticationFilter;
import org.springframework.security.web.authentication.session.NullAuthenticatedSessionStrategy;
import org.springframework.security.web.csrf.CookieCsrfTokenRepository;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;
import org.springframework.security.web.util.matcher.AnyRequestMatcher;
import org.springframework.security.web.util.matcher.MediaTypeRequestMatcher;
import org.springframework.security.web.util.matcher.OrRequestMatcher;
import org.springframework.security.web.util.matcher.RequestMatcher;
import org.springframework.web.accept.HeaderContentNegotiationStrategy;

/**
 * Spring Security for the signed-in routes of docs/app.md, and only for them: the
 * chain's securityMatcher names their paths, so every route that was there
 * before (/up, /json, /items, /page, /bench/**) is served exactly as it was,
 * outside any security filter, open and without CSRF.
 *
 * <ul>
 * <li>No HttpSession (STATELESS): the {@code sessions} table is the truth.
 * {@link SessionCookieFilter} reads the {@code lab_session} cookie on every
 * request of the chain and fills the SecurityContext from the database.</li>
 * <li>CSRF: Spring Security's CsrfFilter with a {@link CookieCsrfTokenRepository}
 * (the double-submit cookie {@code XSRF-TOKEN}, HttpOnly, SameSite=Lax), the
 * form field {@code csrf_token}, and its default XOR-masking handler (every
 * page shows another masking of the same cookie token, BREACH's defence). The
 * token is the client's cookie, so it stays valid for as long as the client
 * keeps its cookies, across sign-in and any number of posts. Required on the
 * four POST routes only: a wrong method on a known path stays Spring MVC's 405.
 * A refusal is Spring Security's own 403.</li>
 * <li>Passwords: a {@link DaoAuthenticationProvider} over the users table with
 * {@link BCryptPasswordEncoder} (strength 10). For an unknown email it still
 * runs one bcrypt check against a cost-10 hash of its own (its timing-attack
 * protection), so both refusals take the same time.</li>
 * <li>Not signed in: 303 to /sign_in, or 401 {"error":"unauthorized"} when the
 * request accepts application/json.</li>
 * </ul>
 */
@Configuration
class SecurityConfig {

    static final String SESSION_COOKIE = "lab_session";
    static final String CSRF_FIELD = "csrf_token";

    private static final byte[] UNAUTHORIZED = "{\"error\":\"unauthorized\"}".getBytes(StandardCharsets.UTF_8);

    @Bean
    SecurityFilterChain signedIn(HttpSecurity http, Accounts accounts) throws Exception {
        CookieCsrfTokenRepository csrfTokens = new CookieCsrfTokenRepository();
        csrfTokens.setParameterName(CSRF_FIELD);
        csrfTokens.setCookieCustomizer(cookie -> cookie.sameSite("Lax"));

        PathPatternRequestMatcher.Builder path = PathPatternRequestMatcher.withDefaults();
        RequestMatcher posts = new OrRequestMatcher(
                path.matcher(HttpMethod.POST, "/sign_in"),
                path.matcher(HttpMethod.POST, "/sign_out"),
                path.matcher(HttpMethod.POST, "/orders"),
                path.matcher(HttpMethod.POST, "/orders/*/cancel"));

        MediaTypeRequestMatcher json = new MediaTypeRequestMatcher(new HeaderContentNegotiationStrategy(),
                MediaType.APPLICATION_JSON);
        json.setIgnoredMediaTypes(Set.of(MediaType.ALL));

        return http
                .securityMatcher("/sign_in", "/sign_out", "/account", "/orders", "/orders/**")
                .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .requestCache(c -> c.disable())
                .logout(l -> l.disable())
                // STATELESS keeps a SessionManagementFilter, which takes every request
                // our filter authenticates for a fresh sign-in and would replace the
                // CSRF cookie each time: the token stays the client's cookie instead.
                .csrf(c -> c.csrfTokenRepository(csrfTokens).requireCsrfProtectionMatcher(posts)
                        .sessionAuthenticationStrategy(new NullAuthenticatedSessionStrategy()))
                .addFilterBefore(new SessionCookieFilter(accounts), AnonymousAuthenticationFilter.class)
                .authorizeHttpRequests(a -> a
                        .requestMatchers(HttpMethod.GET, "/account").authenticated()
                        .requestMatchers(HttpMethod.POST, "/orders", "/orders/*/cancel").authenticated()
                        .anyRequest().permitAll())
                .exceptionHandling(e -> e
                        .defaultAuthenticationEntryPointFor(unauthorizedJson(), json)
                        .defaultAuthenticationEntryPointFor(seeSignIn(), AnyRequestMatcher.INSTANCE))
                .build();
    }

    /** 401 {"error":"unauthorized"} for a client that asked for JSON. */
    private static AuthenticationEntryPoint unauthorizedJson() {
        return (request, response, e) -> {
            response.setStatus(HttpStatus.UNAUTHORIZED.value());
            response.setContentType(MediaType.APPLICATION_JSON_VALUE);
            response.setContentLength(UNAUTHORIZED.length);
            response.getOutputStream().write(UNAUTHORIZED);
        };
    }

    /** 303 to the sign-in form (Spring's LoginUrlAuthenticationEntryPoint answers 302). */
    private static AuthenticationEntryPoint seeSignIn() {
        return (request, response, e) -> seeOther(response, "/sign_in");
    }

    static void seeOther(HttpServletResponse response, String location) throws IOException {
        response.setStatus(HttpStatus.SEE_OTHER.value());
        response.setHeader(HttpHeaders.LOCATION, location);
        response.setContentType(MediaType.TEXT_PLAIN_VALUE);
        response.setContentLength(0);
    }

    /** Spring Security's bcrypt, at Spring's default strength: the seed's cost 10. */
    @Bean
    PasswordEncoder passwordEncoder() {
        return new BCryptPasswordEncoder(10);
    }

    /** A user by email, read from the users table on every sign-in. */
    @Bean
    UserDetailsService userDetailsService(Accounts accounts) {
        return email -> accounts.credentials(email)
                .orElseThrow(() -> new UsernameNotFoundException("no such user"));
    }

    @Bean
    AuthenticationManager authenticationManager(UserDetailsService users, PasswordEncoder encoder) {
        DaoAuthenticationProvider provider = new DaoAuthenticationProvider(users);
        provider.setPasswordEncoder(encoder);
        return new ProviderManager(List.of(provider));
    }
}
