package io.github.redlock.core.internal.script;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * A Lua script of the algorithm, loaded once from the classpath, called by its SHA-1 digest (EVALSHA) with
 * the body as a fallback when a node answers NOSCRIPT (e.g. after a restart).
 */
public final class LuaScript {

    public static final LuaScript RELEASE = load("release.lua");

    static final LuaScript EXTEND = load("extend.lua");

    static final LuaScript ACQUIRE_READ = load("queue-prelude.lua", "acquire-read.lua");

    static final LuaScript ACQUIRE_WRITE = load("queue-prelude.lua", "fence-prelude.lua", "acquire-write.lua");

    static final LuaScript RELEASE_READ = load("release-read.lua");

    static final LuaScript RELEASE_WRITE = load("release-write.lua");

    static final LuaScript EXTEND_READ = load("extend-read.lua");

    /** The exclusive lock's SET NX PX for a caller that waits: a refusal says when the holder's key expires. */
    static final LuaScript ACQUIRE_EXCLUSIVE = load("acquire-exclusive.lua");

    /** The exclusive lock's SET NX PX, raising the node's fencing counter where it set the key. */
    static final LuaScript ACQUIRE_FENCED = load("fence-prelude.lua", "acquire-fenced.lua");

    /** The lock on several keys: all of them or none, on each node. */
    static final LuaScript ACQUIRE_MULTI = load("multi-prelude.lua", "acquire-multi.lua");

    /** The lock on several keys, raising the node's fencing counter where it set them. */
    static final LuaScript ACQUIRE_MULTI_FENCED = load("multi-prelude.lua", "fence-prelude.lua", "acquire-multi-fenced.lua");

    /** The release of a lock on several keys: each key that still holds the token. */
    public static final LuaScript RELEASE_MULTI = load("release-multi.lua");

    /** The extension of a lock on several keys: all of them, while every one holds the token. */
    static final LuaScript EXTEND_MULTI = load("extend-multi.lua");

    /**
     * The re-write of an exclusive lease (on one key or several) on a node that restarted empty since the grant and
     * votes again after its quarantine: all the keys, where none of them exists (see {@code FollowUps#repair}). Seldom, and
     * not bounded by a node timeout: not loaded, sent by SHA with the body after a NOSCRIPT.
     */
    public static final LuaScript REPAIR = load("repair.lua");

    /** The re-write of a read or write lease, as {@link #REPAIR} of an exclusive one: where the lock lets it. */
    public static final LuaScript REPAIR_RW = load("repair-rw.lua");

    /**
     * An exclusive lock's release that hands the key to the next holder of this JVM in the same step, where it
     * still holds the releasing token (see {@code LockEngine#handOver}).
     */
    public static final LuaScript HANDOFF = load("handoff.lua");

    /**
     * The clean-up after a failed attempt at an exclusive lock or a lock on several keys: deletes what it set, and
     * records where another token holds a key that this client waits for it.
     */
    public static final LuaScript CLEANUP = load("cleanup.lua");

    /** A release that leaves the keys to expire a given time later (at most; never later than they would). */
    public static final LuaScript RELEASE_LATER = load("release-later.lua");

    /**
     * An operator's revoke: deletes an exclusive lock's key whoever holds it, where it is a lock (a string with a
     * time to live), and publishes its release. Seldom, but loaded like the frequent ones: it runs within a node
     * timeout, which a NOSCRIPT round trip would eat into.
     */
    public static final LuaScript REVOKE = load("revoke.lua");

    /** The second round of a fenced acquisition: the token written back to the nodes that hold the key. */
    public static final LuaScript CONFIRM_FENCING = load("confirm-fencing.lua");

    /** Reads or raises a node's fencing counter, when it (re)connects (called seldom: by body, not loaded). */
    public static final LuaScript FENCING_FLOOR = load("fence-prelude.lua", "fencing-floor.lua");

    /** Records the server process a client saw on a node (called seldom: by body, not loaded). */
    public static final LuaScript NODE_RECORD = load("node-record.lua");

    /** Reads the server processes clients saw on a node (called seldom: by body, not loaded). */
    public static final LuaScript NODE_RECORDS = load("node-records.lua");

    /** Marks, and reads, since which server process a durable node kept its data (called seldom: by body, not loaded). */
    public static final LuaScript KEPT_MARKER = load("kept-marker.lua");

    /** Reads one of a lock's keys for an inspection (called seldom: by body, not loaded). */
    public static final LuaScript INSPECT = load("inspect.lua");

    /** Every script sent within a node timeout, loaded on each connection as it connects. */
    public static final List<LuaScript> ALL = List.of(RELEASE, EXTEND, ACQUIRE_READ, ACQUIRE_WRITE, RELEASE_READ, RELEASE_WRITE,
            EXTEND_READ, ACQUIRE_EXCLUSIVE, ACQUIRE_FENCED, ACQUIRE_MULTI, ACQUIRE_MULTI_FENCED, RELEASE_MULTI, EXTEND_MULTI, RELEASE_LATER,
            CONFIRM_FENCING, HANDOFF, CLEANUP, REVOKE);

    private final String body;

    private final String sha;

    private LuaScript(String body) {
        this.body = body;
        this.sha = sha1(body);
    }

    public String body() {
        return this.body;
    }

    public String sha() {
        return this.sha;
    }

    /** Loads a script made of the named files, one after the other (e.g. a shared opening, then the body). */
    private static LuaScript load(String... names) {
        StringBuilder body = new StringBuilder();
        for (String name : names) {
            try (InputStream in = LuaScript.class.getResourceAsStream(name)) {
                if (in == null) {
                    throw new IllegalStateException("Lua script " + name + " is missing from the redlock-core jar");
                }
                body.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
            catch (IOException ex) {
                throw new UncheckedIOException("Cannot read Lua script " + name, ex);
            }
        }
        return new LuaScript(body.toString());
    }

    private static String sha1(String body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(body.getBytes(StandardCharsets.UTF_8)));
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-1 is required by every Java platform", ex);
        }
    }

}
