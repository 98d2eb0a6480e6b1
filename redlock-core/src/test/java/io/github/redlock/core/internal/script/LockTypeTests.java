package io.github.redlock.core.internal.script;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import io.github.redlock.core.internal.guard.Fencing;
import io.github.redlock.core.internal.node.RedisNodeClient;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests {@link LockType}: the Redis keys each kind of lock uses for a key under a prefix, which of them each step
 * (acquisition, release, extension, clean-up, fencing, handoff) sends, and the script of each step. The layout is a
 * wire format shared with other Redlock clients and with other versions of this one: a change here is a breaking
 * change, and these tests spell it out byte by byte ({@code ÿ} stands for the separator byte {@code 0xFF}).
 */
class LockTypeTests {

    private static final String KEY = "redlock:order:42";

    private static final byte[] COUNTER = new Fencing(new RedisNodeClient[0], "redlock:").counterKey();

    @Test
    void theExclusiveLockIsTheKeyItselfAsOtherRedlockClientsWriteIt() {
        LockType.Keys keys = LockType.EXCLUSIVE.keys(KEY, null);
        assertThat(text(keys.acquire())).containsExactly("redlock:order:42");
        assertThat(text(keys.release())).containsExactly("redlock:order:42");
        assertThat(text(keys.extend())).containsExactly("redlock:order:42");
        assertThat(text(keys.retryCleanup())).containsExactly("redlock:order:42");
        assertThat(keys.fence()).isNull();
        assertThat(keys.names()).isNull();
        assertThat(text(keys.waiting())).containsExactly("redlock:order:42ÿwaiting");
        assertThat(text(keys.publishedRelease())).containsExactly("redlock:order:42", "redlock:order:42ÿwaiting");
        assertThat(text(keys.channels())).containsExactly("redlock:order:42ÿreleased");
    }

    @Test
    void aFencedExclusiveLockAlsoSendsTheNodesCounter() {
        LockType.Keys keys = LockType.EXCLUSIVE.keys(KEY, COUNTER);
        assertThat(text(keys.acquire())).containsExactly("redlock:order:42", "redlock:ÿfencing-counter");
        assertThat(text(keys.fence())).containsExactly("redlock:order:42", "redlock:ÿfencing-counter");
        assertThat(text(keys.release())).containsExactly("redlock:order:42");
        assertThat(text(keys.extend())).containsExactly("redlock:order:42");
        assertThat(text(keys.retryCleanup())).containsExactly("redlock:order:42");
        assertThat(text(keys.waiting())).containsExactly("redlock:order:42ÿwaiting");
        assertThat(text(keys.channels())).containsExactly("redlock:order:42ÿreleased");
    }

    @Test
    void theFencingCounterIsThePrefixTheSeparatorAndItsName() {
        assertThat(COUNTER).isEqualTo(bytes("redlock:", "fencing-counter"));
        assertThat(new Fencing(new RedisNodeClient[0], "").counterKey()).isEqualTo(bytes("", "fencing-counter"));
    }

    @Test
    void aReadLockUsesTheFivePartsOfTheReadWriteLock() {
        LockType.Keys keys = LockType.READ.keys(KEY, null);
        assertThat(text(keys.acquire())).containsExactly("redlock:order:42ÿwriter", "redlock:order:42ÿreaders",
                "redlock:order:42ÿqueued-writers", "redlock:order:42ÿqueued-readers", "redlock:order:42ÿqueue-expiry");
        assertThat(text(keys.release())).containsExactly("redlock:order:42ÿreaders", "redlock:order:42ÿqueued-readers",
                "redlock:order:42ÿqueue-expiry");
        assertThat(text(keys.extend())).containsExactly("redlock:order:42ÿreaders");
        assertThat(text(keys.retryCleanup())).containsExactly("redlock:order:42ÿreaders");
        assertThat(keys.fence()).isNull();
        assertThat(keys.names()).isNull();
        assertThat(keys.waiting()).isNull();
        assertThat(text(keys.publishedRelease())).as("a reader's release wakes queued writers").containsExactly("redlock:order:42ÿreaders",
                "redlock:order:42ÿqueued-readers", "redlock:order:42ÿqueue-expiry", "redlock:order:42ÿqueued-writers");
        assertThat(text(keys.channels())).containsExactly("redlock:order:42ÿreleased");
    }

    @Test
    void aReadLockIsNeverFenced() {
        LockType.Keys fenced = LockType.READ.keys(KEY, COUNTER);
        LockType.Keys plain = LockType.READ.keys(KEY, null);
        assertThat(fenced.acquire()).isDeepEqualTo(plain.acquire());
        assertThat(fenced.release()).isDeepEqualTo(plain.release());
        assertThat(fenced.fence()).isNull();
    }

    @Test
    void aWriteLockUsesTheFivePartsAndReleasesItsOwn() {
        LockType.Keys keys = LockType.WRITE.keys(KEY, null);
        assertThat(text(keys.acquire())).containsExactly("redlock:order:42ÿwriter", "redlock:order:42ÿreaders",
                "redlock:order:42ÿqueued-writers", "redlock:order:42ÿqueued-readers", "redlock:order:42ÿqueue-expiry");
        assertThat(text(keys.release())).containsExactly("redlock:order:42ÿwriter", "redlock:order:42ÿqueued-writers",
                "redlock:order:42ÿqueue-expiry");
        assertThat(text(keys.extend())).containsExactly("redlock:order:42ÿwriter");
        assertThat(text(keys.retryCleanup())).containsExactly("redlock:order:42ÿwriter");
        assertThat(keys.fence()).isNull();
        assertThat(keys.waiting()).isNull();
        assertThat(text(keys.publishedRelease())).as("a writer's release wakes queued readers and writers").containsExactly(
                "redlock:order:42ÿwriter", "redlock:order:42ÿqueued-writers", "redlock:order:42ÿqueue-expiry", "redlock:order:42ÿqueued-readers");
        assertThat(text(keys.channels())).containsExactly("redlock:order:42ÿreleased");
    }

    @Test
    void aFencedWriteLockSendsTheCounterSixth() {
        LockType.Keys keys = LockType.WRITE.keys(KEY, COUNTER);
        assertThat(text(keys.acquire())).containsExactly("redlock:order:42ÿwriter", "redlock:order:42ÿreaders",
                "redlock:order:42ÿqueued-writers", "redlock:order:42ÿqueued-readers", "redlock:order:42ÿqueue-expiry",
                "redlock:ÿfencing-counter");
        assertThat(text(keys.fence())).containsExactly("redlock:order:42ÿwriter", "redlock:ÿfencing-counter");
        assertThat(text(keys.release())).containsExactly("redlock:order:42ÿwriter", "redlock:order:42ÿqueued-writers",
                "redlock:order:42ÿqueue-expiry");
    }

    @Test
    void theExclusiveAndReadWriteLocksOfOneNameShareOnlyTheirReleaseChannel() {
        LockType.Keys exclusive = LockType.EXCLUSIVE.keys(KEY, null);
        LockType.Keys write = LockType.WRITE.keys(KEY, null);
        assertThat(text(write.acquire())).doesNotContainAnyElementsOf(text(exclusive.acquire()));
        assertThat(write.channels()).isDeepEqualTo(exclusive.channels());
    }

    @Test
    void keysAreUtf8AndPartNamesFollowTheSeparatorByte() {
        LockType.Keys keys = LockType.WRITE.keys("pfx:заказ:€", null);
        byte[] name = "pfx:заказ:€".getBytes(StandardCharsets.UTF_8);
        assertThat(keys.acquire()[0]).isEqualTo(concat(name, new byte[] { (byte) 0xFF }, "writer".getBytes(StandardCharsets.US_ASCII)));
        assertThat(LockType.EXCLUSIVE.keys("pfx:заказ:€", null).acquire()[0]).isEqualTo(name);
    }

    @Test
    void aLockOnSeveralKeysIsNotNamedByKeys() {
        assertThatIllegalStateException().isThrownBy(() -> LockType.MULTI.keys(KEY, null))
                .withMessage("a lock on several keys is named by multiKeys");
    }

    @Test
    void aLockOnSeveralKeysUsesTheExclusiveKeyOfEach() {
        LockType.Keys keys = LockType.multiKeys(List.of("acct:1", "acct:2"), List.of("redlock:acct:1", "redlock:acct:2"), null);
        assertThat(text(keys.acquire())).containsExactly("redlock:acct:1", "redlock:acct:2");
        assertThat(text(keys.release())).containsExactly("redlock:acct:1", "redlock:acct:2");
        assertThat(text(keys.extend())).containsExactly("redlock:acct:1", "redlock:acct:2");
        assertThat(text(keys.retryCleanup())).containsExactly("redlock:acct:1", "redlock:acct:2");
        assertThat(keys.fence()).isNull();
        assertThat(keys.names()).containsExactly("acct:1", "acct:2");
        assertThat(text(keys.waiting())).containsExactly("redlock:acct:1ÿwaiting", "redlock:acct:2ÿwaiting");
        assertThat(text(keys.publishedRelease())).containsExactly("redlock:acct:1", "redlock:acct:2", "redlock:acct:1ÿwaiting",
                "redlock:acct:2ÿwaiting");
        assertThat(text(keys.channels())).containsExactly("redlock:acct:1ÿreleased", "redlock:acct:2ÿreleased");
    }

    @Test
    void aFencedLockOnSeveralKeysSendsTheCounterLastAndConfirmsOnItsFirstKey() {
        LockType.Keys keys = LockType.multiKeys(List.of("acct:1", "acct:2"), List.of("redlock:acct:1", "redlock:acct:2"), COUNTER);
        assertThat(text(keys.acquire())).containsExactly("redlock:acct:1", "redlock:acct:2", "redlock:ÿfencing-counter");
        assertThat(text(keys.fence())).containsExactly("redlock:acct:1", "redlock:ÿfencing-counter");
        assertThat(text(keys.release())).containsExactly("redlock:acct:1", "redlock:acct:2");
    }

    @Test
    void theCleanUpOfAnExclusiveLockMarksWhoWaitsForEachKey() {
        assertThat(text(LockType.EXCLUSIVE.keys(KEY, COUNTER).cleanupMarking()))
                .containsExactly("redlock:order:42", "redlock:order:42ÿwaiting");
        LockType.Keys multi = LockType.multiKeys(List.of("a", "b"), List.of("p:a", "p:b"), null);
        assertThat(text(multi.cleanupMarking())).containsExactly("p:a", "p:b", "p:aÿwaiting", "p:bÿwaiting");
    }

    @Test
    void aReadWriteLockHasNoWaitingMarks() {
        assertThat(LockType.READ.keys(KEY, null).cleanupMarking()).isNull();
        assertThat(LockType.WRITE.keys(KEY, null).cleanupMarking()).isNull();
    }

    @Test
    void aHandoffSendsTheKeyAndWhoWaitsForIt() {
        assertThat(text(LockType.EXCLUSIVE.keys(KEY, null).handoff())).containsExactly("redlock:order:42", "redlock:order:42ÿwaiting");
    }

    @Test
    void aRetryingCleanUpKeepsAReadersOrWritersPlaceInTheQueue() {
        LockType.Keys read = LockType.READ.keys(KEY, null);
        assertThat(text(read.cleanup(true))).containsExactly("redlock:order:42ÿreaders");
        assertThat(read.cleanup(false)).as("a final clean-up publishes where someone waits").isSameAs(read.publishedRelease());
        LockType.Keys write = LockType.WRITE.keys(KEY, null);
        assertThat(text(write.cleanup(true))).containsExactly("redlock:order:42ÿwriter");
        assertThat(write.cleanup(false)).isSameAs(write.publishedRelease());
    }

    @Test
    void aReleasePublishesTheTokenOnTheChannelOfEachKey() {
        byte[] token = "tok".getBytes(StandardCharsets.US_ASCII);
        assertThat(text(LockType.EXCLUSIVE.keys(KEY, null).releaseArgs(token))).containsExactly("tok", "redlock:order:42ÿreleased");
        LockType.Keys multi = LockType.multiKeys(List.of("a", "b"), List.of("p:a", "p:b"), null);
        assertThat(text(multi.releaseArgs(token))).containsExactly("tok", "p:aÿreleased", "p:bÿreleased");
    }

    @Test
    void eachTypeAcquiresWithItsScript() {
        assertThat(LockType.EXCLUSIVE.acquireScript(false, false)).isNull(); // a plain SET NX PX
        assertThat(LockType.EXCLUSIVE.acquireScript(false, true)).isSameAs(LuaScript.ACQUIRE_EXCLUSIVE);
        assertThat(LockType.EXCLUSIVE.acquireScript(true, false)).isSameAs(LuaScript.ACQUIRE_FENCED);
        assertThat(LockType.EXCLUSIVE.acquireScript(true, true)).isSameAs(LuaScript.ACQUIRE_FENCED);
        assertThat(LockType.MULTI.acquireScript(false, true)).isSameAs(LuaScript.ACQUIRE_MULTI);
        assertThat(LockType.MULTI.acquireScript(true, false)).isSameAs(LuaScript.ACQUIRE_MULTI_FENCED);
        assertThat(LockType.READ.acquireScript(false, false)).isSameAs(LuaScript.ACQUIRE_READ);
        assertThat(LockType.WRITE.acquireScript(true, true)).isSameAs(LuaScript.ACQUIRE_WRITE);
    }

    @Test
    void eachTypeReleasesAndExtendsWithItsScript() {
        assertThat(LockType.EXCLUSIVE.releaseScript()).isSameAs(LuaScript.RELEASE);
        assertThat(LockType.MULTI.releaseScript()).isSameAs(LuaScript.RELEASE_MULTI);
        assertThat(LockType.READ.releaseScript()).isSameAs(LuaScript.RELEASE_READ);
        assertThat(LockType.WRITE.releaseScript()).isSameAs(LuaScript.RELEASE_WRITE);
        assertThat(LockType.EXCLUSIVE.extendScript()).isSameAs(LuaScript.EXTEND);
        assertThat(LockType.WRITE.extendScript()).isSameAs(LuaScript.EXTEND);
        assertThat(LockType.MULTI.extendScript()).isSameAs(LuaScript.EXTEND_MULTI);
        assertThat(LockType.READ.extendScript()).isSameAs(LuaScript.EXTEND_READ);
    }

    @Test
    void aWritersRetryCleanUpDeletesOnlyItsKey() {
        assertThat(LockType.WRITE.retryCleanupScript()).isSameAs(LuaScript.RELEASE);
        assertThat(LockType.READ.retryCleanupScript()).isSameAs(LuaScript.RELEASE_READ);
        assertThat(LockType.EXCLUSIVE.retryCleanupScript()).isSameAs(LuaScript.RELEASE);
        assertThat(LockType.MULTI.retryCleanupScript()).isSameAs(LuaScript.RELEASE_MULTI);
    }

    @Test
    void onlyReadersAndWritersKeepTheirTokenAcrossAttempts() {
        assertThat(LockType.READ.keepsTokenAcrossAttempts()).isTrue();
        assertThat(LockType.WRITE.keepsTokenAcrossAttempts()).isTrue();
        assertThat(LockType.EXCLUSIVE.keepsTokenAcrossAttempts()).isFalse();
        assertThat(LockType.MULTI.keepsTokenAcrossAttempts()).isFalse();
    }

    @Test
    void theObserverNamesEachAcquisitionCommand() {
        assertThat(LockType.values()).extracting(LockType::command).containsExactly("set", "acquire-multi", "acquire-read",
                "acquire-write");
    }

    /** Each key as text, byte by byte, so that the separator byte 0xFF reads as {@code ÿ} (its Latin-1 character). */
    private static List<String> text(byte[][] keys) {
        return Arrays.stream(keys).map((key) -> new String(key, StandardCharsets.ISO_8859_1)).toList();
    }

    private static byte[] bytes(String prefix, String part) {
        return concat(prefix.getBytes(StandardCharsets.UTF_8), new byte[] { (byte) 0xFF }, part.getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

}
