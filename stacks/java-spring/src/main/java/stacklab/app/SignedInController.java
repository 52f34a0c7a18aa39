package stacklab.app;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseCookie;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.CookieValue;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseBody;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.servlet.ModelAndView;
import org.springframework.web.servlet.View;

import stacklab.app.Accounts.Credentials;
import stacklab.app.Answers.Account;
import stacklab.app.Answers.User;
import stacklab.app.SessionCookieFilter.SignedIn;

/**
 * The signed-in routes of docs/app.md. By the time a handler runs, Spring
 * Security's chain ({@link SecurityConfig}) has checked the CSRF token of
 * every POST (403), filled the SecurityContext from the sessions table, and
 * sent an anonymous request for /account or /orders to /sign_in (303) or
 * 401; the handlers read the user as their {@code @AuthenticationPrincipal}.
 * Pages are Thymeleaf templates; every form's hidden {@code csrf_token} is
 * the request's {@link CsrfToken}.
 */
@Controller
class SignedInController {

    /** The error line of an invalid order form, by field. */
    private static final Map<String, String> INVALID = Map.of(
            "email", "Invalid email.",
            "amount", "Invalid amount.",
            "currency", "Invalid currency.");

    private final AuthenticationManager authentication;
    private final Accounts accounts;
    private final Orders orders;

    SignedInController(AuthenticationManager authentication, Accounts accounts, Orders orders) {
        this.authentication = authentication;
        this.accounts = accounts;
        this.orders = orders;
    }

    /** The same form, signed in or not. */
    @GetMapping("/sign_in")
    ModelAndView signInForm(CsrfToken csrf) {
        return new ModelAndView("sign_in", Map.of("csrf", csrf.getToken()));
    }

    /**
     * The password checked by Spring Security's AuthenticationManager
     * (DaoAuthenticationProvider, BCryptPasswordEncoder); on a match, a new
     * sessions row and its cookie. A wrong password and an unknown email get
     * the same 422 page.
     */
    @PostMapping("/sign_in")
    ModelAndView signIn(@RequestParam(required = false) String email, @RequestParam(required = false) String password,
            CsrfToken csrf, HttpServletResponse response) {
        if (email == null || password == null) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "email and password are required");
        }
        Authentication signedIn;
        try {
            signedIn = authentication.authenticate(UsernamePasswordAuthenticationToken.unauthenticated(email, password));
        } catch (AuthenticationException refused) {
            ModelAndView page = new ModelAndView("sign_in", HttpStatus.UNPROCESSABLE_ENTITY);
            page.addObject("csrf", csrf.getToken());
            page.addObject("failed", true);
            return page;
        }
        String token = accounts.createSession(((Credentials) signedIn.getPrincipal()).id());
        response.addHeader(HttpHeaders.SET_COOKIE, sessionCookie(token, Duration.ofMillis(Accounts.SESSION_MILLIS)));
        return seeOther("/account");
    }

    /** Deletes the session's row (if any) and expires the cookie. */
    @PostMapping("/sign_out")
    ModelAndView signOut(@CookieValue(name = SecurityConfig.SESSION_COOKIE, required = false) String token,
            HttpServletResponse response) {
        if (token != null && !token.isEmpty()) {
            accounts.deleteSession(token);
        }
        response.addHeader(HttpHeaders.SET_COOKIE, sessionCookie("", Duration.ZERO));
        return seeOther("/sign_in");
    }

    /** The account page (HTML, the default). */
    @GetMapping("/account")
    ModelAndView account(@AuthenticationPrincipal SignedIn user, CsrfToken csrf) {
        return accountPage(user, csrf, HttpStatus.OK);
    }

    /** Its JSON twin, for Accept: application/json. */
    @GetMapping(path = "/account", produces = MediaType.APPLICATION_JSON_VALUE)
    @ResponseBody
    Account accountJson(@AuthenticationPrincipal SignedIn user, CsrfToken csrf) {
        return new Account(new User(user.id(), user.email()), orders.newest(user.id()), csrf.getToken());
    }

    /** Fields checked in docs/app.md's order (email, amount, currency), then the order and its job in one transaction. */
    @PostMapping("/orders")
    ModelAndView placeOrder(@AuthenticationPrincipal SignedIn user, @RequestParam(required = false) String email,
            @RequestParam(required = false) String amount, @RequestParam(required = false) String currency,
            CsrfToken csrf) {
        long cents = Money.minorUnits(amount);
        String invalid = !Money.validEmail(email) ? "email"
                : cents < 0 ? "amount"
                : !Money.validCurrency(currency) ? "currency"
                : null;
        if (invalid != null) {
            ModelAndView page = accountPage(user, csrf, HttpStatus.UNPROCESSABLE_ENTITY);
            page.addObject("field", invalid);
            page.addObject("message", INVALID.get(invalid));
            page.addObject("form", form(email, amount, currency));
            return page;
        }
        orders.place(user.id(), email, cents, currency);
        return seeOther("/account");
    }

    /** Another user's order is never told apart from a missing one: both 404. */
    @PostMapping("/orders/{id}/cancel")
    ModelAndView cancel(@AuthenticationPrincipal SignedIn user, @PathVariable String id) {
        long orderId = positiveId(id);
        return switch (orders.cancel(user.id(), orderId)) {
            case CANCELLED -> seeOther("/account");
            case NOT_FOUND -> throw new ResponseStatusException(HttpStatus.NOT_FOUND);
            case NOT_PENDING -> throw new ResponseStatusException(HttpStatus.CONFLICT, "the order is not pending");
        };
    }

    private ModelAndView accountPage(SignedIn user, CsrfToken csrf, HttpStatus status) {
        ModelAndView page = new ModelAndView("account", status);
        page.addObject("user", new User(user.id(), user.email()));
        page.addObject("orders", orders.newest(user.id()));
        page.addObject("csrf", csrf.getToken());
        page.addObject("form", form(null, null, null));
        return page;
    }

    private static Map<String, String> form(String email, String amount, String currency) {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("email", email);
        form.put("amount", amount);
        form.put("currency", currency);
        return form;
    }

    private static long positiveId(String id) {
        if (id.isEmpty() || id.length() > 18 || !id.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new ResponseStatusException(HttpStatus.NOT_FOUND);
        }
        long n = Long.parseLong(id);
        if (n <= 0) {
            throw new ResponseStatusException(HttpStatus.NOT_FOUND);
        }
        return n;
    }

    /** lab_session: HttpOnly, SameSite=Lax, Path=/ (not Secure: the lab speaks plain HTTP on 127.0.0.1). */
    private static String sessionCookie(String token, Duration maxAge) {
        return ResponseCookie.from(SecurityConfig.SESSION_COOKIE, token)
                .path("/").httpOnly(true).sameSite("Lax").maxAge(maxAge)
                .build().toString();
    }

    /** 303 See Other (Spring MVC's "redirect:" answers 302). */
    private static ModelAndView seeOther(String location) {
        return new ModelAndView(new SeeOther(location));
    }

    private record SeeOther(String location) implements View {
        @Override
        public void render(Map<String, ?> model, HttpServletRequest request, HttpServletResponse response)
                throws IOException {
            SecurityConfig.seeOther(response, location);
        }
    }
}
