package chwire.spark;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An error of chwire's connector: a bad option, a type without a Spark mapping, a connection
 * failure, or the server's error, whose message starts with {@code ClickHouse error CODE (NAME)}.
 * Thrown by the native code (a Rust panic there arrives as one too, never as a crash).
 */
public class ChwireException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private static final Pattern CODE = Pattern.compile("^ClickHouse error (\\d+) ");

    public ChwireException(String message) {
        super(message);
    }

    /** The ClickHouse error code, or -1 when the error did not come from the server. */
    public int code() {
        String m = getMessage();
        Matcher matcher = CODE.matcher(m == null ? "" : m);
        return matcher.find() ? Integer.parseInt(matcher.group(1)) : -1;
    }
}
