package io.github.redlock.core;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redlock.test.RedisNode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.ArrayOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Commands the tests of users and refused commands send to a node as its default user, and the least-privilege
 * {@code ACL SETUSER} line that the production page ({@code docs/production.md}) publishes.
 */
final class ServerCommands {

    private ServerCommands() {
    }

    /** Sends a command whose reply is a status or a text, e.g. {@code ACL SETUSER …}, and returns it. */
    static String call(RedisNode node, String... words) {
        RedisClient client = RedisClient.create(node.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection.sync().dispatch(CommandType.valueOf(words[0]), new StatusOutput<>(StringCodec.UTF8), arguments(words));
        }
        finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

    /** The node's {@code ACL LOG}, its entries as text, or {@code ""} when it is empty. */
    static String aclLog(RedisNode node) {
        RedisClient client = RedisClient.create(node.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            List<Object> entries = connection.sync().dispatch(CommandType.ACL, new ArrayOutput<>(StringCodec.UTF8),
                    arguments("ACL", "LOG"));
            return entries.isEmpty() ? "" : entries.toString();
        }
        finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

    /** The {@code ACL SETUSER} line of the production checklist ({@code docs/production.md}), as arguments. */
    static List<String> aclLine() {
        try {
            String page = Files.readString(Path.of("..", "docs", "production.md"), StandardCharsets.UTF_8);
            Matcher line = Pattern.compile("^ACL SETUSER .*$", Pattern.MULTILINE).matcher(page);
            assertThat(line.find()).as("docs/production.md publishes an ACL SETUSER line").isTrue();
            return List.of(line.group().trim().split("\\s+"));
        }
        catch (IOException ex) {
            throw new IllegalStateException("Cannot read docs/production.md", ex);
        }
    }

    private static CommandArgs<String, String> arguments(String... words) {
        CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8);
        for (int i = 1; i < words.length; i++) {
            args.add(words[i]);
        }
        return args;
    }

}
