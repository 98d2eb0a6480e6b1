package io.github.redlock.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules of {@code docs/architecture.md} that the build enforces, on the main classes of the core and the starter:
 * no cycles between packages, feature packages never reach into the auto-configuration that wires them, the core
 * never knows Spring, and nothing outside the core's internal packages uses them.
 */
class ArchitectureTests {

    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        // The core's classes come from its jar in a build of this module alone, from its folder in a whole build.
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.github.redlock");
    }

    @Test
    void theRulesSeeTheCoreAndTheStarter() {
        assertThat(classes.contain("io.github.redlock.core.Redlock")).isTrue();
        assertThat(classes.contain("io.github.redlock.aop.RedlockedAspect")).isTrue();
        assertThat(classes.contain("io.github.redlock.autoconfigure.RedlockAutoConfiguration")).isTrue();
    }

    @Test
    void packagesHaveNoCycles() {
        slices().matching("io.github.redlock.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void featurePackagesNeverUseTheAutoConfiguration() {
        noClasses().that().resideInAnyPackage("io.github.redlock.aop..", "io.github.redlock.annotation..", "io.github.redlock.health..",
                "io.github.redlock.metrics..", "io.github.redlock.actuate..", "io.github.redlock.integration..",
                "io.github.redlock.shedlock..", "io.github.redlock.connection..", "io.github.redlock.event..")
                .should().dependOnClassesThat().resideInAPackage("io.github.redlock.autoconfigure..")
                .check(classes);
    }

    @Test
    void theCoreKnowsNoSpring() {
        noClasses().that().resideInAPackage("io.github.redlock.core..")
                .should().dependOnClassesThat().resideInAnyPackage("org.springframework..", "io.github.redlock.autoconfigure..",
                        "io.github.redlock.aop..", "io.github.redlock.annotation..")
                .check(classes);
    }

    @Test
    void onlyTheCoreUsesItsInternalPackages() {
        noClasses().that().resideOutsideOfPackage("io.github.redlock.core..")
                .should().dependOnClassesThat().resideInAPackage("io.github.redlock.core.internal..")
                .allowEmptyShould(true)
                .check(classes);
    }

}
