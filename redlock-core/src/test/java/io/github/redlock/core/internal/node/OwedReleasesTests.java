package io.github.redlock.core.internal.node;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.redlock.core.internal.script.LuaScript;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests {@link OwedReleases}: the releases kept for a disconnected node, each sent once when it is back, none kept whose
 * key could no longer exist, and at most {@link NodeLimits#OWED_LIMIT} of them.
 */
class OwedReleasesTests {

    private final OwedReleases owed = new OwedReleases("a:6379");

    @Test
    void aReleaseIsSentOnceInOrder() {
        OwedReleases.Release first = release(TimeUnit.HOURS.toNanos(1));
        OwedReleases.Release second = release(TimeUnit.HOURS.toNanos(1));
        assertThat(this.owed.owe(first)).isTrue();
        assertThat(this.owed.owe(second)).isTrue();
        assertThat(drain()).containsExactly(first, second);
        assertThat(drain()).isEmpty();
    }

    @Test
    void aReleaseWhoseKeyExpiredIsNotKept() {
        assertThat(this.owed.owe(release(-1))).isFalse();
        assertThat(drain()).isEmpty();
    }

    @Test
    void pastTheLimitReleasesAreDropped() {
        for (int i = 0; i < NodeLimits.OWED_LIMIT; i++) {
            assertThat(this.owed.owe(release(TimeUnit.HOURS.toNanos(1)))).isTrue();
        }
        assertThat(this.owed.owe(release(TimeUnit.HOURS.toNanos(1)))).isFalse();
        assertThat(drain()).hasSize(NodeLimits.OWED_LIMIT);
        assertThat(this.owed.owe(release(TimeUnit.HOURS.toNanos(1)))).isTrue(); // room again once drained
    }

    @Test
    void clearingForgetsEveryRelease() {
        this.owed.owe(release(TimeUnit.HOURS.toNanos(1)));
        this.owed.clear();
        assertThat(drain()).isEmpty();
        for (int i = 0; i < NodeLimits.OWED_LIMIT; i++) {
            this.owed.owe(release(TimeUnit.HOURS.toNanos(1)));
        }
        assertThat(drain()).hasSize(NodeLimits.OWED_LIMIT);
    }

    private List<OwedReleases.Release> drain() {
        List<OwedReleases.Release> sent = new ArrayList<>();
        this.owed.drain(sent::add);
        return sent;
    }

    private static OwedReleases.Release release(long validNanos) {
        return new OwedReleases.Release(LuaScript.RELEASE, new byte[][] { { 'k' } }, new byte[][] { { 't' } },
                System.nanoTime() + validNanos);
    }

}
