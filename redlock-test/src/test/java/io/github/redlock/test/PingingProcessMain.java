package io.github.redlock.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * A process that {@link ProcessCutsIntegrationTests} cuts: it reads commands on its standard input and prints one line
 * for each. {@code open <port>} keeps a connection to a node; {@code kept <millis>} sends {@code PING} on it;
 * {@code new <port> <millis>} sends {@code PING} on a new connection. Each answers the reply, {@code timeout} or
 * {@code refused}.
 */
public final class PingingProcessMain {

    private PingingProcessMain() {
    }

    public static void main(String[] args) throws IOException {
        BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Socket kept = null;
        for (String line = input.readLine(); line != null; line = input.readLine()) {
            String[] words = line.trim().split(" ");
            String answer;
            try {
                switch (words[0]) {
                    case "open" -> {
                        kept = Resp.open(Integer.parseInt(words[1]), 2000);
                        answer = "opened";
                    }
                    case "kept" -> {
                        kept.setSoTimeout(Integer.parseInt(words[1]));
                        answer = Resp.command(kept, "PING");
                    }
                    case "new" -> answer = Resp.command(Integer.parseInt(words[1]), Integer.parseInt(words[2]), "PING");
                    default -> answer = "unknown command " + words[0];
                }
            }
            catch (SocketTimeoutException ex) {
                answer = "timeout";
            }
            catch (ConnectException ex) {
                answer = "refused";
            }
            System.out.println(answer);
            System.out.flush();
        }
    }

}
