package io.github.redlock.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.Optional;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every library jar declares a stable {@code Automatic-Module-Name}: the packaged jars of the modules, read after the
 * build packaged them (this module is the last library module of the build). A jar not built yet (this module built
 * alone) is skipped.
 */
class ModuleNamesIntegrationTests {

    private static final Map<String, String> NAMES = Map.of("redlock-test", "io.github.redlock.test", "redlock-core",
            "io.github.redlock.core", "redlock-spring-boot-autoconfigure", "io.github.redlock.autoconfigure",
            "redlock-spring-boot-starter", "io.github.redlock.starter", "redlock-spring-boot-test", "io.github.redlock.boot.test");

    static Stream<String> modules() {
        return NAMES.keySet().stream().sorted();
    }

    @ParameterizedTest
    @MethodSource("modules")
    void theJarDeclaresItsModuleName(String module) throws IOException {
        Optional<Path> jar = jarOf(module);
        assumeTrue(jar.isPresent(), () -> module + " has no jar yet: build the whole project (./mvnw verify)");
        try (JarFile file = new JarFile(jar.get().toFile())) {
            assertThat(file.getManifest().getMainAttributes().getValue("Automatic-Module-Name")).as(jar.get().toString())
                    .isEqualTo(NAMES.get(module));
        }
    }

    private static Optional<Path> jarOf(String module) throws IOException {
        Path target = Paths.get(System.getProperty("user.dir")).resolve("..").resolve(module).resolve("target").normalize();
        if (!Files.isDirectory(target)) {
            return Optional.empty();
        }
        try (Stream<Path> files = Files.list(target)) {
            return files.filter((file) -> file.getFileName().toString().matches(module + "-[^-]+(-SNAPSHOT)?\\.jar")).findFirst();
        }
    }

}
