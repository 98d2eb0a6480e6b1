package io.github.redlock.core.internal.script;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests {@link LuaScript}: each script's body is its files one after the other (a shared prelude, then the script),
 * its SHA is the SHA-1 of that body as {@code EVALSHA} expects it, every helper a script calls is defined by a prelude
 * it was loaded with, and the scripts loaded on each connection are the frequent ones, each once.
 */
class LuaScriptTests {

    @Test
    void theShaIsTheLowerCaseHexSha1OfTheUtf8Body() throws Exception {
        for (Map.Entry<String, LuaScript> script : scripts().entrySet()) {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(script.getValue().body().getBytes(StandardCharsets.UTF_8));
            assertThat(script.getValue().sha()).as(script.getKey()).isEqualTo(HexFormat.of().formatHex(digest)).matches("[0-9a-f]{40}");
        }
    }

    @Test
    void aScriptOfSeveralFilesIsTheirTextInOrder() throws IOException {
        assertThat(LuaScript.RELEASE.body()).isEqualTo(file("release.lua"));
        assertThat(LuaScript.ACQUIRE_READ.body()).isEqualTo(file("queue-prelude.lua") + file("acquire-read.lua"));
        assertThat(LuaScript.ACQUIRE_WRITE.body())
                .isEqualTo(file("queue-prelude.lua") + file("fence-prelude.lua") + file("acquire-write.lua"));
        assertThat(LuaScript.ACQUIRE_FENCED.body()).isEqualTo(file("fence-prelude.lua") + file("acquire-fenced.lua"));
        assertThat(LuaScript.ACQUIRE_MULTI_FENCED.body())
                .isEqualTo(file("multi-prelude.lua") + file("fence-prelude.lua") + file("acquire-multi-fenced.lua"));
        assertThat(LuaScript.FENCING_FLOOR.body()).isEqualTo(file("fence-prelude.lua") + file("fencing-floor.lua"));
    }

    @Test
    void everyHelperAScriptCallsIsDefinedBeforeIt() {
        List<String> helpers = List.of("next_fence", "clock_floor", "refusal", "set_all", "queued_before", "enqueue", "dequeue");
        for (Map.Entry<String, LuaScript> script : scripts().entrySet()) {
            String body = script.getValue().body();
            for (String helper : helpers) {
                int call = body.replace("local function " + helper + "(", "").indexOf(helper + "(");
                if (call >= 0) {
                    assertThat(body).as("%s calls %s", script.getKey(), helper).contains("local function " + helper + "(");
                }
            }
        }
    }

    @Test
    void theScriptsLoadedOnEachConnectionAreTheFrequentOnesEachOnce() {
        // The frequent ones, and the revoke: seldom, but bounded by the node timeout, which a NOSCRIPT round trip would eat into.
        assertThat(LuaScript.ALL).hasSize(18).contains(LuaScript.REVOKE).doesNotHaveDuplicates()
                .doesNotContain(LuaScript.FENCING_FLOOR, LuaScript.NODE_RECORD, LuaScript.NODE_RECORDS, LuaScript.KEPT_MARKER, LuaScript.REPAIR, LuaScript.REPAIR_RW, LuaScript.INSPECT);
        List<LuaScript> frequent = new ArrayList<>(scripts().values());
        frequent.removeAll(List.of(LuaScript.FENCING_FLOOR, LuaScript.NODE_RECORD, LuaScript.NODE_RECORDS, LuaScript.KEPT_MARKER, LuaScript.REPAIR, LuaScript.REPAIR_RW, LuaScript.INSPECT));
        assertThat(LuaScript.ALL).containsExactlyInAnyOrderElementsOf(frequent);
    }

    @Test
    void everyScriptHasItsOwnSha() {
        assertThat(scripts().values()).extracting(LuaScript::sha).doesNotHaveDuplicates();
    }

    /** Every script constant, by name. */
    private static Map<String, LuaScript> scripts() {
        Map<String, LuaScript> scripts = new LinkedHashMap<>();
        for (Field field : LuaScript.class.getDeclaredFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == LuaScript.class) {
                try {
                    scripts.put(field.getName(), (LuaScript) field.get(null));
                }
                catch (IllegalAccessException ex) {
                    throw new IllegalStateException(ex);
                }
            }
        }
        return scripts;
    }

    private static String file(String name) throws IOException {
        try (InputStream in = LuaScript.class.getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

}
