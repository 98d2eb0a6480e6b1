package io.github.redlock.architecture;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import io.github.redlock.core.Redlock;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.fields;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules of {@code docs/contributing/architecture.md} that the build enforces, on the main classes of the core and the starter:
 * no cycles between packages, the core's internal packages in layers that depend only downwards, no internal type in a
 * public signature, feature packages never reach into the auto-configuration that wires them, the core never knows
 * Spring, and nothing outside the core uses its internal packages.
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

    /**
     * No cycles between packages, with one named edge left out: the front door, {@code Redlock} and its builder, into the
     * internal service and configuration it delegates to ({@link #theFrontDoorOnlyDelegates}). The internal packages use
     * the API's types (they implement {@code RedlockLease}, throw its exceptions, report its statuses), and nothing else
     * of the API's package uses an internal type, so any other edge from the API into the internals closes a cycle here.
     */
    @Test
    void packagesHaveNoCycles() {
        slices().matching("io.github.redlock.(**)").should().beFreeOfCycles()
                .ignoreDependency(JavaClass.Predicates.belongToAnyOf(Redlock.class), resideInAPackage("io.github.redlock.core.internal.."))
                .check(classes);
    }

    @Test
    void theInternalPackagesDependOnlyDownwards() {
        layeredArchitecture().consideringOnlyDependenciesInAnyPackage("io.github.redlock.core.internal..")
                .layer("assembly").definedBy("io.github.redlock.core.internal")
                .layer("engine").definedBy("io.github.redlock.core.internal.engine..")
                .layer("guard").definedBy("io.github.redlock.core.internal.guard..")
                .layer("lease").definedBy("io.github.redlock.core.internal.lease..")
                .layer("release").definedBy("io.github.redlock.core.internal.release..")
                .layer("node").definedBy("io.github.redlock.core.internal.node..")
                .layer("script").definedBy("io.github.redlock.core.internal.script..")
                .layer("support").definedBy("io.github.redlock.core.internal.support..")
                .whereLayer("assembly").mayNotBeAccessedByAnyLayer()
                .whereLayer("engine").mayOnlyBeAccessedByLayers("assembly")
                .whereLayer("guard").mayOnlyBeAccessedByLayers("assembly", "engine")
                .whereLayer("lease").mayOnlyBeAccessedByLayers("assembly", "engine")
                .whereLayer("release").mayOnlyBeAccessedByLayers("assembly", "engine", "lease")
                .whereLayer("node").mayOnlyBeAccessedByLayers("assembly", "engine", "guard", "lease")
                .whereLayer("script").mayOnlyBeAccessedByLayers("assembly", "engine", "guard", "lease", "node")
                .check(classes);
    }

    @Test
    void publicSignaturesNeverExposeAnInternalType() {
        codeUnits().that().arePublic().or().areProtected()
                .and().areDeclaredInClassesThat().arePublic()
                .and().areDeclaredInClassesThat().resideOutsideOfPackage("..internal..")
                .should(notInvolve(INTERNAL)).check(classes);
        fields().that().arePublic().or().areProtected()
                .and().areDeclaredInClassesThat().arePublic()
                .and().areDeclaredInClassesThat().resideOutsideOfPackage("..internal..")
                .should(notHaveAnInternalType()).check(classes);
        classes().that().arePublic().and().resideOutsideOfPackage("..internal..")
                .should(notExtendOrImplementAnInternalType()).check(classes);
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
    void onlyTheCoroutineLockingRefersToKotlin() {
        // Those two are loaded only when Kotlin, Kotlin reflection and kotlinx-coroutines-reactor are present: any other
        // class that referred to a Kotlin type would fail to load in an application without them.
        noClasses().that().resideInAPackage("io.github.redlock..")
                .and().haveNameNotMatching("io\\.github\\.redlock\\.aop\\.(CoroutineLocking|DirectSuspendCall)(\\$.*)?")
                .should().dependOnClassesThat().resideInAnyPackage("kotlin..", "kotlinx..")
                .check(classes);
    }

    @Test
    void theCoreKnowsNoSpring() {
        noClasses().that().resideInAPackage("io.github.redlock.core..")
                .should().dependOnClassesThat().resideInAnyPackage("org.springframework..", "io.github.redlock.autoconfigure..",
                        "io.github.redlock.aop..", "io.github.redlock.annotation..")
                .check(classes);
    }

    private static final DescribedPredicate<JavaClass> INTERNAL = resideInAPackage("io.github.redlock..internal..");

    private static ArchCondition<JavaCodeUnit> notInvolve(DescribedPredicate<JavaClass> internal) {
        return new ArchCondition<>("not take, return or throw a type of an internal package") {

            @Override
            public void check(JavaCodeUnit unit, ConditionEvents events) {
                Set<JavaClass> involved = new LinkedHashSet<>(unit.getReturnType().getAllInvolvedRawTypes());
                unit.getParameterTypes().forEach((type) -> involved.addAll(type.getAllInvolvedRawTypes()));
                involved.addAll(unit.getThrowsClause().getTypes());
                involved.stream().filter(internal).forEach((type) -> events.add(SimpleConditionEvent.violated(unit,
                        unit.getFullName() + " exposes the internal type " + type.getName())));
            }

        };
    }

    private static ArchCondition<JavaField> notHaveAnInternalType() {
        return new ArchCondition<>("not have a type of an internal package") {

            @Override
            public void check(JavaField field, ConditionEvents events) {
                field.getType().getAllInvolvedRawTypes().stream().filter(INTERNAL).forEach((type) -> events.add(
                        SimpleConditionEvent.violated(field, field.getFullName() + " exposes the internal type " + type.getName())));
            }

        };
    }

    private static ArchCondition<JavaClass> notExtendOrImplementAnInternalType() {
        return new ArchCondition<>("not extend or implement a type of an internal package") {

            @Override
            public void check(JavaClass type, ConditionEvents events) {
                type.getAllRawSuperclasses().stream().filter(INTERNAL).forEach((parent) -> events.add(
                        SimpleConditionEvent.violated(type, type.getName() + " extends the internal type " + parent.getName())));
                type.getAllRawInterfaces().stream().filter(INTERNAL).forEach((parent) -> events.add(
                        SimpleConditionEvent.violated(type, type.getName() + " implements the internal type " + parent.getName())));
            }

        };
    }

    /**
     * {@code Redlock} only delegates: it and its builder use three internal classes (the service each method calls, the
     * checked lock name it hands over, the configuration, whose draft the builder fills), and nothing internal depends
     * on it.
     */
    @Test
    void theFrontDoorOnlyDelegates() {
        Set<String> internal = new java.util.TreeSet<>();
        for (String front : List.of("io.github.redlock.core.Redlock", "io.github.redlock.core.Redlock$Builder")) {
            classes.get(front).getDirectDependenciesFromSelf().stream().map((dependency) -> dependency.getTargetClass().getBaseComponentType())
                    .filter(INTERNAL).forEach((type) -> internal.add(type.getName()));
        }
        assertThat(internal).containsExactlyInAnyOrder("io.github.redlock.core.internal.LockService",
                "io.github.redlock.core.internal.LockName", "io.github.redlock.core.internal.RedlockConfig",
                "io.github.redlock.core.internal.RedlockConfig$Draft");
        noClasses().that().resideInAPackage("io.github.redlock.core.internal..")
                .should().dependOnClassesThat().haveFullyQualifiedName("io.github.redlock.core.Redlock")
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
