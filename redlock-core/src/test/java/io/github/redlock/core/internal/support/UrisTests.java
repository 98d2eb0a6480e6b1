package io.github.redlock.core.internal.support;

import java.io.IOException;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests {@link Uris}: a failure is described by its whole cause chain, each message once, and never with a password.
 */
class UrisTests {

    @Test
    void aFailureIsDescribedCauseByCauseWithoutRepeatsOrPasswords() {
        Exception root = new IllegalStateException("WRONGPASS invalid username-password pair");
        Exception failure = new IOException("Unable to connect to redis://:s3cret@10.0.0.1:6379", new RuntimeException(root.getMessage(), root));
        assertThat(Uris.describe(failure))
                .isEqualTo("Unable to connect to redis://****@10.0.0.1:6379: WRONGPASS invalid username-password pair");
    }

    @Test
    void maskingHidesTheUserInfoOfEveryFormAndKeepsTheRest() {
        assertThat(Uris.masked("redis://:s3cret@10.0.0.1:6379/2")).isEqualTo("redis://****@10.0.0.1:6379/2");
        assertThat(Uris.masked("rediss://app:s3cret@redis.example.com:6380")).isEqualTo("rediss://****@redis.example.com:6380");
        assertThat(Uris.masked("redis-sentinel://:s3cret@10.0.1.1:26379,10.0.1.2:26379#locks"))
                .isEqualTo("redis-sentinel://****@10.0.1.1:26379,10.0.1.2:26379#locks");
        assertThat(Uris.masked("redis://10.0.0.1:6379")).isEqualTo("redis://10.0.0.1:6379");
        assertThat(Uris.masked("redis://10.0.0.1:6379/0?timeout=1s")).isEqualTo("redis://10.0.0.1:6379/0?timeout=1s");
    }

    @Test
    void aCauseWithoutMessageIsNamedByItsType() {
        assertThat(Uris.describe(new IOException("Unable to connect", new NullPointerException()))).isEqualTo("Unable to connect: NullPointerException");
    }

    @Test
    void anEntryIsMaskedUpToItsLastAtSignWhateverItsUserInfoHolds() {
        assertThat(Uris.maskedEntry("redis://app:ab/cd+ef gh@10.0.0.1:6379")).isEqualTo("redis://****@10.0.0.1:6379");
        assertThat(Uris.maskedEntry("redis://:pa@ss@word@10.0.0.1:6379/2")).isEqualTo("redis://****@10.0.0.1:6379/2");
        assertThat(Uris.maskedEntry("redis-sentinel://:s e/c+r@h1:26379,h2:26379#m")).isEqualTo("redis-sentinel://****@h1:26379,h2:26379#m");
        assertThat(Uris.maskedEntry("redis://10.0.0.1:6379")).isEqualTo("redis://10.0.0.1:6379");
        assertThat(Uris.maskedEntry("not a uri")).isEqualTo("not a uri");
    }

    @Test
    void aTextIsMaskedUpToTheLastAtSignOfEachUriInIt() {
        assertThat(Uris.masked("Unable to connect to redis://app:ab/cd+ef@10.0.0.1:6379 now"))
                .isEqualTo("Unable to connect to redis://****@10.0.0.1:6379 now");
        assertThat(Uris.masked("redis://:pa@ss@10.0.0.1:6379")).isEqualTo("redis://****@10.0.0.1:6379");
    }

    @Test
    void whatAMessageQuotesOfAnEntrysUserInfoIsMaskedAndTheRestKept() {
        String entry = "redis://:AKIA+x/y==@10.0.0.1:notaport";
        // Lettuce's own message for this entry.
        assertThat(Uris.withoutSecretsOf(entry, "For input string: \"y==@10.0.0.1:notaport\""))
                .isEqualTo("For input string: \"****@10.0.0.1:notaport\"");
        assertThat(Uris.withoutSecretsOf(entry, "Illegal character at index 9: " + entry))
                .isEqualTo("Illegal character at index 9: redis://****@10.0.0.1:notaport");
        assertThat(Uris.withoutSecretsOf("redis://:abcd@h:1", "bad port 'd@h:1'")).as("one character beside the @").isEqualTo("bad port '****@h:1'");
        assertThat(Uris.withoutSecretsOf("redis://:abcd@h:1", "a port of 'h:1'")).isEqualTo("a port of 'h:1'");
        assertThat(Uris.withoutSecretsOf("redis://h:1", "anything")).isEqualTo("anything");
    }

}
