package stacklab.app;

import java.io.IOException;
import java.util.Optional;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolderStrategy;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.WebUtils;

/**
 * Fills the SecurityContext from the database on every request of the
 * signed-in chain: the {@code lab_session} cookie's token, its
 * {@code sessions} row (not expired), then its user, two reads and no cache,
 * so a session deleted or expired in the table is refused on the next
 * request. No cookie, or a token that names no live row: the context stays
 * empty and the request is anonymous. Made by {@link SecurityConfig} for its
 * chain only, not a bean, so Spring Boot does not also register it as a
 * servlet filter for every path.
 */
final class SessionCookieFilter extends OncePerRequestFilter {

    private final Accounts accounts;
    private final SecurityContextHolderStrategy contexts = SecurityContextHolder.getContextHolderStrategy();

    SessionCookieFilter(Accounts accounts) {
        this.accounts = accounts;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        Cookie cookie = WebUtils.getCookie(request, SecurityConfig.SESSION_COOKIE);
        if (cookie != null) {
            Optional<SignedIn> user = accounts.signedIn(cookie.getValue());
            if (user.isPresent()) {
                SecurityContext context = contexts.createEmptyContext();
                context.setAuthentication(UsernamePasswordAuthenticationToken.authenticated(
                        user.get(), null, AuthorityUtils.createAuthorityList("ROLE_USER")));
                contexts.setContext(context);
            }
        }
        chain.doFilter(request, response);
    }

    /** The signed-in user of a request: the principal of its Authentication. */
    record SignedIn(long id, String email, String token) {
    }
}
