package io.github.redlock.test;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RedisNodesIntegrationTests {

    @Test
    void startsNodesOnDistinctLoopbackPortsThatAnswer() throws IOException {
        try (RedisNodes redis = RedisNodes.start(3)) {
            assertThat(redis.nodes()).extracting(RedisNode::port).doesNotHaveDuplicates().doesNotContain(6379);
            assertThat(redis.uris()).allMatch((uri) -> uri.startsWith("redis://127.0.0.1:"));
            for (RedisNode node : redis.nodes()) {
                assertThat(Resp.command(node.port(), 1000, "PING")).isEqualTo("+PONG");
            }
        }
    }

    @Test
    void allAnswerTellsWhetherEveryNodeAnswers() {
        try (RedisNodes redis = RedisNodes.start(3)) {
            assertThat(RedisNodes.allAnswer(redis.uris())).isTrue();
            redis.node(1).kill();
            assertThat(RedisNodes.allAnswer(redis.uris())).isFalse();
        }
        assertThat(RedisNodes.allAnswer(java.util.List.of())).isFalse();
    }

    @Test
    void pausedNodeAnswersNothingUntilResumed() throws IOException {
        try (RedisNodes redis = RedisNodes.start(1)) {
            RedisNode node = redis.node(0);
            node.pause();
            assertThat(node.isPaused()).isTrue();
            assertThatExceptionOfType(SocketTimeoutException.class).isThrownBy(() -> Resp.command(node.port(), 300, "PING"));
            node.resume();
            assertThat(Resp.command(node.port(), 1000, "PING")).isEqualTo("+PONG");
        }
    }

    @Test
    void cutOffNodeDropsItsOpenConnections() throws Exception {
        try (RedisNodes redis = RedisNodes.start(1)) {
            RedisNode node = redis.node(0);
            try (java.net.Socket client = Resp.open(node.port(), 1000)) {
                assertThat(Resp.command(client, "SET", "k", "v")).isEqualTo("+OK");
                node.cutOff();
                assertThat(client.getInputStream().read()).as("the open connection is closed").isEqualTo(-1);
            }
        }
    }

    @Test
    void cutOffNodeRefusesNewClientsUntilHealed() throws Exception {
        try (RedisNodes redis = RedisNodes.start(1)) {
            RedisNode node = redis.node(0);
            node.cutOff();
            assertThat(Resp.command(node.port(), 1000, "PING")).startsWith("-ERR max number of clients");
            node.heal();
            assertThat(Resp.command(node.port(), 1000, "PING")).isEqualTo("+PONG");
        }
    }

    @Test
    void cutOffNodeKeepsItsKeys() throws Exception {
        try (RedisNodes redis = RedisNodes.start(1)) {
            RedisNode node = redis.node(0);
            assertThat(Resp.command(node.port(), 1000, "SET", "k", "v")).isEqualTo("+OK");
            node.cutOff();
            node.heal();
            assertThat(Resp.command(node.port(), 1000, "GET", "k")).isEqualTo("$1");
        }
    }

    @Test
    void killedNodeRefusesConnections() throws IOException {
        try (RedisNodes redis = RedisNodes.start(1)) {
            RedisNode node = redis.node(0);
            int port = node.port();
            node.kill();
            assertThat(node.isRunning()).isFalse();
            assertThatExceptionOfType(IOException.class).isThrownBy(() -> Resp.command(port, 300, "PING"));
        }
    }

    @Test
    void killedNodeRestartsEmptyOnTheSamePort() throws IOException {
        try (RedisNodes redis = RedisNodes.start(1)) {
            RedisNode node = redis.node(0);
            int port = node.port();
            assertThat(Resp.command(port, 1000, "SET", "k", "v")).isEqualTo("+OK");
            node.kill();
            node.restart();
            assertThat(node.port()).isEqualTo(port);
            assertThat(Resp.command(port, 1000, "EXISTS", "k")).isEqualTo(":0");
        }
    }

    @Test
    void resetUndoesFaults() throws IOException {
        try (RedisNodes redis = RedisNodes.start(2)) {
            redis.node(0).pause();
            redis.node(1).kill();
            redis.reset();
            for (RedisNode node : redis.nodes()) {
                assertThat(node.isRunning()).isTrue();
                assertThat(node.isPaused()).isFalse();
                assertThat(Resp.command(node.port(), 1000, "PING")).isEqualTo("+PONG");
            }
        }
    }

    @Test
    void resetDeletesKeys() throws IOException {
        try (RedisNodes redis = RedisNodes.start(2)) {
            Resp.command(redis.node(0).port(), 1000, "SET", "k", "v");
            redis.node(0).pause();
            redis.node(1).kill();
            redis.reset();
            for (RedisNode node : redis.nodes()) {
                assertThat(Resp.command(node.port(), 1000, "DBSIZE")).isEqualTo(":0");
            }
        }
    }

    @Test
    void closeKillsTheProcessEvenWhenPaused() {
        RedisNodes redis = RedisNodes.start(1);
        RedisNode node = redis.node(0);
        node.pause();
        redis.close();
        assertThat(node.isRunning()).isFalse();
        assertThatExceptionOfType(IOException.class).isThrownBy(() -> Resp.command(node.port(), 300, "PING"));
    }

    @Test
    void nodesOfAJvmThatEndedWithoutItsShutdownHooksAreKilledByTheNextOne() throws Exception {
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), HaltingNodeMain.class.getName()).redirectErrorStream(true).start();
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(output).contains("port=");
        int port = Integer.parseInt(output.substring(output.indexOf("port=") + 5).trim().split("\\s")[0]);
        assertThat(Resp.command(port, 1000, "PING")).as("orphaned by the halted JVM").isEqualTo("+PONG");
        ProcessReaper.reapOrphans();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5); // SIGKILL is asynchronous
        boolean answering = true;
        while (answering && System.nanoTime() < deadline) {
            try {
                Resp.command(port, 300, "PING");
                TimeUnit.MILLISECONDS.sleep(10);
            }
            catch (IOException ex) {
                answering = false;
            }
        }
        assertThat(answering).as("orphan still answers after reaping").isFalse();
    }

    @Test
    void shippedBinaryRuns() throws Exception {
        Path binary = RedisServerBinary.extractShipped();
        Process process = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
        assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).contains("Redis server v=");
    }

    @Test
    void rejectsANodeCountBelowOne() {
        assertThatIllegalArgumentException().isThrownBy(() -> RedisNodes.start(0)).withMessageContaining("count");
    }

}
