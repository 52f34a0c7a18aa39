package stacklab.app;

import java.util.Base64;
import java.util.List;
import java.util.Optional;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.crypto.keygen.BytesKeyGenerator;
import org.springframework.security.crypto.keygen.KeyGenerators;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.annotation.Transactional;

import stacklab.app.SessionCookieFilter.SignedIn;

/** Users and sessions: the SQL of signing in, of every signed-in request, and of signing out. */
@Repository
public class Accounts {

    /** 24 h, docs/app.md's session lifetime. */
    static final long SESSION_MILLIS = 86_400_000L;

    private static final String USER_BY_EMAIL = "SELECT id, email, password_hash FROM users WHERE email = ?";
    private static final String LIVE_SESSION = "SELECT user_id FROM sessions WHERE token = ? AND expires_at > ?";
    private static final String USER_BY_ID = "SELECT id, email FROM users WHERE id = ?";
    private static final String INSERT_SESSION =
            "INSERT INTO sessions (token, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)";
    private static final String DELETE_SESSION = "DELETE FROM sessions WHERE token = ?";

    private static final Base64.Encoder TOKEN_TEXT = Base64.getUrlEncoder().withoutPadding();

    private final JdbcTemplate jdbc;
    /** 32 bytes (256 bits) a token, from SecureRandom: the OS's source (NativePRNG) on Linux. */
    private final BytesKeyGenerator tokens = KeyGenerators.secureRandom(32);

    public Accounts(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** The user with this email and its stored bcrypt hash, for Spring Security's DaoAuthenticationProvider. */
    Optional<Credentials> credentials(String email) {
        return jdbc.query(USER_BY_EMAIL, (rs, i) -> new Credentials(rs.getLong(1), rs.getString(2), rs.getString(3)), email)
                .stream().findFirst();
    }

    /** The session's row (by token, not expired), then its user: two reads, every request. */
    Optional<SignedIn> signedIn(String token) {
        if (token == null || token.isEmpty() || token.length() > 128) {
            return Optional.empty();
        }
        List<Long> users = jdbc.queryForList(LIVE_SESSION, Long.class, token, System.currentTimeMillis());
        if (users.isEmpty()) {
            return Optional.empty();
        }
        return jdbc.query(USER_BY_ID, (rs, i) -> new SignedIn(rs.getLong(1), rs.getString(2), token), users.get(0))
                .stream().findFirst();
    }

    /** A new session for the user; its token, base64url of 32 random bytes (43 characters). */
    @Transactional
    public String createSession(long userId) {
        String token = TOKEN_TEXT.encodeToString(tokens.generateKey());
        long now = System.currentTimeMillis();
        jdbc.update(INSERT_SESSION, token, userId, now, now + SESSION_MILLIS);
        return token;
    }

    @Transactional
    public void deleteSession(String token) {
        jdbc.update(DELETE_SESSION, token);
    }

    /** A users row as Spring Security reads it: the email is the username, the hash the password. */
    record Credentials(long id, String email, String passwordHash) implements UserDetails {

        @Override
        public List<GrantedAuthority> getAuthorities() {
            return AuthorityUtils.createAuthorityList("ROLE_USER");
        }

        @Override
        public String getPassword() {
            return passwordHash;
        }

        @Override
        public String getUsername() {
            return email;
        }

        @Override
        public String toString() {
            return "Credentials[id=" + id + "]";
        }
    }
}
