package stacklab.app;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * The order form's rules (docs/app.md): amounts as exact text to minor units,
 * never through a float, and the email and currency patterns.
 */
final class Money {

    private static final Pattern AMOUNT = Pattern.compile("[0-9]{1,7}(\\.[0-9]{1,2})?");
    // \s spelled out as RE2's (Go's) [\t\n\f\r ], so the stacks agree on what a space is.
    private static final Pattern EMAIL = Pattern.compile("[^@\\t\\n\\f\\r ]+@[^@\\t\\n\\f\\r ]+\\.[^@\\t\\n\\f\\r ]+");
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

    private Money() {
    }

    /** Minor units of a valid amount ("149.9" is 14990, "0.01" is 1), or -1 when it is not one (zero included). */
    static long minorUnits(String amount) {
        if (amount == null || !AMOUNT.matcher(amount).matches()) {
            return -1;
        }
        int dot = amount.indexOf('.');
        String major = dot < 0 ? amount : amount.substring(0, dot);
        String minor = dot < 0 ? "" : amount.substring(dot + 1);
        long cents = Long.parseLong(major) * 100 + (minor.isEmpty() ? 0 : Long.parseLong((minor + "0").substring(0, 2)));
        return cents > 0 ? cents : -1;
    }

    static String format(long cents) {
        long minor = cents % 100;
        return (cents / 100) + (minor < 10 ? ".0" : ".") + minor;
    }

    static boolean validEmail(String email) {
        return email != null && email.getBytes(StandardCharsets.UTF_8).length <= 254 && EMAIL.matcher(email).matches();
    }

    static boolean validCurrency(String currency) {
        return currency != null && CURRENCY.matcher(currency).matches();
    }
}
