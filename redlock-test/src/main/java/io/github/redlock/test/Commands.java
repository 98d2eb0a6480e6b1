package io.github.redlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** Runs the system commands that set up partitions ({@code ip}, {@code nft}, {@code mount}), each bounded to 10 s. */
final class Commands {

    private static final long TIMEOUT_SECONDS = 10;

    private Commands() {
    }

    /**
     * Runs a command and returns its output.
     * @throws IllegalStateException when it fails or does not end in time, with its output
     */
    static String output(String... command) {
        Result result = execute(command);
        if (!result.done()) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + result.text().strip());
        }
        return result.text();
    }

    /** Runs a command; when {@code required}, a failure throws with its output, otherwise it returns false. */
    static boolean run(boolean required, String... command) {
        Result result;
        try {
            result = execute(command);
        }
        catch (UncheckedIOException ex) {
            if (required) {
                throw ex;
            }
            return false;
        }
        if (!result.done() && required) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + result.text().strip());
        }
        return result.done();
    }

    private record Result(boolean done, String text) {
    }

    private static Result execute(String... command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            boolean exited = process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (!exited) {
                process.destroyForcibly();
            }
            return new Result(exited && process.exitValue() == 0, text);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot run " + String.join(" ", command), ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running " + String.join(" ", command), ex);
        }
    }

}
