package io.github.redlock.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests that {@link ProcessCuts} cuts one process from the ports named, on loopback, silently both ways (no reply, no
 * refused connection), while that process still reaches other ports and every other process still reaches the node; that
 * a heal lets the same connection carry on; that closing ends every cut; and that a member that exited is let go.
 */
class ProcessCutsIntegrationTests {

    @BeforeAll
    static void nftables() {
        Capabilities.assume(Capabilities.NFT, ProcessCuts.available(),
                "Processes cannot be cut here (run as root with nftables installed and the net_cls cgroup controller)");
    }

    @Test
    void aCutProcessLosesItsPacketsToTheNodeSilentlyWhileItStillReachesAnotherAndOthersStillReachIt() throws Exception {
        try (ProcessCuts cuts = ProcessCuts.create(); RedisNode cutOff = RedisNode.start(); RedisNode other = RedisNode.start();
                Pinging child = Pinging.start()) {
            assertThat(child.ask("open " + cutOff.port())).isEqualTo("opened");
            assertThat(child.ask("kept 2000")).isEqualTo("+PONG");
            cuts.join(child.pid());
            cuts.cut(child.pid(), cutOff.port());
            assertThat(cuts.cutPorts(child.pid())).containsExactly(cutOff.port());
            assertThat(child.ask("kept 500")).as("an open connection: no reply, and no reset").isEqualTo("timeout");
            assertThat(child.ask("new " + cutOff.port() + " 500")).as("a new connection: neither answered nor refused")
                    .isEqualTo("timeout");
            assertThat(child.ask("new " + other.port() + " 2000")).as("another node, from the cut process").isEqualTo("+PONG");
            assertThat(Resp.command(cutOff.port(), 2000, "PING")).as("the node, from another process").isEqualTo("+PONG");
            cuts.heal(child.pid());
            assertThat(cuts.cutPorts(child.pid())).isEmpty();
            // The PING sent while cut is sent again once the cut ends: its reply comes first, on the same connection.
            assertThat(child.ask("kept 10000")).isEqualTo("+PONG");
            assertThat(child.ask("new " + cutOff.port() + " 2000")).isEqualTo("+PONG");
        }
    }

    @Test
    void closingEndsEveryCutAndAProcessThatDidNotJoinIsRefusedClearly() throws Exception {
        try (RedisNode node = RedisNode.start(); Pinging child = Pinging.start()) {
            ProcessCuts cuts = ProcessCuts.create();
            cuts.join(child.pid());
            cuts.cut(child.pid(), node.port());
            assertThat(child.ask("new " + node.port() + " 500")).isEqualTo("timeout");
            assertThatIllegalArgumentException().isThrownBy(() -> cuts.cut(ProcessHandle.current().pid(), node.port()))
                    .withMessageContaining("did not join these cuts");
            assertThatIllegalArgumentException().isThrownBy(() -> cuts.cut(child.pid())).withMessageContaining("at least one port");
            cuts.close();
            assertThat(child.ask("new " + node.port() + " 2000")).as("after the close").isEqualTo("+PONG");
        }
    }

    @Test
    void aMemberThatExitedIsLetGoAndTheNextProcessJoinsUncutWithRulesOfItsOwn() throws Exception {
        try (ProcessCuts cuts = ProcessCuts.create(); RedisNode node = RedisNode.start()) {
            long exited;
            try (Pinging child = Pinging.start()) {
                exited = child.pid();
                cuts.join(exited);
                cuts.cut(exited, node.port());
            }
            try (Pinging child = Pinging.start()) {
                cuts.join(child.pid());
                assertThatIllegalArgumentException().as("the member that exited, let go at the next join")
                        .isThrownBy(() -> cuts.cutPorts(exited)).withMessageContaining("did not join these cuts");
                assertThat(child.ask("new " + node.port() + " 2000")).as("the new member, not cut").isEqualTo("+PONG");
                cuts.cut(child.pid(), node.port());
                assertThat(child.ask("new " + node.port() + " 500")).as("the new member, cut").isEqualTo("timeout");
                cuts.heal(child.pid());
                assertThat(child.ask("new " + node.port() + " 2000")).as("healed").isEqualTo("+PONG");
            }
        }
    }

    /** A {@link PingingProcessMain} process, asked one line at a time, each answer within 30 s. */
    private static final class Pinging implements AutoCloseable {

        private final Process process;

        private final Writer input;

        private final BufferedReader output;

        private Pinging(Process process) {
            this.process = process;
            this.input = process.outputWriter(StandardCharsets.UTF_8);
            this.output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        }

        static Pinging start() throws IOException {
            return new Pinging(new ProcessBuilder(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                    System.getProperty("java.class.path"), PingingProcessMain.class.getName()).redirectErrorStream(true).start());
        }

        long pid() {
            return this.process.pid();
        }

        String ask(String command) throws Exception {
            this.input.write(command + "\n");
            this.input.flush();
            java.util.concurrent.CompletableFuture<String> line = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return this.output.readLine();
                }
                catch (IOException ex) {
                    throw new java.io.UncheckedIOException(ex);
                }
            });
            return line.get(30, TimeUnit.SECONDS);
        }

        @Override
        public void close() throws InterruptedException {
            this.process.destroy();
            if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
                this.process.destroyForcibly();
            }
        }

    }

}
