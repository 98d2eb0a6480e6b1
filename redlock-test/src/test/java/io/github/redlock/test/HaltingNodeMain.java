package io.github.redlock.test;

/**
 * Starts a node, prints its pid, and halts the JVM without running shutdown hooks, as a killed or
 * JMH-halted JVM would end.
 */
public final class HaltingNodeMain {

    private HaltingNodeMain() {
    }

    public static void main(String[] args) {
        RedisNode node = RedisNode.start();
        System.out.println("port=" + node.port());
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }

}
