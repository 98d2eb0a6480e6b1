package io.github.redlock.core.internal.engine;

import java.util.Base64;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests {@link Tokens}: 128 random bits per token, written as 22 characters of URL-safe Base64 without padding, never
 * the same twice.
 */
class TokensTests {

    @Test
    void aTokenIs22UrlSafeCharacters() {
        for (int i = 0; i < 1_000; i++) {
            assertThat(Tokens.newToken()).hasSize(22).matches("[A-Za-z0-9_-]{22}");
        }
    }

    @Test
    void aHoldersTokenNamesItsInstanceIdWhichIsReadBackAndAForeignTokenNamesNone() {
        String token = Tokens.newToken("orders@host-1:4242");
        assertThat(token).startsWith("orders@host-1:4242:").hasSize("orders@host-1:4242:".length() + 22);
        assertThat(Tokens.holderOf(token)).isEqualTo("orders@host-1:4242");
        assertThat(Tokens.holderOf(Tokens.newToken())).as("no instance id").isNull();
        assertThat(Tokens.holderOf("f3a9c2e1b7d84e6a")).as("another client's").isNull();
        assertThat(Tokens.holderOf("node:" + "x".repeat(21) + "!")).as("not this client's random part").isNull();
        assertThat(Tokens.holderOf(":" + Tokens.newToken())).as("an empty id").isNull();
    }

    @Test
    void aTokenIs128Bits() {
        assertThat(Base64.getUrlDecoder().decode(Tokens.newToken())).hasSize(16);
    }

    @Test
    void tokensAreDistinct() {
        Set<String> tokens = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            tokens.add(Tokens.newToken());
        }
        assertThat(tokens).hasSize(10_000);
    }

    @Test
    void tokensUseTheWholeAlphabet() {
        // 128 random bits: over 2,000 tokens every character of the alphabet shows up (a constant or a counter would not).
        Set<Character> seen = new HashSet<>();
        for (int i = 0; i < 2_000; i++) {
            for (char c : Tokens.newToken().toCharArray()) {
                seen.add(c);
            }
        }
        assertThat(seen).hasSize(64);
    }

}
